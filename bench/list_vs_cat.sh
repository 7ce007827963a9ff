#!/usr/bin/env bash
# Benchmark: `loopdeck list --json` over a generated workspace of 1,000
# projects (500 PRD-master, 500 GSD), against `cat` of the same state files,
# measured in the same run. PRODUCT.md's bar: the ratio is at most 2.
#
#   bench/list_vs_cat.sh [PROJECTS] [RUNS]
#
# Prints the median wall time of each command and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
projects=${1:-1000}
runs=${2:-15}
cargo build --release --quiet
bin=target/release/loopdeck
ws=$(mktemp -d)
trap "rm -rf \"$ws\"" EXIT; [ -n "${KEEP_WS:-}" ] && trap - EXIT && echo "workspace kept: $ws"

prd=examples/workspace/prd-master/fba-smart-restock
gsd=examples/workspace/gsd/paused-waiting
half=$((projects / 2))
for i in $(seq 1 "$half"); do
  d="$ws/prd/p$i"; mkdir -p "$d"
  cp "$prd/scene-anchor.md" "$prd/conversation.md" "$d/"
  sed -e "s/fba-smart-restock/restock-$i/" \
      -e "s/\"last_updated_at_utc\": \"2026-06-01T11:30:00Z\"/\"last_updated_at_utc\": \"2026-05-$(printf %02d $((i % 28 + 1)))T11:30:00Z\"/" \
      "$prd/state.json" > "$d/state.json"
done
for i in $(seq 1 "$((projects - half))"); do
  d="$ws/gsd/repo$i"; mkdir -p "$d/.planning" "$d/src"
  sed -e "s/^last_updated: .*/last_updated: \"2026-05-$(printf %02d $((i % 28 + 1)))T09:56:00.000Z\"/" \
      "$gsd/.planning/STATE.md" > "$d/.planning/STATE.md"
  cp "$gsd/.planning/WAITING.json" "$d/.planning/"
  echo 'fn main() {}' > "$d/src/main.rs"
done
mapfile -t files < <(find "$ws" \( -name state.json -o -name STATE.md \) -type f | sort)
bytes=$(cat "${files[@]}" | wc -c)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_ns() { local s e; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); echo $((e - s)); }

listed=$("$bin" list "$ws" --json | grep -c '"format"')
[ "$listed" -eq "$projects" ] || { echo "listed $listed of $projects projects" >&2; exit 1; }

# Warm the page cache for both, then alternate the two so drift hits both.
cat "${files[@]}" > /dev/null; "$bin" list "$ws" --json > /dev/null
: > "$ws/cat.t"; : > "$ws/list.t"
for _ in $(seq 1 "$runs"); do
  time_ns cat "${files[@]}" >> "$ws/cat.t"
  time_ns "$bin" list "$ws" --json >> "$ws/list.t"
done
cat_ns=$(median < "$ws/cat.t")
list_ns=$(median < "$ws/list.t")
printf 'projects        %d (%d state files, %d bytes)\n' "$projects" "${#files[@]}" "$bytes"
printf 'cat             %.2f ms (median of %d)\n' "$(echo "$cat_ns / 1000000" | bc -l)" "$runs"
printf 'loopdeck list   %.2f ms (median of %d)\n' "$(echo "$list_ns / 1000000" | bc -l)" "$runs"
printf 'ratio           %.2f (bar: at most 2)\n' "$(echo "$list_ns / $cat_ns" | bc -l)"
