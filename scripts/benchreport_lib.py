#!/usr/bin/python3
"""Reports of a scripts/bench.sh run: LKML-style tables, JSON and plots.

The engine of scripts/bench-report.sh, which is the command to run (it
reads the options and passes them on).  Debian's python3 with
python3-numpy and python3-scipy (make deps).

    benchreport_lib.py [--format norm|old|json] [--sig ci|welch] [--nps N]
        [--plot DIR] [--meta META] RESULTS.CSV

RESULTS.CSV is read by column name: bench, case, variant, round and value
are needed; job, kind and the SIS figures (FIGURES: probes_per_wakeup,
idle_hit_pct...) are read when present.  A row is a verification re-run
when its kind is "verify" or, in results without a kind column, when its
round is "v1", "v2"...  A value that is not a finite number ("NA": the run
failed) is left out.  A variant "NAME@KNOB=VALUE..." ran with sched knob
values (bench.sh's KNOBS); the base is "tip", or without it the first
"tip@..." of the results (tip at each knob's first value).
META is the benchmark registry (default: guest/bench-registry.sh's
output; bench|direction|statistic|case label|units|program).  Next to RESULTS.CSV, system.txt (written by the runner) fills
in the system details, and programs.txt (scripts/bench-programs.sh:
"COMMAND|package and version") the Programs block.  When system.txt says
the machine was emulated ("emulation: QEMU TCG"), the norm report leads
with the SIS decisions and every timing table is marked as emulated,
not performance; otherwise (--host) the timing tables lead.

pct imp is positive for an improvement: (base - new) / base for
lower-is-better benchmarks, (new - base) / base otherwise.  A difference
is significant with --sig ci (the default, as mmtests compares) when the
intervals mean +- z(0.975) stddev of the two variants do not overlap, or
with --sig welch when Welch's t-test (scipy.stats, whose t distribution
gives the p-value) gives p < 0.05; either needs two runs of each.  Cells
are marked * (significant regression) or ^ (significant improvement).
The guest picks its verification re-runs with the same ci rule in
guest/bench-stats.awk.
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from collections import namedtuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lab_results import BENCH_FIGURES, FIGURES as FIGURE_LIST, PROG, fail  # noqa: E402


try:
    import numpy as np
    from scipy import stats
except ImportError as e:
    fail("%s: the report needs Debian's python3-scipy and python3-numpy "
         "(make deps) and runs with /usr/bin/python3" % e)

BASE = "tip"
ALPHA = 0.05
# mean +- Z stddev: the 95% interval of a normal distribution (1.959964)
Z = float(stats.norm.ppf(0.975))
FORMATS = ("norm", "old", "json")
SIGS = ("ci", "welch")
REQUIRED = ("bench", "case", "variant", "round", "value")
# what guest/bench-stats.awk takes for a number, so host and guest agree
NUMBER = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")

Meta = namedtuple("Meta", "direction statistic label units program")
# benchmarks missing from META are reported as throughput
DEFAULT_META = Meta("higher", "AMean", "Case", "Normalized value", "")

# What select_idle_sibling() decided during each run, as guest/sis-stats.sh
# prints it (its KEY=VALUE lines) and guest/bench-guest.sh records it, and
# the cost plugin's figures: (column, row label, format of the mean over
# the runs), from scripts/lab_results.py
FIGURES = BENCH_FIGURES


def number(text):
    """The value of a results cell, or None for NA, empty or not a number."""
    if text is None or not NUMBER.match(text):
        return None
    return float(text)


# --- statistics -----------------------------------------------------------

def amean(x):
    return float(np.mean(x))


def stddev(x):
    """Sample standard deviation; 0 for fewer than two values."""
    return float(np.std(x, ddof=1)) if len(x) >= 2 else 0.0


def cv(x):
    """Coefficient of variation, in percent."""
    m = amean(x)
    return 100 * stddev(x) / m if m else 0.0


def hmean(x):
    """Harmonic mean; the arithmetic mean when a value is not positive."""
    return float(stats.hmean(x)) if min(x) > 0 else amean(x)


def median(x):
    return float(np.median(x))


STATISTICS = {"AMean": amean, "HMean": hmean, "Median": median}


def welch_p(a, b):
    """Two-sided p-value of Welch's t-test between samples a and b."""
    if stddev(a) == 0 and stddev(b) == 0:
        # no spread at all: the t statistic is undefined
        return 1.0 if amean(a) == amean(b) else 0.0
    t = stats.ttest_ind_from_stats(amean(a), stddev(a), len(a),
                                   amean(b), stddev(b), len(b), equal_var=False)
    return float(t.pvalue)


def significant(a, b, sig):
    """Whether samples a and b differ significantly (two runs each)."""
    if len(a) < 2 or len(b) < 2:
        return False
    if sig == "welch":
        return welch_p(a, b) < ALPHA
    return abs(amean(b) - amean(a)) > Z * (stddev(a) + stddev(b))


# --- results --------------------------------------------------------------

class Sample:
    """The results of one benchmark case for one variant."""

    def __init__(self):
        self.values = []        # measured runs
        self.verify = []        # verification re-runs
        # the SIS figures of the measured runs, by column
        self.sis = {col: [] for col, _, _ in FIGURES}
        self.probes = self.sis["probes_per_wakeup"]
        self.hits = self.sis["idle_hit_pct"]


class Bench:
    def __init__(self, name, meta):
        self.name = name
        self.meta = meta
        self.cases = []         # in the order of the results
        self.samples = {}       # (case, variant) -> Sample
        self.jobs = {}          # case -> job

    @property
    def lower(self):
        return self.meta.direction == "lower"

    def statistic(self, values):
        return STATISTICS.get(self.meta.statistic, amean)(values)

    def measured(self, case, variant):
        """The measured runs of case and variant, or None."""
        s = self.samples.get((case, variant))
        return s.values if s and s.values else None

    def pct_imp(self, old, new):
        if not old:
            return 0.0
        return 100 * ((old - new) if self.lower else (new - old)) / old


class Results:
    """A results CSV: benchmarks in META's order, then unknown ones."""

    def __init__(self, path, meta_path):
        self.path = path
        meta, meta_order = read_meta(meta_path)
        self.all_variants = []  # every variant named, in order
        self.variants = []      # variants with a result, in order
        benches = {}
        try:
            f = open(path, newline="")
        except OSError as e:
            fail("cannot read %s: %s" % (path, e.strerror))
        with f:
            reader = csv.DictReader(f)
            names = reader.fieldnames or []
            if not set(REQUIRED) <= set(names):
                missing = [c for c in REQUIRED if c not in names]
                fail("%s is not a bench results file (no column %s)" %
                     (path, " or ".join(missing)))
            has_kind = "kind" in names
            for row in reader:
                self._add(row, has_kind, benches, meta)
        known = [benches[b] for b in meta_order if b in benches]
        self.benches = known + [b for b in benches.values() if b.name not in meta]
        self.base = BASE
        if BASE not in self.all_variants:
            self.base = next((v for v in self.all_variants
                              if split_label(v)[0] == BASE), BASE)

    def _add(self, row, has_kind, benches, meta):
        v = row["variant"] or ""
        if v and v not in self.all_variants:
            self.all_variants.append(v)
        x = number(row["value"])
        if x is None:
            return
        b, c = row["bench"], row["case"]
        if b not in benches:
            benches[b] = Bench(b, meta.get(b, DEFAULT_META))
        bench = benches[b]
        if c not in bench.cases:
            bench.cases.append(c)
        if v not in self.variants:
            self.variants.append(v)
        if row.get("job"):
            bench.jobs[c] = row["job"]
        s = bench.samples.setdefault((c, v), Sample())
        if has_kind:
            verify = row["kind"] == "verify"
        else:
            verify = (row["round"] or "").startswith("v")
        if verify:
            s.verify.append(x)
            return
        s.values.append(x)
        for col, lst in s.sis.items():
            y = number(row.get(col))
            if y is not None:
                lst.append(y)

    def bench_variants(self, bench):
        """The variants with measured runs of bench, the base first."""
        have = [v for v in self.variants
                if any(bench.measured(c, v) for c in bench.cases)]
        return sorted(have, key=lambda v: v != self.base)

    def runs_per_point(self):
        n = [len(s.values) for b in self.benches for s in b.samples.values() if s.values]
        if not n:
            return "0"
        return str(min(n)) if min(n) == max(n) else "%d-%d" % (min(n), max(n))


def split_label(v):
    """The variant and the knob settings ("NAME=VALUE") of a run label."""
    parts = v.split("@")
    return parts[0], parts[1:]


def registry_text(path):
    """The benchmark registry: the file at PATH, or, without one, what
    guest/bench-registry.sh collects from the benchmarks' files."""
    if path:
        try:
            with open(path) as f:
                return f.read()
        except OSError as e:
            fail("cannot read %s: %s" % (path, e.strerror))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          os.pardir, "guest", "bench-registry.sh")
    run = subprocess.run(["sh", script], capture_output=True, text=True)
    if run.returncode:
        fail("the benchmark registry: %s" % run.stderr.strip())
    return run.stdout


def read_meta(path):
    meta, order = {}, []
    for line in registry_text(path).splitlines():
        if not line or line.startswith("#"):
            continue
        m = (line.split("|") + [""] * 6)[:6]
        if m[0] not in meta:
            order.append(m[0])
        meta[m[0]] = Meta(*m[1:])
    return meta, order


class Report:
    def __init__(self, results, sig, nps, system=None, programs=None):
        self.r = results
        self.sig = sig
        self.nps = nps
        self.system = system            # system.txt, None without it
        self.programs = programs        # programs.txt, None without it
        self.emulation = (system or {}).get("emulation", "")
        # emulated timings are plumbing, the SIS decisions the findings
        self.emulated = self.emulation not in ("", "none")

    def timings_heading(self):
        return "Timings under %s emulation: plumbing only, not performance" % self.emulation

    def marker(self, bench, case, v):
        """'*' for a significant regression against the base, '^' for a
        significant improvement, ' ' otherwise."""
        b = self.r.base
        base, new = bench.measured(case, b), bench.measured(case, v)
        if v == b or not base or not new or not significant(base, new, self.sig):
            return " "
        p = bench.pct_imp(bench.statistic(base), bench.statistic(new))
        return "*" if p < 0 else "^" if p > 0 else " "


# --- LKML tables ----------------------------------------------------------

def table(first_width, columns, rows, head=None):
    """The lines of an LKML table: the first column first_width wide (its
    header head, its cells indented by one space), then one column per
    entry of columns, right-aligned, at least 24 wide.  rows holds
    (first cell, [(cell, mark)...], suffix): each cell is followed by its
    one-character mark, the row by its suffix."""
    widths = [max(len(c) + 3, 24) for c in columns]
    lines = []
    if head is not None:
        lines.append(head.ljust(first_width) +
                     "".join(c.rjust(w - 1) + " " for c, w in zip(columns, widths)))
    for first, cells, suffix in rows:
        lines.append(" " + first.ljust(first_width - 1) +
                     "".join(t.rjust(w - 1) + m for (t, m), w in zip(cells, widths)) +
                     suffix)
    return [line.rstrip(" ") for line in lines]


def fmtv(x):
    return "%.4f" % x if -1 < x < 1 else "%.2f" % x


def lkml_table(rep, bench, fmt):
    """The results table of bench in format norm ("stat [pct imp](CV)"
    normalized to the base) or old ("value (pct)"), with the
    [Verification Run] rows; None when the base has no results."""
    vl = rep.r.bench_variants(bench)
    if not vl or vl[0] != rep.r.base:
        return None
    casew = max([len(bench.meta.label) + 1] + [len(c) + 1 for c in bench.cases])
    zero = "-0.00" if bench.lower else "0.00"
    if fmt == "norm":
        width, head = casew + 1, bench.meta.label + ":"
        columns = [v + "[pct imp](CV)" for v in vl]
        label = "%s"
    else:
        width, head = casew + 2, "Test:"
        columns = list(vl)
        label = "%s:"

    def cell(v, value, base, spread):
        if fmt == "old":
            return "%s (%.2f pct)" % (fmtv(value), 0 if v == rep.r.base else bench.pct_imp(base, value))
        p = zero if v == rep.r.base else "%.2f" % bench.pct_imp(base, value)
        return "%.2f [%6s](%5s)" % (value / base if base else 0, p, spread)

    rows = []
    for c in bench.cases:
        base = bench.measured(c, rep.r.base)
        if not base:
            continue
        bs = bench.statistic(base)
        cells, marks = [], []
        for v in vl:
            x = bench.measured(c, v)
            if not x:
                cells.append(("-", " "))
                continue
            marks.append(rep.marker(bench, c, v))
            spread = "%5.2f" % cv(x)
            cells.append((cell(v, bench.statistic(x), bs, spread),
                          marks[-1] if fmt == "norm" else " "))
        suffix = ""
        if fmt == "old" and ("*" in marks or "^" in marks):
            suffix = "   " + ("*" if "*" in marks else "^")
        rows.append((label % c, cells, suffix))
        # the verification means, against the base's verification mean
        if not any(s.verify for (cc, _), s in bench.samples.items() if cc == c):
            continue
        vm = {}
        for v in vl:
            s = bench.samples.get((c, v))
            if s and s.verify:
                vm[v] = amean(s.verify)
        bm = vm.get(rep.r.base, 0)
        cells = [(cell(v, vm[v], bm, "-") if v in vm and bm else "-", " ") for v in vl]
        rows.append((label % c, cells, "   [Verification Run]"))
    lines = table(width, columns, rows, head)
    if fmt == "norm" and not rep.emulated:
        lines += sis_rows(bench, vl, width, columns)
    return lines


def sis_rows(bench, vl, width, columns):
    """The SIS efficiency measured during the same runs, under the table."""
    def mean(x):
        return amean(x) if x else 0

    samples = [bench.samples.get((c, v)) for c in bench.cases for v in vl]
    if not any(s and s.probes for s in samples):
        return []
    rows = []
    for c in bench.cases:
        cells = []
        for v in vl:
            s = bench.samples.get((c, v))
            if s and s.probes:
                cells.append(("%.2f / %5.1f%%" % (amean(s.probes), mean(s.hits)), " "))
            else:
                cells.append(("-", " "))
        rows.append((c, cells, ""))
    return ["", "SIS efficiency (probes per wakeup / idle-hit rate):"] + \
        table(width, columns, rows)


# --- formats --------------------------------------------------------------

def sis_decisions(rep, bench):
    """The SIS figures of bench: per case, one row per figure the results
    hold, one column per variant (the mean over its measured runs); None
    when no run of bench has one."""
    vl = rep.r.bench_variants(bench)
    have = [(col, label, fmt) for col, label, fmt in FIGURES
            if any(s.sis[col] for s in bench.samples.values())]
    if not have:
        return None
    width = max([len(bench.meta.label) + 2] + [len(c) + 2 for c in bench.cases] +
                [len(label) + 4 for _, label, _ in have])
    rows = []
    for c in bench.cases:
        rows.append((c, [("", " ")] * len(vl), ""))
        for col, label, fmt in have:
            cells = []
            for v in vl:
                s = bench.samples.get((c, v))
                x = s.sis[col] if s and s.values else None
                cells.append((fmt % amean(x) if x else "-", " "))
            rows.append(("  " + label, cells, ""))
    return ["=" * 66,
            "SIS decisions : %s" % bench.name,
            "=" * 66] + table(width, vl, rows, bench.meta.label + ":")


SIS_LEGEND = [
    "  What select_idle_sibling() decided during the measured runs (scripts/",
    "  sis-stats.sh; the mean over the runs): probes per wakeup, CPUs the idle",
    "  scans probed; idle-hit rate, wakeups placed on an idle CPU; missed idle,",
    "  wakeups left on a busy CPU while an allowed CPU of the LLC or node was",
    "  idle (the audit); then what each SIS feature did.",
]
COST_LEGEND = [
    "  With the sis-cost TCG plugin (as make score): guest instructions of",
    "  wakeup placement, of the masks' upkeep and of all of kernel/sched per",
    "  wakeup, and the cache-line transfers of placement and upkeep per",
    "  wakeup (scripts/score_report.py defines them).",
]
# the cost plugin's figures: those of guest/figures.txt without a key
COST_COLS = tuple(f.bench for f in FIGURE_LIST if f.key is None and f.bench)


def sis_section(rep):
    """The SIS decisions of every benchmark, under their legend."""
    out = ["o SIS Decisions", ""] + SIS_LEGEND + [""]
    if any(s.sis[col] for b in rep.r.benches for s in b.samples.values() for col in COST_COLS):
        out[-1:-1] = COST_LEGEND
    blocks = [sis_decisions(rep, b) for b in rep.r.benches]
    blocks = [x for x in blocks if x is not None]
    if not blocks:
        return out + ["  (no select_idle_sibling() statistics in these results: a kernel",
                      "  without the series' statistics patch)", ""]
    for x in blocks:
        out += x + [""]
    return out


def system_details(path):
    """The "KEY: value" lines of system.txt next to the results."""
    sys_path = os.path.join(os.path.dirname(path), "system.txt")
    details = {}
    try:
        with open(sys_path) as f:
            for line in f:
                key, sep, value = line.rstrip("\n").partition(": ")
                if sep and key not in details:
                    details[key] = value
    except OSError:
        return None
    return details


def program_versions(path):
    """programs.txt next to the results: command -> where it came from."""
    try:
        with open(os.path.join(os.path.dirname(path), "programs.txt")) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    return dict(line.split("|", 1) for line in lines if "|" in line)


def program_of(rep, bench):
    """(source, command, description, version) of bench's program, from
    META's program field ("deb|lab COMMAND DESCRIPTION") and programs.txt;
    None when META names none."""
    words = bench.meta.program.split(" ", 2)
    if len(words) < 2:
        return None
    desc = words[2] if len(words) > 2 else words[1]
    return (words[0], words[1], desc, (rep.programs or {}).get(words[1]))


def programs_block(rep):
    """Which program, and which version of it, ran each benchmark."""
    out = ["", "o Programs", ""]
    width = max(len(b.name) for b in rep.r.benches) + 1 if rep.r.benches else 0
    for b in rep.r.benches:
        p = program_of(rep, b)
        if p is None:
            what = "not named in the benchmark registry"
        else:
            what = "%s (%s)" % (p[2], p[3] or "version not recorded")
        out.append("  %s %s" % ((b.name + ":").ljust(width), what))
    return out


def kernel_line(rep, v):
    """What a run label ran: its kernel, its features and its knobs."""
    system = rep.system or {}
    name, knobs = split_label(v)
    if name == BASE:
        what = "%s, every SIS feature of the series off" % (
            system.get("kernel") or "the patched kernel")
    elif "kernel of " + name in system:
        # a variant that booted a kernel of its own (make bench's base)
        what = "%s, a boot of its own" % system["kernel of " + name]
    else:
        what = "tip with %s on (sched_feat, same boot)" % name.replace("+", " + ")
    if knobs:
        what += "; " + ", ".join(knobs)
    width = max([22] + [len(x) + 1 for x in rep.r.all_variants])
    return "  %s %s" % ((v + ":").ljust(width), what)


def norm_report(rep):
    system = rep.system
    out = ["o System Details", ""]
    nps = " (NPS%s)" % rep.nps if rep.nps else ""
    if system is not None:
        d = system.get
        out.append("  - %s, %s CPUs, %s LLCs, %s NUMA nodes%s" %
                   (d("cpu", ""), d("cpus", ""), d("llcs", ""), d("nodes", ""), nps))
        out.append("  - %s" % d("machine", ""))
        if rep.emulated:
            out.append("  - timings emulated (%s): plumbing only, not performance;"
                       " the SIS decisions lead" % rep.emulation)
        elif "emulation" in system:
            out.append("  - timings measured on the machine itself (no emulation)")
        for key in [k for k in system if k.startswith("sched_cache")]:
            line = "  - cache-aware scheduling%s: %s" % (key[len("sched_cache"):], system[key])
            if key == "sched_cache" and system.get("knobs"):
                line += "; KNOBS %s: each variant with each value" % system["knobs"]
            out.append(line)
    else:
        out.append("  - (no system.txt next to %s)" % rep.r.path)
    if rep.programs is not None:
        out += programs_block(rep)
    out += ["", "o Kernels", ""]
    for v in rep.r.all_variants:
        out.append(kernel_line(rep, v))
    test = ("mean +- 1.96 stddev intervals do not overlap" if rep.sig == "ci"
            else "Welch's t-test, p < 0.05")
    out.append("")
    if rep.emulated:
        out += sis_section(rep) + ["o " + rep.timings_heading()]
    else:
        out.append("o Benchmark Results")
    out += ["",
            "  * - significant regression, ^ - significant improvement (%s)" % test,
            "  runs per data point: %s" % rep.r.runs_per_point(), ""]
    for b in rep.r.benches:
        lines = lkml_table(rep, b, "norm")
        if lines is not None:
            m = b.meta
            out += ["=" * 66,
                    "Test          : %s" % b.name,
                    "Units         : %s" % m.units,
                    "Interpretation: %s is better" % ("Lower" if b.lower else "Higher"),
                    "Statistic     : %s" % m.statistic]
            if rep.emulated:
                out.append("Timings       : emulated (%s), plumbing only, not performance" %
                           rep.emulation)
            out += ["=" * 66] + lines
        out.append("")
    # on the machine itself the timings lead; the SIS figures beyond the
    # efficiency rows under each table follow them
    extra = [col for col, _, _ in FIGURES if col not in ("probes_per_wakeup", "idle_hit_pct")]
    if not rep.emulated and any(s.sis[col] for b in rep.r.benches
                                for s in b.samples.values() for col in extra):
        out += sis_section(rep)
    return out


def old_report(rep):
    out = []
    if rep.emulated:
        out += [rep.timings_heading(), ""]
    for b in rep.r.benches:
        lines = lkml_table(rep, b, "old")
        if lines is None:
            continue
        if rep.emulated:
            out += ["~~~~~~ %s (emulated timings, not performance) ~~~~~~" % b.name, ""]
        else:
            out += ["~~~~~~ %s ~~~~~~" % b.name, ""]
        if rep.nps:
            out += ["NPS%s" % rep.nps, ""]
        out += lines + [""]
    return out


def rounded(fmt, x):
    """x rounded as printf's fmt would print it, as a JSON number."""
    return float(fmt % x)


def json_report(rep):
    doc = []
    for b in rep.r.benches:
        results = []
        base = rep.r.base
        for c in b.cases:
            bx = b.measured(c, base)
            bs = b.statistic(bx) if bx else 0
            for v in rep.r.bench_variants(b):
                x = b.measured(c, v)
                if not x:
                    continue
                s = b.samples[(c, v)]
                value = b.statistic(x)
                results.append({
                    "case": c, "variant": v, "runs": len(x),
                    "knobs": dict(k.split("=", 1) for k in split_label(v)[1]),
                    "value": rounded("%.6g", value),
                    "amean": rounded("%.6g", amean(x)),
                    "stddev": rounded("%.6g", stddev(x)),
                    "cv": rounded("%.4g", cv(x)),
                    "pct_imp": rounded("%.4f", b.pct_imp(bs, value)) if bs else None,
                    "marker": rep.marker(b, c, v),
                    "probes_per_wakeup": rounded("%.4g", amean(s.probes)) if s.probes else None,
                    "idle_hit_pct": rounded("%.4g", amean(s.hits)) if s.hits else None,
                    "sis": {col: rounded("%.4g", amean(y)) for col, y in s.sis.items() if y},
                })
        p = program_of(rep, b)
        doc.append({"bench": b.name, "units": b.meta.units,
                    "direction": b.meta.direction, "statistic": b.meta.statistic,
                    "base": base,
                    "program": dict(zip(("source", "command", "description", "version"), p))
                    if p else None,
                    "emulation": rep.emulation or None,
                    "timings": ("emulated, plumbing only, not performance" if rep.emulated
                                else "measured" if rep.emulation else None),
                    "results": results})
    return [json.dumps(doc, indent=2, allow_nan=False)]


# --- plots ----------------------------------------------------------------

def plot(rep, bench, outdir):
    """gnuplot data and script for one benchmark: per case, the statistic
    of each variant normalized to the base and its CV as error bar."""
    vl = rep.r.bench_variants(bench)
    rows = []
    for c in bench.cases:
        base = bench.measured(c, rep.r.base)
        if not base:
            continue
        bs = bench.statistic(base)
        line = c
        for v in vl:
            x = bench.measured(c, v)
            if x:
                n = bench.statistic(x) / bs if bs else 0
                line += " %.4f %.4f" % (n, n * cv(x) / 100)
            else:
                line += " - -"
        rows.append(line)
    if not rows:
        return
    dat = os.path.join(outdir, bench.name + ".dat")
    gp = os.path.join(outdir, bench.name + ".gp")
    png = os.path.join(outdir, bench.name + ".png")
    with open(dat, "w") as f:
        # the header is what columnhead() names the bars by
        f.write("\n".join(["case" + "".join(" %s err" % v for v in vl)] + rows) + "\n")
    nps = " (NPS%s)" % rep.nps if rep.nps else ""
    cmd = "plot '%s' using 2:3:xtic(1) title columnhead(2)" % dat
    for i in range(2, len(vl) + 1):
        cmd += ", '' using %d:%d title columnhead(%d)" % (2 * i, 2 * i + 1, 2 * i)
    with open(gp, "w") as f:
        f.write("\n".join([
            "set terminal pngcairo size 960,540 noenhanced font ',10'",
            "set output '%s'" % png,
            "set title '%s%s: normalized to %s, %s is better, error bars: CV%s'" %
            (bench.name, nps, rep.r.base, bench.meta.direction or "higher",
             " (emulated: not performance)" if rep.emulated else ""),
            "set ylabel '%s'" % (bench.meta.units or "Normalized value"),
            "set datafile missing '-'",
            "set style data histograms",
            "set style histogram errorbars gap 1 lw 1",
            "set style fill solid 0.7 border -1",
            "set key outside right top",
            "set yrange [0:*]",
            "set grid ytics",
            cmd]) + "\n")
    p = subprocess.run(["gnuplot", gp], stderr=subprocess.PIPE, text=True)
    if p.returncode:
        fail("gnuplot failed for %s: %s" % (bench.name, (p.stderr.strip().splitlines() or [""])[0]))


def plots(rep, outdir):
    if not shutil.which("gnuplot"):
        fail("gnuplot is not installed (apt-get install gnuplot-nox)")
    os.makedirs(outdir, exist_ok=True)
    for b in rep.r.benches:
        plot(rep, b, outdir)


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", default="norm")
    ap.add_argument("--sig", default="ci")
    ap.add_argument("--nps", default="")
    ap.add_argument("--plot", default="")
    ap.add_argument("--meta")
    ap.add_argument("results")
    a = ap.parse_args(argv)
    if a.format not in FORMATS:
        fail("unknown format '%s' (norm, old or json)" % a.format)
    if a.sig not in SIGS:
        fail("unknown significance test '%s' (ci or welch)" % a.sig)
    results = Results(a.results, a.meta)
    system = system_details(a.results)
    nps = a.nps or (system or {}).get("nps", "")
    rep = Report(results, a.sig, nps, system, program_versions(a.results))
    if a.format == "norm":
        lines = norm_report(rep)
    elif a.format == "old":
        lines = old_report(rep)
    else:
        lines = json_report(rep)
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()
    if a.plot:
        plots(rep, a.plot)


if __name__ == "__main__":
    main()
