#!/usr/bin/env bash
# Benchmark: one decision (`loopdeck act`) end to end, and 50 concurrent
# decisions on one file, each against a plain `cp` of the same file measured
# in the same run (issue 8's bar: one decision within 5x `cp`).
#
#   bench/act_vs_cp.sh [RUNS]
#
# The decision is GSD's `add-decision` on a copy of the example workspace's
# STATE.md (lock, read, splice, temp file, fsync, rename, directory fsync,
# audit log) and PRD-master's `answer` on a copy of its state.json. `cp`
# copies the same file (no fsync: what a naive writer does). Both are one
# process each, started the same way; medians of RUNS alternating runs.
# BENCH_DIR=/dev/shm measures on tmpfs (no fsync cost) instead of target/.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
cargo build --release --quiet
bin=$PWD/target/release/loopdeck
work=$(mktemp -d -p "${BENCH_DIR:-$PWD/target}")
trap 'rm -rf "$work"' EXIT
export XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config
gsd_src=examples/workspace/gsd/paused-waiting
prd_src=examples/workspace/prd-master/fba-smart-restock

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

gsd=$work/gsd; mkdir -p "$gsd"; cp -r "$gsd_src/.planning" "$gsd/"
rm -f "$gsd/.planning/WAITING.json"
prd_ids=$("$bin" show "$prd_src" --json | python3 -c 'import json,sys; print(" ".join(q["id"] for q in json.load(sys.stdin)["frontier"]["questions"]))')
first_q=${prd_ids%% *}

: > "$work/act.txt"; : > "$work/cp.txt"; : > "$work/prd.txt"; : > "$work/cpj.txt"
for i in $(seq 1 "$runs"); do
  t0=$(now_ns); cp "$gsd/.planning/STATE.md" "$work/copy.md"; t1=$(now_ns)
  echo $((t1 - t0)) >> "$work/cp.txt"
  t0=$(now_ns); "$bin" act "$gsd" add-decision "bench decision $i" --phase 1 --by bench >/dev/null; t1=$(now_ns)
  echo $((t1 - t0)) >> "$work/act.txt"
  prd=$work/prd$i; cp -r "$prd_src" "$prd"
  t0=$(now_ns); cp "$prd/state.json" "$work/copy.json"; t1=$(now_ns)
  echo $((t1 - t0)) >> "$work/cpj.txt"
  t0=$(now_ns); "$bin" act "$prd" answer "$first_q" "bench answer" --by bench >/dev/null; t1=$(now_ns)
  echo $((t1 - t0)) >> "$work/prd.txt"
done
cp_ms=$(median < "$work/cp.txt"); act_ms=$(median < "$work/act.txt")
cpj_ms=$(median < "$work/cpj.txt"); prd_ms=$(median < "$work/prd.txt")
awk -v c="$cp_ms" -v a="$act_ms" -v cj="$cpj_ms" -v p="$prd_ms" 'BEGIN {
  printf "one decision (medians): gsd add-decision %.2f ms vs cp STATE.md %.2f ms = %.2fx | prd answer %.2f ms vs cp state.json %.2f ms = %.2fx\n",
    a/1e6, c/1e6, a/c, p/1e6, cj/1e6, p/cj }'

# 50 concurrent decisions on one file, against 50 concurrent cp of it.
gsd50=$work/gsd50; mkdir -p "$gsd50"; cp -r "$gsd_src/.planning" "$gsd50/"
rm -f "$gsd50/.planning/WAITING.json"
t0=$(now_ns)
for i in $(seq 1 50); do cp "$gsd50/.planning/STATE.md" "$work/c$i.md" & done; wait
t1=$(now_ns)
cp50=$((t1 - t0))
t0=$(now_ns)
pids=()
for i in $(seq 1 50); do "$bin" act "$gsd50" add-decision "concurrent $i" --phase 1 --by bench >/dev/null 2>"$work/err$i" & pids+=($!); done
fails=0; for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
t1=$(now_ns)
act50=$((t1 - t0))
landed=$(grep -c "concurrent [0-9]*" "$gsd50/.planning/STATE.md" || true)
awk -v c="$cp50" -v a="$act50" -v l="$landed" -v f="$fails" 'BEGIN {
  printf "50 concurrent: cp %.1f ms | act %.1f ms (%.2fx) | landed %d of 50, %d failed\n", c/1e6, a/1e6, a/c, l, f }'
