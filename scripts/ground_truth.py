#!/usr/bin/python3
"""Score predictions of hardware results against the hardware's own.

    ground_truth.py score [--predictions FILE | --cells-of FILE] [--format summary|table] HW.CSV
    ground_truth.py grid [--cpus N] [--ceilings "BENCH=FRACTION ..."] HW.CSV
    ground_truth.py replay HW.CSV DIR
    ground_truth.py designs
    ground_truth.py predict [--knobs KNOBS] [--design lab|bound] [--terms] HW.CSV CALIBRATION.CSV

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
whether each agrees in sign; --cells-of FILE scores the rule on the
cells the predictions FILE reaches alone (the others unreachable, with
its reasons), to compare the two on the same cells.  grid prints the load grid: each case of
HW.CSV, its tasks per CPU (on the LOAD_GRID_CPUS CPUs of the hardware),
the load point that runs it on a machine of N CPUs (a fraction of the
CPU count, as make score's JOBS take it) and "ok", or "unreachable:
why" when its tasks there are no whole number (one schbench worker on
256 CPUs is half a worker on 128; a hackbench group scales with the CPU
count, guest/bench/hackbench.sh) or its point lies above the
benchmark's ceiling.  replay prints the calibration CSV of a replay
(scripts/calibrate.sh's DIR: its grid.txt and a make score run per
part): for every cell of HW.CSV, one row per way the lab ran it (its run
label, the boot option, the knobs), with the runs and boots behind it,
the mean and standard deviation of each figure over its runs, and the
status "ok", "failed: N of M runs" (some runs failed; the others are
counted), "unreachable: why" (grid.txt's) or "not run" (a replay not
finished).  predict prints the predictor's predictions (predict(): its
formula and constants) from a calibration CSV, for score --predictions;
--terms prints each prediction's terms instead.  Needs only Python's
standard library.
"""
import argparse
import csv
import fractions
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_results import SCORE_FIGURES, fail  # noqa: E402

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


def grid(cells, cpus, ceilings):
    """The load grid on CPUS CPUs: (benchmark, case, tasks per CPU, load
    point, status) for each case, CEILINGS a {benchmark: Fraction}."""
    rows = []
    for b, c in sorted({(k[0], k[2]) for k in cells}):
        share = fractions.Fraction(TASKS_PER_CASE[b] * c, LOAD_GRID_CPUS)
        tasks = share * cpus
        # a hackbench group is 40 tasks on the hardware's CPUs and scales
        # with the CPU count: its cases are whole groups on any shape
        if b == "hackbench":
            tasks = fractions.Fraction(c)
        status = "ok"
        if tasks.denominator != 1:
            status = "unreachable: %s %s case %d is %s tasks on %d CPUs (no whole number)" % (
                b, "worker" if b == "schbench" else "client", c, float(share * cpus), cpus)
        elif b in ceilings and share > ceilings[b]:
            status = "unreachable: above the lab's ceiling %s of the CPU count for %s (CEILINGS)" % (
                ceilings[b], b)
        point = str(share)
        rows.append((b, c, float(share), point, status))
    return rows


def read_grid(path):
    """grid.txt of a replay: {(benchmark, case): (load point, status)}."""
    out = {}
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                w = line.rstrip("\n").split(" ", 4)
                if len(w) != 5 or w[0] not in TASKS_PER_CASE:
                    fail("%s line %d is no line of the load grid (ground_truth.py grid)" % (path, n))
                out[(w[0], int(number(w[1], "case")))] = (w[3], w[4])
    except OSError as e:
        fail("cannot read %s: %s" % (path, e.strerror))
    return out


# a replay's run label without its knobs, and its boot option: the
# hardware variant it stands for (TOPOEXT: SIS_NODE with the MMC level)
LAB_VARIANT = {
    ("tip", ""): "tip",
    ("SIS_NODE", ""): "SIS_NODE",
    ("SIS_NODE_LIMIT", ""): "SIS_NODE_LIMIT",
    ("tip", "sched_mmc"): "tip",
    ("SIS_NODE+SIS_NODE_MMC", "sched_mmc"): "SIS_NODE_TOPOEXT",
}
REPLAY_COLUMNS = ("benchmark", "nps", "case", "variant", "label", "boot_args", "knobs",
                  "plugin", "load_point", "runs", "boots", "seconds", "seconds_sd",
                  "wakeups_pu", "wakeups_pu_sd")


def plan_of(path, conf):
    """A run's plan.txt as {key: value}; without one (a fixture), its
    configuration's."""
    import score_report
    return score_report.read_keys(path) if os.path.isfile(path) else conf


def replay(cells, path):
    """The calibration CSV's rows of the replay in PATH."""
    import score_report  # the scoreboard's reader of score.csv
    grid_ = read_grid(os.path.join(path, "grid.txt"))
    case_of = {(b, lp): c for (b, c), (lp, st) in grid_.items() if st == "ok"}
    figs = [f[0] for f in SCORE_FIGURES]
    runs = defaultdict(lambda: {"ok": [], "all": 0, "boots": set()})
    for part in sorted(os.listdir(path)):
        csv_path = os.path.join(path, part, "score.csv")
        if not os.path.isfile(csv_path) or os.path.getsize(csv_path) == 0:
            continue
        conf = score_report.read_conf(os.path.join(path, part, "score.conf"))
        boot_args, knobs = conf.get("boot_args", ""), conf.get("knobs", "")
        # the plugin's runs are slower: their times and decisions are
        # never pooled with those of the runs without it (plan.txt: 0, 1,
        # and with the locality mode, loc)
        plan = plan_of(os.path.join(path, part, "plan.txt"), conf)
        plugin = "loc" if plan.get("cost") == "1" and plan.get("cost_locality") == "1" else \
            plan.get("cost", "0")
        with open(csv_path) as f:
            if sum(1 for _ in f) < 2:
                continue
        sc = score_report.Score(csv_path, conf)
        for r in sc.ok + sc.failed:
            label = r["variant"].split("@")[0]
            hw = LAB_VARIANT.get((label, boot_args))
            case = case_of.get((r["load"], r["load_point"]))
            if hw is None or case is None:
                fail("%s: run label %s at %s %s (boot option '%s') stands for no cell of the hardware table" % (
                    csv_path, r["variant"], r["load"], r["load_point"], boot_args))
            k = (r["load"], int(r["nps"]), case, hw, r["variant"], boot_args, knobs, plugin,
                 r["load_point"])
            runs[k]["all"] += 1
            if r["status"] == "ok":
                runs[k]["ok"].append(r)
                runs[k]["boots"].add(r["boot"])
    rows = []
    done = {k[:4] for k in runs}
    for key in sorted(cells):
        b, nps, case = key
        for v in sorted(cells[key]):
            lp, st = grid_.get((b, case), ("NA", "unreachable: not in the replay's grid"))
            if (b, nps, case, v) not in done:
                status = st if st != "ok" else "not run"
                rows.append([b, nps, case, v, "", "", "", "", lp, 0, 0] +
                            ["NA"] * (4 + 2 * len(figs)) + [status])
    for k in sorted(runs, key=str):
        ok = runs[k]["ok"]
        row = list(k) + [len(ok), len(runs[k]["boots"])]
        secs = [float(r["seconds"]) for r in ok]
        row += list(mean_sd(secs))
        # wakeups per unit of the run's work (a hackbench message)
        wpu = [per_unit(r["wakeups"], work_of(r)) for r in ok]
        row += list(mean_sd([x for x in wpu if x is not None]))
        for fig in figs:
            row += list(mean_sd([r[fig] for r in ok if r[fig] is not None]))
        nfail = runs[k]["all"] - len(ok)
        row.append("ok" if not nfail else "failed: %d of %d runs" % (nfail, runs[k]["all"]))
        rows.append(row)
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[3], str(r[4]), str(r[5]), str(r[6]), str(r[7])))
    header = list(REPLAY_COLUMNS)
    for fig in figs:
        header += [fig, fig + "_sd"]
    return [header + ["status"]] + rows


def mean_sd(x):
    """The mean and sample standard deviation of X, as text (NA without
    them: no value, or one, which has no spread)."""
    if not x:
        return "NA", "NA"
    m = sum(x) / len(x)
    if len(x) == 1:
        return "%.4g" % m, "NA"
    return "%.4g" % m, "%.2g" % math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1))


def parse_ceilings(text):
    """CEILINGS as make score takes them, "BENCH=FRACTION ..."."""
    out = {}
    for item in text.split():
        b, sep, f = item.partition("=")
        try:
            out[b] = fractions.Fraction(f)
        except (ValueError, ZeroDivisionError):
            sep = ""
        if not sep or b not in TASKS_PER_CASE or out[b] <= 0:
            fail("a ceiling is BENCH=FRACTION (%s), not '%s'" % (" ".join(sorted(TASKS_PER_CASE)), item))
    return out


def per_unit(count, work):
    """COUNT per unit of WORK, None when either is no positive number."""
    try:
        c, w = float(count), float(work)
    except (TypeError, ValueError):
        return None
    return c / w if w > 0 and math.isfinite(c) and math.isfinite(w) else None


def work_of(row):
    """A score row's units of work: its work column, or for a hackbench
    row without one (a run without the plugin, from before the guest
    recorded the work of every run), the messages its command sends:
    groups times fds times fds times loops (hackbench -T -p -g G -f F -l
    L)."""
    if row.get("work") not in (None, "", "NA"):
        return row["work"]
    if row.get("load") != "hackbench":
        return None
    w = row.get("command", "").split()
    try:
        opt = {w[i]: int(w[i + 1]) for i in range(len(w) - 1) if w[i] in ("-g", "-f", "-l")}
        return opt["-g"] * opt["-f"] * opt["-f"] * opt["-l"]
    except (KeyError, ValueError):
        return None


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


def tip_values(path):
    """{(benchmark, nps, case): tip's value} of a hardware table (its unit:
    seconds for hackbench)."""
    return {cell_of(path, n, row)[0]: number(row["value"], "%s line %d: value" % (path, n))
            for n, row in read_rows(path, COLUMNS) if row["variant"] == "tip"}


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


# The predictor's constants, none fitted to the hardware's changes:
# the hardware's hackbench (perf bench sched messaging -p -t -l 100000
# -g N, K Prateek Nayak's command: docs of bench-formats.md section 1.3),
# a group of 20 senders writing each loop one message to each of its 20
# receivers
HW_HACKBENCH_LOOPS = 100000
HW_HACKBENCH_FDS = 20
# a Zen3 core on scheduler code: instructions per cycle (branchy, pointer
# chasing code retires about one per cycle; an assumption, not a
# measurement: halving it doubles the instruction term) and its clock
# (2.0 GHz base to 3.675 GHz boost for the 64-core Milan parts, boost on
# in the 2023 runs: the middle)
ZEN3_IPC = 1.0
ZEN3_GHZ = 3.0
# a line moved across each boundary, in ns (Prateek's measurement on the
# same machine, data/hardware/README.md): the CCX's (high 80s to low
# 90s; the plugin's scheduler transfers a variant adds, its reads of the
# other LLCs' lines, are taken at it), the NPS4 quadrants' (high 90s),
# the NPS2 halves' (100 to 110), the sockets' (about 180)
LINE_NS = {"ccx": 90.0, "quad": 97.0, "half": 105.0, "socket": 180.0}


def replay_rows(path):
    """A calibration CSV's rows that ran: {(benchmark, nps, case, variant,
    boot_args, knobs, plugin): row}."""
    out = {}
    for n, row in read_rows(path, REPLAY_COLUMNS + ("status",)):
        if not row["runs"] or row["runs"] == "0":
            continue
        key = (row["benchmark"], int(number(row["nps"], "nps")), int(number(row["case"], "case")),
               row["variant"], row["boot_args"], row["knobs"], row["plugin"])
        out[key] = row
    return out


def fig(row, name):
    """A figure of a calibration row as a number, None when NA."""
    if row is None or row.get(name, "NA") in ("NA", ""):
        return None
    return number(row[name], name)


# the predictor's designs, by the wakeups per message its costs are
# scaled with: lab, the guest's own (0.014 to 0.1 in the scaled guests;
# on the lab's host, not emulated, 20 and 40 threads of the same
# hackbench woke 0.12 and 0.06 times per message: data/runs/
# 20261207-host-hackbench-wakeups); bound, one wakeup per message, an
# upper bound (a message wakes its receiver at most once), the costs per
# wakeup the lab counts taken at that rate
DESIGNS = ("lab", "bound")
WAKEUPS_PER_MESSAGE_BOUND = 1.0


def predict(cells, tips, rows, knobs, design="lab"):
    """{(cell, variant): (pred, spread) or (None, why)} and the terms of
    each prediction, from a replay's calibration rows (replay_rows).

    For hackbench, the change against tip in per cent (positive: faster)
    is the benefit of the wakeups placed on an idle CPU that tip's would
    have queued behind a busy one, less the CPU time a variant adds to a
    message, both in units of tip's CPU time per message on the hardware:

      pred = dhit - 100 * (w * dI / (IPC * GHz) + moved) / c

    moved = w * dX * LINE_NS['ccx'], or with the plugin's locality mode
    sum over the boundaries b of dL_b * LINE_NS[b]

    dhit: the variant's idle-hit rate less tip's (points, runs without
    the plugin): a wakee placed on an idle CPU instead of a busy one saves
    the busy CPU's remaining burst, on average one message's CPU time, so
    a point of idle-hit is a per cent of a message's time; w: wakeups per
    message (the variant's runs without the plugin); dI and dX: placement
    plus upkeep instructions and line transfers per wakeup, the variant's
    less tip's (the plugin's runs; 0 without them, named in the terms);
    dL_b: lines every guest access moved across boundary b per message,
    the variant's less tip's (the locality mode's loc_*_pu: the
    workload's own data and the scheduler's alike, so dX is left out
    where they exist); c: tip's CPU time per message on the hardware,
    its time times the CPUs its tasks keep busy, min(tasks, 256), over
    its messages.  With design bound, w is WAKEUPS_PER_MESSAGE_BOUND and
    each dL_b the difference of the lines per wakeup (loc_*_pu over the
    plugin runs' own wakeups per message) at that rate.
    Spread: the standard deviation of dhit over the runs."""
    pred, terms = {}, {}
    for key in sorted(cells):
        b, nps, case = key
        for v in sorted(cells[key]):
            if b != "hackbench":
                pred[key, v] = (None, "no predictor for %s yet (hackbench alone)" % b)
                continue
            boot = "sched_mmc" if v == "SIS_NODE_TOPOEXT" else ""
            run = {w: rows.get((b, nps, case, w, boot, knobs, "0")) for w in ("tip", v)}
            cost = {w: rows.get((b, nps, case, w, boot, knobs, "loc"),
                                rows.get((b, nps, case, w, boot, knobs, "1"))) for w in ("tip", v)}
            if run["tip"] is None or run[v] is None:
                pred[key, v] = (None, "%s not run in the replay (knobs '%s', boot '%s')" % (
                    v if run[v] is None else "tip", knobs, boot))
                continue
            hv, ht = fig(run[v], "idle_hit_pct"), fig(run["tip"], "idle_hit_pct")
            w = fig(run[v], "wakeups_pu")
            if hv is None or ht is None or w is None:
                pred[key, v] = (None, "no idle-hit or wakeup figures in the replay's runs")
                continue
            dhit = hv - ht
            di = dx = 0.0
            loc, dl = False, {}
            have_cost = cost["tip"] is not None and cost[v] is not None
            if have_cost:
                def pu(r):
                    return (fig(r, "place_ipw") or 0.0) + (fig(r, "upkeep_ipw") or 0.0)
                di = pu(cost[v]) - pu(cost["tip"])
                dx = (fig(cost[v], "pu_xpw") or 0.0) - (fig(cost["tip"], "pu_xpw") or 0.0)
                dl = {b_: (fig(cost[v], "loc_%s_pu" % b_), fig(cost["tip"], "loc_%s_pu" % b_))
                      for b_ in LINE_NS}
                loc = all(x is not None for pair in dl.values() for x in pair)
            tasks = TASKS_PER_CASE[b] * case
            msgs = case * HW_HACKBENCH_FDS * HW_HACKBENCH_FDS * HW_HACKBENCH_LOOPS
            c_ns = tips[key] * 1e9 * min(tasks, LOAD_GRID_CPUS) / msgs
            if design == "bound":
                w = WAKEUPS_PER_MESSAGE_BOUND
                if loc:
                    wc = [fig(cost[x], "wakeups_pu") for x in (v, "tip")]
                    if None in wc or 0.0 in wc:
                        loc = False
                    else:
                        dl = {b_: (dl[b_][0] / wc[0] * w, dl[b_][1] / wc[1] * w) for b_ in dl}
            if loc:
                moved = sum((dl[b_][0] - dl[b_][1]) * LINE_NS[b_] for b_ in LINE_NS)
            else:
                moved = w * dx * LINE_NS["ccx"]
            cost_ns = w * di / (ZEN3_IPC * ZEN3_GHZ) + moved
            p = dhit - 100.0 * cost_ns / c_ns
            sds = [fig(r, "idle_hit_pct_sd") for r in (run[v], run["tip"])]
            spread = math.sqrt(sum(x * x for x in sds if x is not None))
            pred[key, v] = (p, spread)
            terms[key, v] = (dhit, w, di, dx, c_ns, "locality" if loc else "yes" if have_cost else "no",
                             moved)
    return pred, terms


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("score", help="sign, order and rank agreement with the hardware")
    p.add_argument("--predictions", help="a predictions CSV (default: the load-only rule)")
    p.add_argument("--format", choices=("summary", "table"), default="summary")
    p.add_argument("--cells-of", metavar="FILE",
                   help="the load-only rule on the cells a predictions CSV reaches alone")
    p.add_argument("hardware")
    p = sub.add_parser("grid", help="the cases of a hardware table in tasks per CPU")
    p.add_argument("--cpus", type=int, default=LOAD_GRID_CPUS, help="the CPUs of the machine that runs them")
    p.add_argument("--ceilings", default="", help='"BENCH=FRACTION ...": the highest load point per benchmark')
    p.add_argument("hardware")
    p = sub.add_parser("replay", help="the calibration CSV of a replay (scripts/calibrate.sh)")
    p.add_argument("hardware")
    p.add_argument("dir")
    sub.add_parser("designs", help="the predictor's designs, one a line")
    p = sub.add_parser("predict", help="predictions CSV from a calibration CSV (predict)")
    p.add_argument("--knobs", default="llc_balancing=0", help="the replay column to predict from")
    p.add_argument("--terms", action="store_true", help="each prediction's terms instead")
    p.add_argument("--design", choices=DESIGNS, default="lab",
                   help="the wakeups per message the costs are scaled with (DESIGNS)")
    p.add_argument("hardware")
    p.add_argument("calibration")
    args = ap.parse_args(argv)
    if args.cmd == "designs":
        print("\n".join(DESIGNS))
        return 0
    cells = read_hardware(args.hardware)
    if args.cmd == "predict":
        pred, terms = predict(cells, tip_values(args.hardware), replay_rows(args.calibration),
                              args.knobs, args.design)
        w = csv.writer(sys.stdout, lineterminator="\n")
        if args.terms:
            w.writerow(("benchmark", "nps", "case", "variant", "dhit", "wakeups_pu", "d_insns_pw",
                        "d_xfer_pw", "tip_cpu_ns_pm", "plugin", "moved_ns_pm", "pred"))
            for (key, v), t in sorted(terms.items()):
                w.writerow(list(key) + [v, "%.2f" % t[0], "%.4g" % t[1], "%.1f" % t[2], "%.3f" % t[3],
                                        "%.0f" % t[4], t[5], "%.2f" % t[6], "%.2f" % pred[key, v][0]])
            return 0
        w.writerow(PRED_COLUMNS)
        for (key, v), (p_, s_) in sorted(pred.items()):
            if p_ is None:
                w.writerow(list(key) + [v, "", "", "unreachable: " + s_])
            else:
                w.writerow(list(key) + [v, "%.2f" % p_, "%.2f" % s_, "ok"])
        return 0
    if args.cmd == "replay":
        if not os.path.isdir(args.dir):
            fail("%s is not a replay's directory" % args.dir)
        hw = defaultdict(set)
        for key, by in cells.items():
            hw[key] |= set(by) | {"tip"}
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerows(replay(hw, args.dir))
        return 0
    if args.cmd == "grid":
        if args.cpus < 1:
            fail("--cpus must be a positive number, not %d" % args.cpus)
        for row in grid(cells, args.cpus, parse_ceilings(args.ceilings)):
            print("%s %d %.4f %s %s" % row)
        return 0
    if args.predictions:
        pred, name = read_predictions(args.predictions, cells), "predictions"
    else:
        pred, name = load_rule(cells), "load-only rule"
        if args.cells_of:
            for k, (p_, why) in read_predictions(args.cells_of, cells).items():
                if p_ is None:
                    pred[k] = (None, why)
            name = "load-only rule on the predictor's cells"
    out = summary(cells, pred, name) if args.format == "summary" else table(cells, pred)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
