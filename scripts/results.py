#!/usr/bin/env python3
"""make results: Documentation/results.md made from the runs committed
under data/, so that every figure it shows comes from rows in git.

    results.py [--check] [--out FILE] [--top DIR]

A data set is a directory under data/runs/ or data/calibrate/ with a
README.md (what was run, how, and why; its first line the title) or a
plan.txt (a calibration replay: data/calibrate/README.md says what its
files are).  For each, newest first: its README, then for each score run
below it (a directory with score.csv and score.conf) a line of its
configuration and the scoreboard's tables (scripts/score_report.py
--format markdown, the same code as make score's results.md), and a
replay's agreement.txt (scripts/ground_truth.py score).  Nothing is
typed by hand: a figure that is not in a committed run is not in
results.md.

--check writes nothing and exits 1, with one line per difference, when
the committed Documentation/results.md differs from what this makes, or
when a file of the repository's text (README.md, Documentation/,
patches/, scripts/, data/**/README.md) names a path under data/ that git
does not track; 0 otherwise.  --out FILE writes there instead of
Documentation/results.md; --top DIR reads the repository at DIR instead
of this script's."""

import argparse
import os
import re
import subprocess
import sys

from lab_results import PROG, fail
from score_report import read_keys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
OUT = "Documentation/results.md"
# where data sets live, relative to the repository
HOMES = ("data/calibrate", "data/runs")
# the plan and configuration lines each score run's heading shows
CONF_KEYS = ("variants", "knobs", "jobs", "nps", "rounds", "boots")


TRACKED = None


def tracked():
    """The files under data/ git tracks, and their directories."""
    global TRACKED
    if TRACKED is None:
        r = subprocess.run(["git", "-C", TOP, "ls-files", "data"], capture_output=True, text=True)
        if r.returncode:
            fail("git ls-files: %s" % r.stderr.strip())
        files = set(r.stdout.split())
        dirs = set()
        for f in files:
            while "/" in f:
                f = f.rsplit("/", 1)[0]
                dirs.add(f)
        TRACKED = files | dirs
    return TRACKED


def is_tracked(rel):
    return os.path.normpath(rel) in tracked()


def data_sets():
    """The data sets, newest first: directories under HOMES with a
    committed README.md or plan.txt."""
    sets = []
    for home in HOMES:
        d = os.path.join(TOP, home)
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            p = os.path.join(d, name)
            if os.path.isdir(p) and (is_tracked(os.path.join(home, name, "README.md"))
                                     or is_tracked(os.path.join(home, name, "plan.txt"))):
                sets.append((name, home + "/" + name))
    # newest first: the names start with the date
    return [rel for _, rel in sorted(sets, reverse=True)]


def score_runs(rel):
    """The score runs below data set REL whose rows are committed."""
    runs = []
    for root, dirs, files in os.walk(os.path.join(TOP, rel)):
        dirs[:] = sorted(x for x in dirs if x not in ("parts", "interrupted"))
        run = os.path.relpath(root, TOP)
        if is_tracked(os.path.join(run, "score.csv")) and is_tracked(os.path.join(run, "score.conf")):
            runs.append(run)
    return sorted(runs)


def run_heading(run):
    plan = os.path.join(TOP, run, "plan.txt")
    keys = read_keys(os.path.join(TOP, run, "score.conf"))
    p = read_keys(plan) if os.path.isfile(plan) else {}
    parts = ["%s %s" % (k, keys[k]) for k in CONF_KEYS if keys.get(k)]
    cost = p.get("cost", "")
    parts.append("cost plugin %s" % {"0": "off", "": "off"}.get(cost, "on" if cost == "1" else cost))
    if p.get("kernel"):
        parts.append("kernel %s" % p["kernel"][:12])
    return "; ".join(parts)


def tables(run):
    r = subprocess.run([sys.executable, os.path.join(HERE, "score_report.py"),
                        "--format", "markdown", os.path.join(TOP, run, "score.csv")],
                       capture_output=True, text=True)
    if r.returncode not in (0, 3):
        fail("score_report.py on %s: %s" % (run, (r.stderr.strip().splitlines() or ["failed"])[-1]))
    return r.stdout.rstrip("\n")


def readme(rel):
    path = os.path.join(TOP, rel, "README.md")
    if not os.path.isfile(path):
        # a replay: data/calibrate/README.md says what its files are
        return ("The ground-truth replay %s" % os.path.basename(rel),
                "`make calibrate` (`scripts/calibrate.sh`), the parts its `plan.txt`\n"
                "names; its files as `data/calibrate/README.md` describes them.")
    with open(path) as f:
        text = f.read().rstrip("\n")
    first, _, rest = text.partition("\n")
    return first.lstrip("# ").strip(), rest.strip("\n")


def make():
    out = ["# Results",
           "",
           "Made by `make results` (`scripts/results.py`) from the runs committed",
           "under `data/`; edit those, not this file.  Each section is a data set:",
           "what was run and how (its README), then the tables of each of its",
           "`make score` runs, made from its `score.csv` by",
           "`scripts/score_report.py --format markdown` (mean ± sd over the runs of",
           "a cell).  Under emulation the figures describe decisions and",
           "mechanisms, not speed (`Documentation/tcg.md`); what the ground-truth",
           "replay says about speed on hardware is in its `agreement.txt`",
           "(`Documentation/ground-truth.md`).  Figures of earlier runs that were",
           "not committed are not here; git history keeps the old notebook.",
           ""]
    for rel in data_sets():
        title, body = readme(rel)
        out += ["## %s" % title, "", "Data: `%s`." % rel, ""]
        if body:
            out += [body, ""]
        agreement = os.path.join(TOP, rel, "agreement.txt")
        if is_tracked(os.path.join(rel, "agreement.txt")):
            with open(agreement) as f:
                summary = f.read().split("\n\n")[0].rstrip("\n")
            out += ["The predictors and the load-only rule against the hardware",
                    "(the summary of `agreement.txt`, whose tables give every cell):",
                    "", "```", summary, "```", ""]
        for run in score_runs(rel):
            out += ["### `%s`" % os.path.relpath(run, rel), "",
                    run_heading(run) + ".", "", tables(run), ""]
    return "\n".join(out).rstrip("\n") + "\n"


# a path under data/ as the text names it: up to a blank, a quote or a
# closing bracket; a trailing full stop or comma is the sentence's
DATA_PATH = re.compile(r"(?<![\w/.-])data/[\w./<>*-]+")


def named_paths():
    texts = ["README.md"]
    for d in ("Documentation", "patches", "scripts"):
        for root, _, files in os.walk(os.path.join(TOP, d)):
            texts += [os.path.relpath(os.path.join(root, f), TOP) for f in files
                      if not f.endswith((".pyc",))]
    for root, _, files in os.walk(os.path.join(TOP, "data")):
        texts += [os.path.relpath(os.path.join(root, f), TOP) for f in files if f == "README.md"]
    for t in sorted(texts):
        if not os.path.isfile(os.path.join(TOP, t)):
            continue
        with open(os.path.join(TOP, t), errors="replace") as f:
            for n, line in enumerate(f, 1):
                for m in DATA_PATH.finditer(line):
                    yield t, n, m.group(0).rstrip(".,:;)")


def check():
    bad = []
    path = os.path.join(TOP, OUT)
    want = make()
    try:
        with open(path) as f:
            have = f.read()
    except OSError:
        have = None
    if have != want:
        bad.append("%s differs from what make results makes (run make results)" % OUT)
    known = tracked()
    for t, n, p in named_paths():
        # a pattern (<date>, *, DIR), not one path
        if re.search(r"[<>*]|/[A-Z]+(/|$)", p) or p.rstrip("/") in known:
            continue
        bad.append("%s:%d names %s, which git does not track" % (t, n, p))
    for b in bad:
        print("%s: %s" % (PROG, b))
    return 1 if bad else 0


def main():
    global TOP
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 usage="%(prog)s [--check] [--out FILE] [--top DIR]")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--top")
    a = ap.parse_args()
    if a.top:
        if not os.path.isdir(os.path.join(a.top, ".git")):
            fail("%s is not a git repository" % a.top)
        TOP = os.path.abspath(a.top)
    if a.check:
        sys.exit(check())
    out = a.out or os.path.join(TOP, OUT)
    text = make()
    with open(out, "w") as f:
        f.write(text)
    print("results: %s (%d data sets)" % (os.path.relpath(out), len(data_sets())))


if __name__ == "__main__":
    main()
