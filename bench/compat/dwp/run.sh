#!/usr/bin/env bash
# Deep Work Plan compatibility suite (issue 19 §3): every loopdeck DWP verb
# on copies of every reference plan, LF and CRLF, with DWP's own
# update-state.py, state_contract.py and plan_contract.py as the oracle.
#
#   DWP_SKILL=/path/to/deepworkplan-skill/skills/deepworkplan \
#     bench/compat/dwp/run.sh [--verbose] [PLAN_DIR ...]
#
# Prints held/total and every cause not held, then (coverage.py) how many of
# the verifier's failing lines `loopdeck check` reports; exit 1 when a case
# is not held or a line is not reported, 0 when all hold or when DWP_SKILL
# is unset ("skipped: ..."). LOOPDECK
# picks the binary (default target/debug/loopdeck, built when missing).
# run.py's docstring says what each case checks and lists the documented
# differences from the updater, each with its reason.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rc=0
python3 "$here/run.py" "$@" || rc=1
plans=()
for a in "$@"; do [ "${a#--}" = "$a" ] && plans+=("$a"); done
python3 "$here/coverage.py" "${plans[@]}" || rc=1
exit $rc
