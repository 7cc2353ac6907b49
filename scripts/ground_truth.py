#!/usr/bin/python3
"""Score predictions of hardware results against the hardware's own.

    ground_truth.py score [--predictions FILE] [--format summary|table] HW.CSV
    ground_truth.py grid HW.CSV

HW.CSV is a hardware table as data/hardware/zen3-sis-node-2023.csv
gives it, one cell a row: benchmark, nps, case (hackbench groups of 40
tasks, schbench workers, tbench or netperf clients), variant (tip or a
variant of VARIANTS), value and pct_vs_tip (positive: better than tip,
whatever the unit).  A file with a column missing, a variant or
benchmark not known here, or a cell without its tip row is refused in
one line naming it.

A prediction gives, for a cell and a variant, the predicted change
against tip in the same sense (positive: better) and its spread, or says
why the lab cannot reach the cell.  FILE is a CSV of benchmark, nps,
case, variant, pred, spread and status ("ok", or "unreachable: why"),
a row for every cell and variant of HW.CSV but tip, and no other;
without --predictions the load-only rule predicts (load_rule): a variant
helps while the benchmark runs fewer tasks than the machine has CPUs,
and hurts at or above, the same for every variant.  Both are scored by
the same code (score):

  sign    per NPS mode, of the cells whose hardware change is at least
          SIGNIFICANT per cent, those whose predicted change has the
          same sign (a prediction of 0 agrees with none);
  order   per NPS mode, of the pairs of variants at one cell whose
          hardware changes differ by at least SIGNIFICANT points, those
          the prediction orders the same way (a tie orders none);
  rank    per NPS mode and benchmark, Spearman's rank correlation of the
          predicted and the hardware changes (ties take their mean
          rank);

each once over the cells the prediction reaches and once over all the
cells, where an unreachable cell counts as a disagreement: no sign
agreement, no pair ordered, and for the rank the hardware's change
negated as its prediction.  --format table prints every cell: the
hardware's change, the prediction with its spread, the rule's, and
whether each agrees in sign.  grid prints the load grid: each case of
HW.CSV in tasks per CPU (LOAD_GRID_CPUS CPUs).  Needs only Python's
standard library.
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_results import fail  # noqa: E402

# the hardware variants and what the lab runs for each (tip: the lab
# stack with every switch off; TOPOEXT is SIS_NODE with an MMC level of
# two neighbouring CCX, the lab's SIS_NODE_MMC booted with sched_mmc)
VARIANTS = {
    "tip": "tip",
    "SIS_NODE": "SIS_NODE",
    "SIS_NODE_LIMIT": "SIS_NODE_LIMIT",
    "SIS_NODE_TOPOEXT": "SIS_NODE_MMC (sched_mmc)",
}
# tasks each case stands for: hackbench's cases are groups of 40 tasks,
# the others' workers or clients
TASKS_PER_CASE = {"hackbench": 40, "schbench": 1, "tbench": 1, "netperf": 1}
# the load grid is in tasks per CPU of the hardware the table was
# measured on (2 x 64C/128T)
LOAD_GRID_CPUS = 256
# a change smaller than this (per cent, or points between two variants)
# is within the noise the hardware posts give for these benchmarks
SIGNIFICANT = 5.0
COLUMNS = ("benchmark", "nps", "case", "variant", "value", "pct_vs_tip")
PRED_COLUMNS = ("benchmark", "nps", "case", "variant", "pred", "spread", "status")


def load(benchmark, case):
    """The tasks per CPU a case runs (the load grid)."""
    return TASKS_PER_CASE[benchmark] * case / LOAD_GRID_CPUS


def number(text, what):
    try:
        x = float(text)
    except (TypeError, ValueError):
        fail("%s: not a number: %r" % (what, text))
    if not math.isfinite(x):
        fail("%s: not a number: %r" % (what, text))
    return x


def read_rows(path, columns):
    try:
        with open(path, newline="") as f:
            r = csv.DictReader(f)
            missing = [c for c in columns if c not in (r.fieldnames or ())]
            if missing:
                fail("%s: no column %s" % (path, ", ".join(missing)))
            return [(n, row) for n, row in enumerate(r, 2)]
    except OSError as e:
        fail("cannot read %s: %s" % (path, e.strerror))


def cell_of(path, n, row):
    b, v = row["benchmark"], row["variant"]
    if b not in TASKS_PER_CASE:
        fail("%s line %d: unknown benchmark %r (%s)" % (path, n, b, ", ".join(TASKS_PER_CASE)))
    if v not in VARIANTS:
        fail("%s line %d: unknown variant %r (%s)" % (path, n, v, ", ".join(VARIANTS)))
    try:
        case = int(row["case"])
        nps = int(row["nps"])
    except ValueError:
        fail("%s line %d: nps and case are whole numbers, not %r and %r" %
             (path, n, row["nps"], row["case"]))
    return (b, nps, case), v


def read_hardware(path):
    """{(benchmark, nps, case): {variant: pct_vs_tip}}, tip's rows checked."""
    cells = defaultdict(dict)
    for n, row in read_rows(path, COLUMNS):
        key, v = cell_of(path, n, row)
        if v in cells[key]:
            fail("%s line %d: %s %s twice" % (path, n, key, v))
        cells[key][v] = number(row["pct_vs_tip"], "%s line %d: pct_vs_tip" % (path, n))
    for key, vs in cells.items():
        if "tip" not in vs:
            fail("%s: no tip row for %s NPS%d case %d" % (path, key[0], key[1], key[2]))
    return {k: {v: p for v, p in vs.items() if v != "tip"} for k, vs in cells.items()}


def read_predictions(path, cells):
    """{(cell, variant): (pred, spread)} or (None, why) where unreachable,
    one for each of cells' variants but tip."""
    pred = {}
    for n, row in read_rows(path, PRED_COLUMNS):
        key, v = cell_of(path, n, row)
        if v not in cells.get(key, {}):
            fail("%s line %d: %s NPS%d case %d %s is no cell of the hardware table" %
                 (path, n, key[0], key[1], key[2], v))
        if (key, v) in pred:
            fail("%s line %d: %s NPS%d case %d %s twice" % (path, n, key[0], key[1], key[2], v))
        st = row["status"]
        if st == "ok":
            pred[key, v] = (number(row["pred"], "%s line %d: pred" % (path, n)),
                            number(row["spread"], "%s line %d: spread" % (path, n)))
        elif st.startswith("unreachable: ") and st[13:].strip():
            pred[key, v] = (None, st[13:].strip())
        else:
            fail("%s line %d: status is ok or 'unreachable: why', not %r" % (path, n, st))
    for key in sorted(cells):
        for v in sorted(cells[key]):
            if (key, v) not in pred:
                fail("%s: no row for %s NPS%d case %d %s (run, or unreachable with its reason)" %
                     (path, key[0], key[1], key[2], v))
    return pred


def load_rule(cells):
    """The load-only rule as predictions: +1 below one task per CPU, -1 at
    or above, for every variant (it cannot tell variants apart)."""
    return {(key, v): (1.0 if load(key[0], key[2]) < 1 else -1.0, 0.0)
            for key, vs in cells.items() for v in vs}


def ranks(x):
    order = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    """Spearman's rho with mean ranks for ties; None when undefined."""
    if len(x) < 2:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if not sxx or not syy:
        return None
    return sxy / math.sqrt(sxx * syy)


def score(cells, pred, reachable_only):
    """Per NPS mode: sign [agree, cells], order [right, pairs], and rank
    {benchmark: rho}; with reachable_only the unreachable cells are left
    out, else each counts as a disagreement."""
    out = {}
    for nps in sorted({k[1] for k in cells}):
        sign, order = [0, 0], [0, 0]
        xs, ys = defaultdict(list), defaultdict(list)
        for key in sorted(k for k in cells if k[1] == nps):
            got = {}
            for v, hw in sorted(cells[key].items()):
                p = pred[key, v][0]
                if p is None and reachable_only:
                    continue
                got[v] = p
                if abs(hw) >= SIGNIFICANT:
                    sign[1] += 1
                    sign[0] += p is not None and p * hw > 0
                xs[key[0]].append(-hw if p is None else p)
                ys[key[0]].append(hw)
            vs = sorted(got)
            for i, a in enumerate(vs):
                for b in vs[i + 1:]:
                    d = cells[key][a] - cells[key][b]
                    if abs(d) < SIGNIFICANT:
                        continue
                    order[1] += 1
                    pa, pb = got[a], got[b]
                    order[0] += pa is not None and pb is not None and (pa - pb) * d > 0
        out[nps] = (sign, order, {b: spearman(xs[b], ys[b]) for b in sorted(xs)})
    return out


def fmt_rho(r):
    return "n/a" if r is None else "%.2f" % r


def summary(cells, pred, name):
    lines = []
    for label, only in (("reachable cells", True), ("all cells, unreachable ones disagreeing", False)):
        lines.append("%s, %s:" % (name, label))
        for nps, (sign, order, rank) in score(cells, pred, only).items():
            lines.append("  NPS%d: sign %d of %d, order %d of %d pairs, rank %s" % (
                nps, sign[0], sign[1], order[0], order[1],
                ", ".join("%s %s" % (b, fmt_rho(r)) for b, r in rank.items())))
    return lines


def table(cells, pred):
    rule = load_rule(cells)
    lines = ["benchmark nps case tasks/cpu variant: hardware, predicted (spread), agrees; rule, agrees"]
    for key in sorted(cells):
        for v, hw in sorted(cells[key].items()):
            p, s = pred[key, v]
            r = rule[key, v][0]
            sig = abs(hw) >= SIGNIFICANT

            def agree(x):
                if not sig:
                    return "-"
                return "yes" if x is not None and x * hw > 0 else "no"
            shown = ("unreachable: %s" % s) if p is None else "%+.1f (%.1f)" % (p, s)
            lines.append("%s %d %d %.2f %s: %+.2f, %s, %s; %+d, %s" % (
                key[0], key[1], key[2], load(key[0], key[2]), v, hw, shown, agree(p), r, agree(r)))
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("score", help="sign, order and rank agreement with the hardware")
    p.add_argument("--predictions", help="a predictions CSV (default: the load-only rule)")
    p.add_argument("--format", choices=("summary", "table"), default="summary")
    p.add_argument("hardware")
    p = sub.add_parser("grid", help="the cases of a hardware table in tasks per CPU")
    p.add_argument("hardware")
    args = ap.parse_args(argv)
    cells = read_hardware(args.hardware)
    if args.cmd == "grid":
        for b, c in sorted({(k[0], k[2]) for k in cells}):
            print("%s %d %.4f" % (b, c, load(b, c)))
        return 0
    if args.predictions:
        pred, name = read_predictions(args.predictions, cells), "predictions"
    else:
        pred, name = load_rule(cells), "load-only rule"
    out = summary(cells, pred, name) if args.format == "summary" else table(cells, pred)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
