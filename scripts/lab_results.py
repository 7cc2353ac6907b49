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


# A figure: its key in guest/sis-stats.sh's KEY=VALUE lines (None: the
# cost plugin's, scripts/sis_cost.py attach), its column in make bench's
# results.csv with the bench report's row label and format, its column in
# make score's score.csv with the scoreboard's heading, cover-letter
# heading and decimals; None where a results file does not record it.
Figure = namedtuple("Figure", "key bench label fmt score head cover decimals")
FIGURES = (
    Figure("wakeups", "wakeups", "wakeups per run", "%.0f", None, None, None, None),
    Figure("probes_per_wakeup", "probes_per_wakeup", "probes per wakeup", "%.2f",
           "probes_per_wakeup", "probes/wakeup", "probes", 2),
    Figure("idle_hit_pct", "idle_hit_pct", "idle-hit rate", "%.1f%%",
           "idle_hit_pct", "idle-hit %", "idle-hit", 1),
    Figure("llc_missed_pct", "missed_idle_llc_pct", "missed idle, LLC", "%.1f%%",
           "missed_llc_pct", "missed LLC %", "miss LLC", 1),
    Figure("node_missed_pct", "missed_idle_node_pct", "missed idle, node", "%.1f%%",
           "missed_node_pct", "missed node %", "miss node", 1),
    Figure("left_llc_pct", None, None, None, "left_llc_pct", "left LLC %", "left LLC", 1),
    Figure("llcs_full_pct", None, None, None, "llcs_full_pct", "LLCs full %", "LLCs full", 1),
    Figure("short_taken_pct", "short_taken_pct", "SIS_SHORT shortcut taken", "%.1f%%",
           None, None, None, None),
    Figure("core_busy", "core_busy", "SIS_CORE busy candidates", "%.0f", None, None, None, None),
    Figure("node_scans", "node_scans", "SIS_NODE scans", "%.0f", None, None, None, None),
    Figure("node_probes_per_scan", "node_probes_per_scan", "SIS_NODE probes per scan", "%.2f",
           None, None, None, None),
    Figure("node_hit_pct", "node_hit_pct", "SIS_NODE hit rate", "%.1f%%", None, None, None, None),
    # the sis-cost plugin's, in guest instructions and modelled cache-line
    # transfers
    Figure(None, "place_ipw", "placement instructions per wakeup", "%.0f",
           "place_ipw", "place insns/wakeup", "place", 0),
    Figure(None, "upkeep_ipw", "mask upkeep instructions per wakeup", "%.0f",
           "upkeep_ipw", "upkeep insns/wakeup", "upkeep", 0),
    Figure(None, "sched_ipw", "kernel/sched instructions per wakeup", "%.0f",
           "sched_ipw", "sched insns/wakeup", "sched", 0),
    Figure(None, None, None, None, "sched_ipu", "sched insns/unit", "sched/unit", 0),
    Figure(None, "pu_xpw", "line transfers per wakeup", "%.2f",
           "pu_xpw", "transfers/wakeup", "transfers", 2),
)
# make bench's: (column, row label, format of the mean over the runs)
BENCH_FIGURES = tuple((f.bench, f.label, f.fmt) for f in FIGURES if f.bench)
# make score's: (column, report heading, cover heading, decimals)
SCORE_FIGURES = tuple((f.score, f.head, f.cover, f.decimals) for f in FIGURES if f.score)
