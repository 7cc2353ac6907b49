#!/bin/bash
# make score: the SIS scoreboard, scripts/bench.sh's score mode (the same
# driver as make bench and the same guest engine); see --help.
set -eu
LAB_RUN_MODE=score
. "$(dirname "$0")/bench.sh"
