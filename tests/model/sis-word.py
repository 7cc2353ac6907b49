#!/usr/bin/env python3
"""Check SIS_WORD's idle-core bits against every interleaving, with store buffers.

Patch 0024 keeps an LLC's idle cores in one word: a CPU going idle sets its
core's bit when its siblings are free by run queue (sis_word_core_idle(),
sis_word_siblings_free()), a wakeup claims a core with a test-and-clear and
probes its run queues (sis_word_claim()); with SIS_WORD_SUMMARY a word per
node lists the LLCs whose words may name a core (sis_word_llc_named(),
sis_word_llc_empty()).  Each is a store-buffering pattern: one side writes
and then reads what the other side writes.

Each thread below is the kernel's steps on a two-thread core, or on one LLC
of a node's summary.  Plain stores and the non-value-returning atomics
(set_bit(), clear_bit()) wait in the thread's store buffer until drained
in order, the weakest the kernel's memory model allows for this pattern;
smp_mb() and smp_mb__after_atomic() wait for the buffer to drain;
test_and_clear_bit() is fully ordered.  A thread reads its own buffered
stores.  Every interleaving of steps and drains is explored; a run fails
when it ends with a core free on every CPU and its bit clear (or a named
core in an LLC the node's word does not list).

Protocols, each with the steps of one version of the patch:
  siblings-idle   two siblings go idle together; each tests the other
                  with idle_cpu() (the first version: a CPU becomes the
                  idle task after set_next_task_idle(), where it tests)
  siblings-nomb   as the kernel's, by run queue, without the barrier
  siblings        the kernel's: nr_running, smp_mb(), the core's bit (a
                  bit found set is left alone), the sibling's nr_running
  claim-after     a wakeup claims the core's bit and probes the run queues
                  while the core's last busy CPU goes idle, the setter's
                  barrier after its test of the bit (ada329d's order)
  claim           the same with the kernel's order
  summary-nomb    the node's word without smp_mb__after_atomic()
  summary         the kernel's: a setter lists the LLC after setting its
                  core's bit, a walk that found the word empty drops the
                  LLC and looks again, a claim empties the word
Exit status 0 when each protocol without its barrier, and the first
version, lose a bit in some run and the kernel's in none; 1 otherwise.
"""
import sys

# An instruction: ("st", var, val), ("ld", reg, var), ("mb",),
# ("set", var) / ("clr", var) (buffered RMW), ("tac", reg, var)
# (test-and-clear, ordered), ("if", reg, val, n): skip the next n unless
# reg == val.


def run(progs, mem, bad):
    """Explore every interleaving; return a failing final memory or None"""
    n = len(progs)
    start = (tuple(sorted(mem.items())),
             tuple((0, (), ()) for _ in range(n)))
    todo, seen = [start], {start}
    while todo:
        memt, threads = todo.pop()
        m = dict(memt)
        succ = []
        for t, (pc, regs, buf) in enumerate(threads):
            r = dict(regs)
            if buf:
                # drain the oldest buffered write
                var, op = buf[0]
                m2 = dict(m)
                m2[var] = op if op in (0, 1) else (1 if op == "set" else 0)
                succ.append((m2, t, (pc, regs, buf[1:])))
            if pc >= len(progs[t]):
                continue
            ins = progs[t][pc]
            kind = ins[0]
            if kind == "st":
                succ.append((m, t, (pc + 1, regs, buf + ((ins[1], ins[2]),))))
            elif kind in ("set", "clr"):
                succ.append((m, t, (pc + 1, regs, buf + ((ins[1], kind),))))
            elif kind == "ld":
                val = m[ins[2]]
                for var, op in buf:
                    if var == ins[2]:
                        val = op if op in (0, 1) else (1 if op == "set" else 0)
                r[ins[1]] = val
                succ.append((m, t, (pc + 1, tuple(sorted(r.items())), buf)))
            elif kind == "mb":
                if not buf:
                    succ.append((m, t, (pc + 1, regs, buf)))
            elif kind == "tac":
                if not buf:
                    m2 = dict(m)
                    r[ins[1]] = m2[ins[2]]
                    m2[ins[2]] = 0
                    succ.append((m2, t, (pc + 1, tuple(sorted(r.items())), buf)))
            elif kind == "if":
                skip = 0 if r.get(ins[1]) == ins[2] else ins[3]
                succ.append((m, t, (pc + 1 + skip, regs, buf)))
        if not succ:
            if bad(m):
                return m
            continue
        for m2, t, th in succ:
            ths = list(threads)
            ths[t] = th
            st = (tuple(sorted(m2.items())), tuple(ths))
            if st not in seen:
                seen.add(st)
                todo.append(st)
    return None


def going_idle(me, sib, mb, by_rq=True):
    """CPU @me goes idle: its run queue empties, then sis_word_core_idle();
    the full barrier @mb before the test of the core's bit ("before"),
    after it ("after", before the siblings' loads), or none"""
    steps = [("st", f"nr{me}", 0)]
    if mb == "before":
        steps.append(("mb",))
    steps += [("ld", "bit", "bit"), ("if", "bit", 0, 3 + (mb == "after"))]
    if mb == "after":
        steps.append(("mb",))
    steps += [("ld", "s", f"nr{sib}" if by_rq else f"curr{sib}"),
              ("if", "s", 0, 1), ("set", "bit")]
    if not by_rq:
        # the switch to the idle task, after the test
        steps.append(("st", f"curr{me}", 0))
    return steps


def siblings(mb, by_rq=True):
    mem = {"nr0": 1, "nr1": 1, "curr0": 1, "curr1": 1, "bit": 0}
    progs = [going_idle(0, 1, mb, by_rq), going_idle(1, 0, mb, by_rq)]
    return run(progs, mem, lambda m: m["nr0"] == 0 and m["nr1"] == 0 and not m["bit"])


def claim(mb):
    # CPU 0 is free and its bit set; CPU 1 goes idle while a wakeup claims
    # the core: taken if both are free (the wakee then makes CPU 0 busy),
    # else dropped
    mem = {"nr0": 0, "nr1": 1, "bit": 1, "taken": 0}
    waker = [("tac", "c", "bit"), ("if", "c", 1, 5),
             ("ld", "a", "nr0"), ("ld", "b", "nr1"),
             ("if", "b", 0, 2), ("st", "taken", 1), ("st", "nr0", 1)]
    progs = [waker, going_idle(1, 0, mb)]
    return run(progs, mem, lambda m: m["nr0"] == 0 and m["nr1"] == 0 and not m["bit"])


def summary(barrier):
    # LLC word "bit", node word "llc".  A setter names a core and lists the
    # LLC; a walk that read the word empty drops the LLC and looks again;
    # a claim empties the word.  Start: word empty, LLC listed.
    mem = {"bit": 0, "llc": 1}
    mb = [("mb",)] if barrier else []
    setter = [("set", "bit")] + mb + [("ld", "l", "llc"), ("if", "l", 0, 1),
                                      ("set", "llc")]
    walk = [("ld", "w", "bit"), ("if", "w", 0, 5 + len(mb)),
            ("ld", "l", "llc"), ("if", "l", 1, 3 + len(mb)),
            ("clr", "llc")] + mb + [("ld", "w2", "bit"), ("if", "w2", 1, 1),
                                    ("set", "llc")]
    claimer = [("tac", "c", "bit")]
    for progs in ([setter, walk], [setter, walk, claimer]):
        bad = run(progs, mem, lambda m: m["bit"] and not m["llc"])
        if bad:
            return bad
    return None


def main():
    if sys.argv[1:] == ["--help"]:
        print(__doc__.strip())
        return 0
    if sys.argv[1:]:
        print("usage: sis-word.py [--help]", file=sys.stderr)
        return 2
    verdict = 0
    for name, check, want_loss in (
            ("siblings-idle", lambda: siblings("after", by_rq=False), True),
            ("siblings-nomb", lambda: siblings("none"), True),
            ("siblings", lambda: siblings("before"), False),
            ("claim-after", lambda: claim("after"), True),
            ("claim", lambda: claim("before"), False),
            ("summary-nomb", lambda: summary(False), True),
            ("summary", lambda: summary(True), False)):
        bad = check()
        if bad:
            print(f"{name}: a free core's bit is lost, ending with "
                  + " ".join(f"{k}={v}" for k, v in sorted(bad.items())))
        else:
            print(f"{name}: no run loses a bit")
        if bool(bad) != want_loss:
            verdict = 1
    return verdict


if __name__ == "__main__":
    sys.exit(main())
