#!/usr/bin/python3
"""The SIS scoreboard's report: tables, noise, frontier plots, cover letter.

    score_report.py [--format report|cover|markdown] [--plot DIR] [--conf FILE]
        [--variants NAMES] SCORE.CSV

SCORE.CSV is what scripts/score.sh writes, read by column name: nps,
variant, load (the benchmark), load_point (a fraction of the CPU count),
round, boot, the figures probes_per_wakeup, idle_hit_pct, missed_llc_pct,
missed_node_pct, left_llc_pct and llcs_full_pct (optional: n/a when
absent), the cost figures place_ipw, upkeep_ipw, sched_ipw, sched_ipu and
pu_xpw (optional: shown only when some run has them), and status ("ok", or "failed: why").
FILE is the run configuration (default: score.conf next to SCORE.CSV),
whose nps, features, variants, benches and machine lines say what the
run was asked for; a row naming another NPS mode, a feature outside the
series or another benchmark is an error.  notes.txt next to SCORE.CSV,
when there, lists skipped variants and guests that stopped early.

--format report (default): per NPS mode, one table (variant x benchmark
and load point, each figure as mean +- sample standard deviation over the
runs) and the noise of each figure: run to run (between the rounds of one
boot) and boot to boot (between the boots' means).  --format cover: the
compact plain-text table for the cover letter (per variant, the lowest
and highest mean over the load points), marked as emulated; with
--variants NAMES (as the table names them: tip NODE NODE+NODE_LIMIT)
only their rows and skipped-variant sentences, and exit status 3, with
those sentences alone, when none but tip has a row (make mail's tables).  --format
markdown: the results document's scoreboard, per NPS mode and benchmark
a Markdown table of node missed-idle, probes, placement plus upkeep
instructions and transfers per wakeup (the last two when the run counted
them) at each load point.  --plot DIR
also writes DIR/frontier-npsN.png (gnuplot): placement plus upkeep
instructions per wakeup (probes per wakeup in results without the cost
columns) against node missed-idle, one line per variant through its load points, one
panel per benchmark.  Needs only Python's standard library (and gnuplot
for --plot).
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import textwrap
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_results import FIGURES, PROG, SCORE_FIGURES, fail  # noqa: E402

EMULATED = "emulated (QEMU TCG)"
BASE = "tip"
# The guest reads the SIS counters one after the other while wakeups go
# on, so a rate computed from two of them can pass 100% by the wakeups
# counted in flight: measured 100.1% (1285 hits of 1284 wakeups).
PCT_SLACK = 1.0
# (column, report heading, cover heading, decimals), from
# scripts/lab_results.py
METRICS = SCORE_FIGURES
# the cost plugin's figures, which show only where some run has them
COST = tuple(f.score for f in FIGURES if f.key is None and f.score)
# the figures of the first scoreboard; results files from before a later
# figure's time lack it (n/a then)
REQUIRED = ("probes_per_wakeup", "idle_hit_pct", "missed_llc_pct", "missed_node_pct",
            "left_llc_pct")
OPTIONAL = tuple(m[0] for m in METRICS if m[0] not in REQUIRED)
COLUMNS = ("nps", "variant", "load", "load_point", "round", "boot", "status") + \
    tuple(m[0] for m in METRICS if m[0] not in OPTIONAL)
DEFINITIONS = (
    "probes/wakeup: CPUs select_idle_sibling() examined per wakeup; "
    "idle-hit: wakeups placed on an idle CPU; missed LLC, missed node: "
    "wakeups placed on a busy CPU while an idle CPU the task could use "
    "existed in that CPU's LLC, node (the statistics patch's audit); "
    "left LLC: wakeups placed in an LLC that is neither the wakee's "
    "previous CPU's nor the waking CPU's (llc_away per wakeup: the cache "
    "cost SIS_NODE adds, none without it); LLCs full: wakeups for which "
    "neither of those two LLCs in the chosen CPU's node had an idle CPU "
    "while that node had one (the audit), each of which either misses an "
    "idle CPU or leaves both LLCs.  "
    "Rates are per cent of wakeups (missed, LLCs full: of audited "
    "wakeups).")
COST_DEFINITIONS = (
    "Cost, counted by the sis-cost TCG plugin in guest instructions, not "
    "time: place: instructions of wakeup placement (select_task_rq_fair(), "
    "select_idle_*(), the SIS_NODE walk; not the slow path of fork and "
    "exec) per wakeup (select_task_rq_fair() calls less those of fork and "
    "exec); upkeep: those of the series' out-of-line "
    "idle-mask functions (sis_core_*()), not what is inlined into the run "
    "queue and idle paths; sched: all of kernel/sched per wakeup, and per "
    "unit of the job's work (hackbench message, schbench request, netperf "
    "transaction); transfers: loads and stores of placement and upkeep code "
    "to a cache line that other vCPUs held and this one did not, per "
    "wakeup (a model of one private cache of unlimited size per vCPU, a "
    "store taking the line from all others).")
NOISE = (
    "Noise, per NPS mode: run to run is the sd of a figure between the "
    "rounds of one boot, per cell (variant, benchmark, load point); boot to "
    "boot is the sd of the boots' means of a cell, which holds run to run "
    "divided by the square root of the runs per boot, and more than that "
    "is a boot effect.  Each is given as its median and largest over the "
    "cells, with the cell of the largest.")


def read_keys(path):
    """A file of KEY=VALUE lines (score.conf, plan.txt) as a dict."""
    conf = {}
    with open(path) as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                conf[key] = value
    return conf


def read_conf(path):
    if not os.path.isfile(path):
        fail("no run configuration %s (score.sh writes it next to score.csv; "
             "--conf names another)" % path)
    conf = read_keys(path)
    for key in ("nps", "features", "variants", "benches"):
        if key not in conf:
            fail("%s has no %s= line" % (path, key))
    return conf


def number(text):
    """A figure: a float, or None for NA."""
    if text == "NA":
        return None
    try:
        return float(text)
    except (TypeError, ValueError):
        return False


class Score:
    """The rows of a score.csv, checked against the run configuration."""

    def __init__(self, path, conf):
        self.conf = conf
        self.path = path
        npss = conf["nps"].split()
        features = conf["features"].split()
        benches = conf["benches"].split()
        self.ok = []
        self.failed = []
        if os.path.getsize(path) == 0:
            fail("%s is empty: no scoreboard results" % path)
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                fail("%s is not a scoreboard results file (no column %s)" % (path, missing[0]))
            for row in reader:
                self._add(row, reader.line_num, npss, features, benches)
        if not self.ok and not self.failed:
            fail("%s is empty: a header and no scoreboard results" % path)
        order = {v: i for i, v in enumerate(conf["variants"].split())}
        seen = {}
        for r in self.ok + self.failed:
            seen.setdefault(r["variant"], len(order) + len(seen))
        order.update({v: i for v, i in seen.items() if v not in order})
        self.variants = sorted(seen, key=lambda v: order[v])
        self.npss = [n for n in npss if any(r["nps"] == n for r in self.ok + self.failed)]
        self.benches = [b for b in benches if any(r["load"] == b for r in self.ok + self.failed)]
        self.loads = sorted({r["load_point"] for r in self.ok + self.failed}, key=Fraction)
        self.boots = sorted({r["boot"] for r in self.ok + self.failed}, key=int)

    def _add(self, row, line, npss, features, benches):
        where = "%s line %d" % (self.path, line)
        if row["nps"] not in npss:
            fail("%s: unknown NPS '%s' (the run booted NPS %s)" % (where, row["nps"], " ".join(npss)))
        # a run label is VARIANT or VARIANT@KNOB=VALUE... (make score KNOBS)
        variant = row["variant"].split("@")[0]
        if variant != BASE:
            for f in variant.split("+"):
                if f not in features:
                    fail("%s: unknown feature '%s' in variant '%s' (the series has: %s)" %
                         (where, f, row["variant"], " ".join(features)))
        if row["load"] not in benches:
            fail("%s: unknown benchmark '%s' (the run had: %s)" % (where, row["load"], " ".join(benches)))
        try:
            Fraction(row["load_point"])
            int(row["round"])
            int(row["boot"])
        except (ValueError, ZeroDivisionError):
            fail("%s: load_point, round and boot must be a fraction and numbers, not '%s', '%s', '%s'" %
                 (where, row["load_point"], row["round"], row["boot"]))
        if row["status"] != "ok":
            self.failed.append(row)
            return
        for m in METRICS:
            if row.get(m[0]) is None and m[0] in OPTIONAL:
                row[m[0]] = "NA"
            x = number(row[m[0]])
            if x is False or (x is not None and (x < 0 or m[0].endswith("_pct") and x > 100 + PCT_SLACK)):
                fail("%s: %s '%s' is not a %s" % (where, m[0], row[m[0]],
                     "percentage" if m[0].endswith("_pct") else "count"))
            row[m[0]] = x
        # placement plus upkeep per wakeup, the frontier's and the results
        # tables' cost: None unless the run counted both
        p, u = row["place_ipw"], row["upkeep_ipw"]
        row["pu"] = None if p is None or u is None else p + u
        self.ok.append(row)

    def values(self, metric, **key):
        """The figures of the ok rows matching every key=value."""
        return [r[metric] for r in self.ok
                if r[metric] is not None and all(r[k] == v for k, v in key.items())]

    def metrics(self):
        """METRICS without the cost columns when no run has them."""
        return [m for m in METRICS if m[0] not in COST or
                any(r[m[0]] is not None for r in self.ok)]

    def runs(self, **key):
        return (sum(all(r[k] == v for k, v in key.items()) for r in self.ok),
                sum(all(r[k] == v for k, v in key.items()) for r in self.ok + self.failed))


def mean_sd(x, decimals):
    if not x:
        return "n/a"
    if len(x) == 1:
        return "%.*f ± -" % (decimals, x[0])
    return "%.*f ± %.*f" % (decimals, statistics.mean(x), decimals, statistics.stdev(x))


def table(rows):
    """Rows of cells as left-aligned columns two spaces apart."""
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(map(len, rows)))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def fill(text, indent=""):
    return textwrap.fill(text, width=72, break_on_hyphens=False,
                         initial_indent=indent, subsequent_indent=indent + "  ").split("\n")


def spread(cells, decimals):
    """(median, max, where) of the sds of cells ({where: [values]}) that
    have two values or more, or None; where is the first cell whose sd
    shows as the max does."""
    sds = [(statistics.stdev(x), w) for w, x in cells.items() if len(x) >= 2]
    if not sds:
        return None
    top = max(s[0] for s in sds)
    where = next(w for sd, w in sds if "%.*f" % (decimals, sd) == "%.*f" % (decimals, top))
    return statistics.median(s[0] for s in sds), top, where


def noise(score, nps, metric, decimals):
    """Run to run: the sd over the rounds of one boot, per cell (variant,
    benchmark, load point, boot); boot to boot: the sd of the boots' means,
    per cell (variant, benchmark, load point)."""
    run, boot = {}, {}
    for v in score.variants:
        for b in score.benches:
            for lp in score.loads:
                where = "%s %s %s" % (v, b, lp)
                means = []
                for bt in score.boots:
                    x = score.values(metric, nps=nps, variant=v, load=b, load_point=lp, boot=bt)
                    if x:
                        run[where + (" boot %s" % bt if len(score.boots) > 1 else "")] = x
                        means.append(statistics.mean(x))
                boot[where] = means
    return spread(run, decimals), spread(boot, decimals)


def noise_cell(s, decimals, why):
    if s is None:
        return ["not measured: " + why]
    return ["%.*f" % (decimals, s[0]), "%.*f" % (decimals, s[1]), s[2]]


def header(score):
    c = score.conf
    lines = ["SIS scoreboard, %s: %s" % (EMULATED, c.get("machine", "machine not recorded"))]
    lines += fill(
        "kernel %s%s; size %s: load points %s times the CPU count, %s s per timed run, "
        "%s hackbench messages; %s rounds, %s boot(s) per NPS mode; benchmarks: %s" % (
            c.get("kernel", "?"), " (booted with %s)" % c["boot_args"] if c.get("boot_args") else "",
            c.get("size", "?"), ", ".join(score.loads), c.get("runtime", "?"),
            c.get("messages", "?"), c.get("rounds", "?"), c.get("boots", "?"),
            ", ".join(score.benches)))
    if c.get("ceilings"):
        lines += fill("highest load point of a benchmark (CEILINGS, above which the "
                      "emulated guest livelocks or crawls): %s" %
                      ", ".join(x.replace("=", " ") for x in c["ceilings"].split()))
    return lines


def notes(path):
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return list(dict.fromkeys(line.rstrip("\n") for line in f if line.strip()))


def failures(score):
    out = []
    if score.failed:
        out.append("%d of %d runs failed and are left out of the figures:" %
                   (len(score.failed), len(score.failed) + len(score.ok)))
        for r in score.failed:
            out.append("  NPS%s boot %s round %s %s %s %s: %s" % (
                r["nps"], r["boot"], r["round"], r["variant"], r["load"], r["load_point"], r["status"]))
    return out


def report(score, note_lines):
    out = header(score) + [""] + fill(DEFINITIONS) + [""]
    if any(m[0] in COST for m in score.metrics()):
        out += fill(COST_DEFINITIONS) + [""]
    out += fill(NOISE) + [""]
    if note_lines:
        out += ["Notes:"] + [line for n in note_lines for line in fill(n, "  ")] + [""]
    if score.failed:
        out += failures(score) + [""]
    nboots = len(score.boots)
    for nps in score.npss:
        out.append("NPS%s: mean ± sd (sample standard deviation) over n runs (ok/all)" % nps)
        rows = [["variant / load", "n"] + [m[1] for m in score.metrics()]]
        for v in score.variants:
            if not score.runs(nps=nps, variant=v)[1]:
                continue
            rows.append([v])
            for b in score.benches:
                for lp in score.loads:
                    ok, n = score.runs(nps=nps, variant=v, load=b, load_point=lp)
                    if not n:
                        continue
                    rows.append(["  %s %s" % (b, lp), "%d/%d" % (ok, n)] + [
                        mean_sd(score.values(m[0], nps=nps, variant=v, load=b, load_point=lp), m[3])
                        for m in score.metrics()])
        out += table(rows) + [""]
        out.append("Noise in NPS%s:" % nps)
        rows = [["figure", "run to run", "", "", "boot to boot"],
                ["", "median", "max", "at", "median", "max", "at"]]
        why_boot = "one boot per NPS mode (BOOTS=2 measures it)" if nboots < 2 else \
            "no cell ran in two boots"
        for m in score.metrics():
            run, boot = noise(score, nps, m[0], m[3])
            run = noise_cell(run, m[3], "fewer than two runs per cell")
            rows.append([m[1]] + run + [""] * (3 - len(run)) + noise_cell(boot, m[3], why_boot))
        out += table(rows) + [""]
    return "\n".join(out).rstrip("\n") + "\n"


def short(variant):
    return "+".join(f[4:] if f.startswith("SIS_") else f for f in variant.split("+"))


def compact(y, rate, decimals=1):
    """A cover letter figure: probes with one decimal, rates with one
    below 10% and none above, the cost figures with their own."""
    if decimals != 1:
        return "%.*f" % (decimals, y)
    return "%.0f" % y if rate and y >= 10 else "%.1f" % y


def lo_hi(x, rate, decimals=1):
    if not x:
        return "n/a"
    lo, hi = compact(min(x), rate, decimals), compact(max(x), rate, decimals)
    return lo if lo == hi else lo + "-" + hi


def cover(score, note_lines, keep=None):
    """The cover letter's table; with keep (variants as short() names
    them), only their rows and skipped-variant sentences."""
    if keep is not None:
        note_lines = [n for n in note_lines if not n.startswith("skipped variant ") or
                      short(n[16:].split(":", 1)[0]) in keep]
        if not any(score.runs(nps=nps, variant=v)[0] for nps in score.npss
                   for v in score.variants if short(v) in keep and v != BASE):
            return "\n".join(skipped(note_lines)) + "\n", 3
    c = score.conf
    out = fill(
        "SIS scoreboard, %s, not hardware: %s, kernel %s%s.  Load sweep: %s at %s times "
        "the CPU count%s, %s rounds, %s boot(s) per NPS mode.  Each cell is the "
        "lowest-highest mean over the benchmarks and load points." % (
            EMULATED, c.get("machine", "?"), c.get("kernel", "?"),
            ", booted with %s" % c["boot_args"] if c.get("boot_args") else "",
            ", ".join(score.benches), ", ".join(score.loads),
            " (%s at most, as emulation allows)" % ", ".join(
                x.replace("=", " ") for x in c["ceilings"].split()) if c.get("ceilings") else "",
            c.get("rounds", "?"), c.get("boots", "?")))
    out += fill(DEFINITIONS.replace("probes/wakeup:", "probes:").replace(
        "missed LLC, missed node:", "miss LLC, miss node:") +
        "  Variants name features without SIS_.") + [""]
    if any(m[0] in COST for m in score.metrics()):
        out += fill(COST_DEFINITIONS) + [""]
    for nps in score.npss:
        rows = [["NPS%s" % nps] + [m[2] for m in score.metrics()]]
        for v in score.variants:
            if not score.runs(nps=nps, variant=v)[0] or (keep is not None and short(v) not in keep):
                continue
            row = [short(v)]
            for m in score.metrics():
                means = []
                for b in score.benches:
                    for lp in score.loads:
                        x = score.values(m[0], nps=nps, variant=v, load=b, load_point=lp)
                        if x:
                            means.append(statistics.mean(x))
                row.append(lo_hi(means, m[0].endswith("_pct"), m[3] if m[0] in COST else 1))
            rows.append(row)
        out += table(rows)
        runs, boots = [], []
        for m in score.metrics():
            run, boot = noise(score, nps, m[0], m[3])
            runs.append("%s %s" % (m[2], "n/a" if run is None else "%.*f" % (m[3], run[0])))
            boots.append("%s %s" % (m[2], "n/a" if boot is None else "%.*f" % (m[3], boot[0])))
        out += fill("Noise, median sd over the cells: run to run %s; boot to boot %s." % (
            ", ".join(runs), "not measured (one boot)" if len(score.boots) < 2 else
            ", ".join(boots))) + [""]
    if score.failed:
        out.append("%d of %d runs failed and are left out." %
                   (len(score.failed), len(score.failed) + len(score.ok)))
    out += skipped(note_lines)
    text = "\n".join(out).rstrip("\n") + "\n"
    return text if keep is None else (text, 0)


def skipped(note_lines):
    """The skipped variants of notes.txt, a sentence each."""
    out = []
    for n in note_lines:
        if n.startswith("skipped variant"):
            out += fill(n[0].upper() + n[1:] + ".")
    return out


# the results document's scoreboard: (figure, heading, legend, decimals);
# "pu" is Score's place_ipw + upkeep_ipw of each run; a cell of one run
# shows its value alone
RESULTS = (
    ("missed_node_pct", "miss node %", "node missed-idle (%)", 1),
    ("probes_per_wakeup", "probes", "probes per wakeup", 2),
    ("pu", "insns", "placement plus upkeep instructions per wakeup", 0),
    ("pu_xpw", "transfers", "line transfers per wakeup", 1),
)


def markdown(score, note_lines):
    """Per NPS mode and benchmark, one Markdown table: a row per variant,
    for each figure of RESULTS a column per load point, mean +- sd."""
    c = score.conf
    out = fill("SIS scoreboard, %s: %s, kernel %s%s; %s rounds, %s boot(s) per NPS mode; "
               "mean ± sd over the runs of a cell." % (
                   EMULATED, c.get("machine", "?"), c.get("kernel", "?"),
                   ", booted with %s" % c["boot_args"] if c.get("boot_args") else "",
                   c.get("rounds", "?"), c.get("boots", "?"))) + [""]
    shown = [m for m in RESULTS if any(r[m[0]] is not None for r in score.ok)]
    out += fill("Columns: %s, each at the load points given; variants name "
                "features without SIS_." % "; ".join("%s: %s" % (m[1], m[2]) for m in shown)) + [""]
    for nps in score.npss:
        for b in score.benches:
            loads = [lp for lp in score.loads if score.runs(nps=nps, load=b, load_point=lp)[1]]
            if not loads:
                continue
            out.append("NPS%s, %s at %s times the CPU count:" % (nps, b, ", ".join(loads)))
            out.append("")
            out.append("| variant | " + " | ".join(
                "%s %s" % (m[1], lp) if i == 0 else lp
                for m in shown for i, lp in enumerate(loads)) + " |")
            out.append("|---" * (1 + len(shown) * len(loads)) + "|")
            for v in score.variants:
                if not score.runs(nps=nps, variant=v, load=b)[1]:
                    continue
                cells = []
                for m in shown:
                    for lp in loads:
                        x = score.values(m[0], nps=nps, variant=v, load=b, load_point=lp)
                        cells.append("n/a" if not x else "%.*f" % (m[3], x[0]) if len(x) == 1
                                     else mean_sd(x, m[3]))
                out.append("| %s | %s |" % (short(v), " | ".join(cells)))
            out.append("")
    if score.failed:
        out += fill("%d of %d runs failed and are left out: %s." % (
            len(score.failed), len(score.failed) + len(score.ok),
            "; ".join("NPS%s %s %s %s round %s: %s" % (
                r["nps"], r["variant"], r["load"], r["load_point"], r["round"], r["status"])
                for r in score.failed)))
    out += skipped(note_lines)
    return "\n".join(out).rstrip("\n") + "\n"


def plot(score, outdir):
    """frontier-npsN.png: per benchmark, probes per wakeup against node
    missed-idle, one line per variant through its load points."""
    if not shutil.which("gnuplot"):
        fail("gnuplot is not installed (apt-get install gnuplot-nox)")
    os.makedirs(outdir, exist_ok=True)
    nv = len(score.variants)
    # instructions per wakeup where the runs have them, else probes
    cost = any(m[0] == "place_ipw" for m in score.metrics())
    xname = "placement + upkeep instructions per wakeup" if cost else "probes per wakeup"
    for nps in score.npss:
        base = os.path.join(outdir, "frontier-nps%s" % nps)
        blocks = []
        for b in score.benches:
            for v in score.variants:
                lines = ["# %s %s: %s, missed node %%, point size, load point" % (b, v, xname)]
                for i, lp in enumerate(score.loads):
                    key = dict(nps=nps, variant=v, load=b, load_point=lp)
                    x = score.values("pu" if cost else "probes_per_wakeup", **key)
                    y = score.values("missed_node_pct", **key)
                    if x and y:
                        lines.append("%.4f %.4f %.2f %s" % (
                            statistics.mean(x), statistics.mean(y),
                            0.6 + 1.4 * i / max(len(score.loads) - 1, 1), lp))
                if len(lines) == 1:
                    lines.append("- - - -")
                blocks.append("\n".join(lines))
        with open(base + ".dat", "w") as f:
            f.write("\n\n\n".join(blocks) + "\n")
        names = " ".join(score.variants)
        cols = 2 if len(score.benches) > 1 else 1
        nrows = (len(score.benches) + cols - 1) // cols
        gp = [
            "set terminal pngcairo size %d,%d noenhanced font ',9'" % (560 * cols, 420 * nrows),
            "set output '%s.png'" % base,
            "set datafile missing '-'",
            "set multiplot layout %d,%d title 'SIS frontier, NPS%s, %s: %s "
            "against node missed-idle, lower left is better; point size grows with the load "
            "(%s times the CPU count)'" % (nrows, cols, nps, EMULATED, xname, ", ".join(score.loads)),
            "set offsets 0, graph 0.05, graph 0.05, 0",
            "set xlabel '%s'" % xname,
            "set ylabel 'node missed-idle %'",
            "set xrange [0:*]",
            "set yrange [0:*]",
            "set grid",
            "set key top right",
            "names = '%s'" % names,
        ]
        for i, b in enumerate(score.benches):
            gp += ["set title '%s'" % b,
                   "plot for [v=1:%d] '%s.dat' index %d+v-1 using 1:2:3 with linespoints "
                   "pt 7 ps variable title word(names, v)" % (nv, base, i * nv)]
        gp.append("unset multiplot")
        with open(base + ".gp", "w") as f:
            f.write("\n".join(gp) + "\n")
        p = subprocess.run(["gnuplot", base + ".gp"], stderr=subprocess.PIPE, text=True)
        if p.returncode:
            fail("gnuplot failed for NPS%s: %s" % (nps, (p.stderr.strip().splitlines() or [""])[-1]))


class Parser(argparse.ArgumentParser):
    def error(self, message):
        fail("%s (see --help)" % message)


def main():
    ap = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", choices=("report", "cover", "markdown"), default="report")
    ap.add_argument("--plot", metavar="DIR")
    ap.add_argument("--conf", metavar="FILE")
    ap.add_argument("--variants", metavar="NAMES",
                    help="--format cover: only the rows of these variants, named without SIS_ "
                    "(tip NODE NODE+NODE_LIMIT); exit 3, with their skipped-variant sentences "
                    "alone, when none but tip has a row")
    ap.add_argument("csv", metavar="SCORE.CSV")
    ap.epilog = __doc__.split("\n\n", 1)[1]
    ap.formatter_class = argparse.RawDescriptionHelpFormatter
    a = ap.parse_args()
    if not os.path.isfile(a.csv):
        fail("cannot read %s" % a.csv)
    here = os.path.dirname(os.path.abspath(a.csv))
    score = Score(a.csv, read_conf(a.conf or os.path.join(here, "score.conf")))
    note_lines = notes(os.path.join(here, "notes.txt"))
    if a.plot:
        plot(score, a.plot)
    if a.variants is not None:
        if a.format != "cover":
            fail("--variants goes with --format cover")
        text, st = cover(score, note_lines, set(a.variants.split()))
        sys.stdout.write(text)
        sys.exit(st)
    sys.stdout.write({"report": report, "cover": cover, "markdown": markdown}[a.format](score, note_lines))


if __name__ == "__main__":
    main()
