#!/usr/bin/env python3
"""Check the SIS_CORE naming protocol of two racing scans, exhaustively.

select_idle_mask_core() (patches 0011, 0012) ends by naming one free CPU of
the core it probed and clearing its siblings' bits, each bit tested first
and then set or cleared with an atomic operation.  Two scans of the same
core that chose different CPUs to keep can each clear the other's name.
This explores every interleaving, under sequential consistency, of the
steps of two such scans over a two-thread core, for every mask they may
find, every CPU each may stand on, whether each returns that CPU to an
ordinary wakee, to one that counts as idle (SCHED_IDLE, cpu.idle) or to
none, and what each saw free when it probed.  CPUs may turn busy during
the race (never free: that is sis_core_rq_freed()'s part, paired by its
own barrier); a scan that looks again reads the final state.  It reports
the runs that end with the core unnamed while one of its CPUs is free.

Three protocols:
  v2     only a scan that keeps no CPU looks again, and never names the
         CPU it returns;
  v3-rc  every scan that cleared a bit looks again and names a free CPU
         if the core is unnamed, never the CPU it returns;
  v3     as v3-rc, but the CPU returned to a wakee that counts as idle
         stays free and may be named.
The kernel's memory model forbids the weak outcomes of the look-again
(store buffering with a full barrier on each side); this checks the
interleavings.  Exit status 0 when v2 and v3-rc lose a name in some run
(the model can fail) and v3 in none; 1 otherwise.
"""
import itertools
import sys

SIBLINGS = (0, 1)
TAKES = ("none", "ordinary", "idle")


class Scan:
    """One scan's fixed choices; its steps act on (mask, local state)"""

    def __init__(self, proto, cpu, take, view):
        self.proto = proto
        keep = cpu if cpu in view else next((s for s in SIBLINGS if s in view), -1)
        self.taken = cpu if take != "none" and cpu in view else -1
        self.busy = self.taken if take == "ordinary" else -1
        if self.busy >= 0 and keep == self.busy:
            keep = next((s for s in SIBLINGS if s != self.busy and s in view), -1)
        self.keep = keep
        # the CPU the look-again may not name
        self.excl = self.busy if proto == "v3" else self.taken
        self.nsteps = 2 * len(SIBLINGS) + (1 if proto == "v2" else len(SIBLINGS) + 1)

    def step(self, pc, local, mask, free):
        """Run step pc; local = (seen bits, cleared, seen again); new state"""
        seen, cleared, again = local
        mask = list(mask)
        n = len(SIBLINGS)
        if pc < 2 * n:
            s = SIBLINGS[pc // 2]
            if pc % 2 == 0:
                seen = seen[:s] + (mask[s],) + seen[s + 1:]
            elif s == self.keep and not seen[s]:
                mask[s] = True
            elif s != self.keep and seen[s]:
                mask[s] = False
                cleared = True
        elif self.proto == "v2":
            if self.keep < 0:
                self.name(mask, free)
        elif pc < 3 * n:
            s = SIBLINGS[pc - 2 * n]
            again = again[:s] + (mask[s],) + again[s + 1:]
        elif cleared and not any(again):
            self.name(mask, free)
        return tuple(mask), (seen, cleared, again)

    def name(self, mask, free):
        for s in SIBLINGS:
            if s != self.excl and s in free:
                mask[s] = True
                return


def explore(a, b, start, free):
    """Final masks of every interleaving of scans a and b"""
    blank = ((False,) * len(SIBLINGS), False, (False,) * len(SIBLINGS))
    todo = [(start, 0, blank, 0, blank)]
    seen = set(todo)
    finals = set()
    while todo:
        mask, pa, la, pb, lb = todo.pop()
        if pa == a.nsteps and pb == b.nsteps:
            finals.add(mask)
            continue
        nexts = []
        if pa < a.nsteps:
            m, l2 = a.step(pa, la, mask, free)
            nexts.append((m, pa + 1, l2, pb, lb))
        if pb < b.nsteps:
            m, l2 = b.step(pb, lb, mask, free)
            nexts.append((m, pa, la, pb + 1, l2))
        for st in nexts:
            if st not in seen:
                seen.add(st)
                todo.append(st)
    return finals


def subsets(cpus):
    cpus = sorted(cpus)
    return [set(c) for r in range(len(cpus) + 1) for c in itertools.combinations(cpus, r)]


def check(proto):
    cases = losses = 0
    example = None
    scans = list(itertools.product(SIBLINGS, TAKES))
    for v1, v2 in itertools.product(subsets(SIBLINGS), repeat=2):
        for (c1, t1), (c2, t2) in itertools.product(scans, repeat=2):
            a, b = Scan(proto, c1, t1, v1), Scan(proto, c2, t2, v2)
            # free at the end: free when both probed, less the CPUs given
            # to ordinary wakees
            for free in subsets(v1 & v2):
                free -= {a.busy, b.busy}
                for start in itertools.product((False, True), repeat=len(SIBLINGS)):
                    cases += 1
                    if free and (False,) * len(SIBLINGS) in explore(a, b, start, free):
                        losses += 1
                        if example is None:
                            example = (sorted(free), start, (c1, t1), (c2, t2))
    return cases, losses, example


def main():
    if sys.argv[1:] == ["--help"]:
        print(__doc__.strip())
        return 0
    if sys.argv[1:]:
        print("usage: sis-rename.py [--help]", file=sys.stderr)
        return 2
    verdict = 0
    for proto, want_loss in (("v2", True), ("v3-rc", True), ("v3", False)):
        cases, losses, ex = check(proto)
        line = f"{proto}: {losses} of {cases} cases can leave a free core unnamed"
        if ex:
            free, start, (c1, t1), (c2, t2) = ex
            line += (f" (first: mask {''.join(str(int(b)) for b in start)},"
                     f" scans on CPU {c1} ({t1} wakee) and CPU {c2} ({t2} wakee),"
                     f" free at the end {free})")
        print(line)
        if bool(losses) != want_loss:
            verdict = 1
    return verdict


if __name__ == "__main__":
    sys.exit(main())
