"""What the lab's two reports share, scripts/benchreport_lib.py (make
bench) and scripts/score_report.py (make score): the error line, and one
definition of each SIS figure a run records, as both results files name
it and both reports show it.  A module, not a command."""

import os
import sys
from collections import namedtuple

PROG = os.environ.get("BENCH_REPORT_PROG") or os.path.basename(sys.argv[0])


def fail(msg):
    """One error line, in the lab's die() form, and exit 1."""
    print("%s: error: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(1)


# A figure, as a line of guest/figures.txt: its key in guest/sis-stats.sh's
# KEY=VALUE lines (None: the cost plugin's, scripts/sis_cost.py attach),
# its column in make bench's results.csv with the bench report's row label
# and format, its column in make score's score.csv with the scoreboard's
# heading, cover-letter heading and decimals; None where a results file
# does not record it.
Figure = namedtuple("Figure", "key bench label fmt score head cover decimals")


def read_figures(path=None):
    path = path or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "guest", "figures.txt")
    figures = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                cells = line.split("|")
                if len(cells) != 8:
                    fail("%s line %d: %d fields, not 8" % (path, n, len(cells)))
                cells = [c or None for c in cells]
                if cells[7] is not None:
                    cells[7] = int(cells[7])
                figures.append(Figure(*cells))
    except OSError as e:
        fail("cannot read %s: %s" % (path, e.strerror))
    return tuple(figures)


FIGURES = read_figures()
# make bench's: (column, row label, format of the mean over the runs)
BENCH_FIGURES = tuple((f.bench, f.label, f.fmt) for f in FIGURES if f.bench)
# make score's: (column, report heading, cover heading, decimals)
SCORE_FIGURES = tuple((f.score, f.head, f.cover, f.decimals) for f in FIGURES if f.score)
