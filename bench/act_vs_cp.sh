#!/usr/bin/env bash
# Benchmark: one whole decision written by loopdeck's store against a plain
# `cp` of the same file, measured in the same run (issue 8's bar: within 5x).
#
#   bench/act_vs_cp.sh [RUNS]
#
# The decision is `loopdeck undo --last` on a PRD-master state.json: a seeded
# audit record makes the first undo put the file back, the next one undo that
# undo, and so on, each one a full transaction (its own lock taken and
# released, the file read and compared again inside it, the previous bytes
# kept in the audit blobs with fsync, a temp file written, fsynced and
# renamed over, the directory fsynced, the audit line appended). Both
# commands are processes started the same way, alternating; prints the
# median wall time of each and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
cargo build --release --quiet
bin=$PWD/target/release/loopdeck
ws=$(mktemp -d -p "${BENCH_DIR:-$PWD/target}")
trap 'rm -rf "$ws"' EXIT
export XDG_STATE_HOME=$ws/state XDG_CONFIG_HOME=$ws/config
audit=$XDG_STATE_HOME/loopdeck
p=$ws/project
mkdir -p "$p" "$audit/blobs/00000000T000000.000000Z-000000"
cp examples/workspace/prd-master/fba-smart-restock/state.json "$p/state.json"
blob=$audit/blobs/00000000T000000.000000Z-000000/0
cp "$p/state.json" "$blob"
sed -i 's/"last_updated_at_utc": "[^"]*"/"last_updated_at_utc": "2026-06-02T00:00:00Z"/' "$p/state.json"
stamp() { printf '{"sha256":"%s","len":%s}' "$(sha256sum "$1" | cut -d' ' -f1)" "$(stat -c %s "$1")"; }
printf '{"id":"00000000T000000.000000Z-000000","at":"2026-06-01T00:00:00+00:00","by":"bench","host":"bench","project":"%s","primary":"state.json","lock":"owner","decision":{"verb":"bench"},"files":[{"file":"state.json","op":"replace","before":%s,"after":%s,"blob":"blobs/00000000T000000.000000Z-000000/0"}]}\n' \
  "$p" "$(stamp "$blob")" "$(stamp "$p/state.json")" > "$audit/audit.ndjson"

now() { date +%s%N; }
act=() cp_=()
for _ in $(seq 1 "$runs"); do
  t=$(now); "$bin" undo --last >/dev/null; act+=($(( $(now) - t )))
  t=$(now); cp "$p/state.json" "$ws/copy.json"; cp_+=($(( $(now) - t )))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ma=$(median "${act[@]}"); mc=$(median "${cp_[@]}")
lines=$(wc -l < "$audit/audit.ndjson")
echo "file: $(stat -c %s "$p/state.json") bytes; $runs decisions (audit log: $lines lines)"
awk -v a="$ma" -v c="$mc" 'BEGIN { printf "decision %.2f ms, cp %.2f ms, ratio %.2f\n", a/1e6, c/1e6, a/c }'
