#!/usr/bin/env bash
# Deep Work Plan compatibility suite (issue 19 §3): every loopdeck DWP verb
# on copies of every reference plan, LF and CRLF, with DWP's own
# update-state.py, state_contract.py and plan_contract.py as the oracle.
#
#   DWP_SKILL=/path/to/deepworkplan-skill/skills/deepworkplan \
#     bench/compat/dwp/run.sh [--verbose] [PLAN_DIR ...]
#
# Prints held/total and every cause not held; exit 1 when one is not held,
# 0 when all hold or when DWP_SKILL is unset ("skipped: ..."). LOOPDECK
# picks the binary (default target/debug/loopdeck, built when missing).
# run.py's docstring says what each case checks and lists the documented
# differences from the updater, each with its reason.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/run.py" "$@"
