#!/usr/bin/env python3
"""Check the SIS_CORE naming protocol of two racing scans, exhaustively.

select_idle_mask_core() (patches 0011, 0012) ends by naming one free CPU of
the core it probed and clearing its siblings' bits, each bit tested first
and then set or cleared with an atomic operation.  Two scans of the same
core that chose different CPUs to keep can each clear the other's name.
This enumerates every interleaving, under sequential consistency, of the
steps of two such scans over a two-thread core, for every mask they may
find, every CPU each may stand on and whether each takes a CPU, and
reports the interleavings that end with the core unnamed while one of its
CPUs is free and taken by neither scan.

Two protocols are checked: "v2", where only a scan that keeps no CPU looks
again, and "v3", where every scan that cleared a bit looks again behind a
full barrier and names a free CPU if it finds the core unnamed.  The full
barrier on both sides makes it a store-buffering pattern, which the
kernel's memory model forbids; interleavings cover the rest.

Exit status 0 when v2 loses a name in some interleaving (the model can
fail) and v3 in none; 1 otherwise.  --help prints this text.
"""
import itertools
import sys

SIBLINGS = (0, 1)


def scan_steps(proto, cpu, take, free):
    """The steps of one scan as functions of the shared mask.

    cpu: the named CPU the scan stands on; take: whether it returns a CPU;
    free: the CPUs free as the scan probed them (the same for both scans:
    a taken CPU is still free until its wakee is queued).
    """
    keep = cpu if cpu in free else next((s for s in SIBLINGS if s in free), -1)
    taken = cpu if take and cpu in free else -1
    if taken >= 0 and keep == taken:
        keep = next((s for s in SIBLINGS if s != taken and s in free), -1)
    state = {"cleared": False, "seen": {}}

    def test(sibling):
        def step(mask):
            state["seen"][sibling] = mask[sibling]
        return step

    def write(sibling):
        def step(mask):
            if sibling == keep and not state["seen"][sibling]:
                mask[sibling] = True
            elif sibling != keep and state["seen"][sibling]:
                mask[sibling] = False
                state["cleared"] = True
        return step

    steps = []
    for s in SIBLINGS:
        steps += [test(s), write(s)]

    if proto == "v2":
        def again(mask):
            if keep < 0:
                for s in SIBLINGS:
                    if s != taken and s in free:
                        mask[s] = True
                        break
        steps.append(again)
    else:
        # the bits are read one by one: siblings lie in different words
        def read(sibling):
            def step(mask):
                state["seen"][("again", sibling)] = mask[sibling]
            return step

        def again(mask):
            if not state["cleared"]:
                return
            if any(state["seen"][("again", s)] for s in SIBLINGS):
                return
            for s in SIBLINGS:
                if s != taken and s in free:
                    mask[s] = True
                    break
        steps += [read(s) for s in SIBLINGS] + [again]
    return steps, taken


def interleavings(n, m):
    """Every order of n steps of one scan and m of the other (True: first)"""
    for firsts in itertools.combinations(range(n + m), n):
        order = [False] * (n + m)
        for i in firsts:
            order[i] = True
        yield order


def check(proto):
    runs = losses = 0
    example = None
    frees = [set(f) for r in range(len(SIBLINGS) + 1)
             for f in itertools.combinations(SIBLINGS, r)]
    for free in frees:
        for start in itertools.product((False, True), repeat=len(SIBLINGS)):
            for (c1, t1), (c2, t2) in itertools.product(
                    itertools.product(SIBLINGS, (False, True)), repeat=2):
                n = len(scan_steps(proto, c1, t1, free)[0])
                m = len(scan_steps(proto, c2, t2, free)[0])
                for order in interleavings(n, m):
                    a, ta = scan_steps(proto, c1, t1, free)
                    b, tb = scan_steps(proto, c2, t2, free)
                    mask = list(start)
                    for first in order:
                        (a if first else b).pop(0)(mask)
                    runs += 1
                    left = [s for s in free if s not in (ta, tb)]
                    if left and not any(mask):
                        losses += 1
                        if example is None:
                            example = (sorted(free), start, (c1, t1), (c2, t2))
    return runs, losses, example


def main():
    if sys.argv[1:] == ["--help"]:
        print(__doc__.strip())
        return 0
    if sys.argv[1:]:
        print("usage: sis-rename.py [--help]", file=sys.stderr)
        return 2
    verdict = 0
    for proto, want_loss in (("v2", True), ("v3", False)):
        runs, losses, ex = check(proto)
        line = f"{proto}: {losses} of {runs} interleavings leave a free core unnamed"
        if ex:
            free, start, s1, s2 = ex
            line += (f" (first: free {free}, mask {[int(b) for b in start]},"
                     f" scans on CPU {s1[0]}{' taking it' if s1[1] else ''}"
                     f" and CPU {s2[0]}{' taking it' if s2[1] else ''})")
        print(line)
        if bool(losses) != want_loss:
            verdict = 1
    return verdict


if __name__ == "__main__":
    sys.exit(main())
