#!/usr/bin/env bash
# Benchmark: `loopdeck list --json` over a generated workspace of 1,000
# projects, a quarter of each format (PRD-master, GSD, Deep Work Plan,
# devloop), against `cat` of the files it reads, measured in the same run.
# PRODUCT.md's bar: the ratio is at most 2.
#
#   bench/list_vs_cat.sh [PROJECTS] [RUNS]
#
# The files `cat` reads are the regular files `loopdeck list` opens (found
# with strace, once); without strace, each format's state files. Prints the
# median wall time of each command and their ratio. BASELINE=/path/to/an/older/loopdeck
# times that binary too, in the same alternating loop, for a before/after.
set -euo pipefail
cd "$(dirname "$0")/.."
projects=${1:-1000}
runs=${2:-15}
cargo build --release --quiet
bin=target/release/loopdeck
ws=$(mktemp -d)
trap "rm -rf \"$ws\"" EXIT; [ -n "${KEEP_WS:-}" ] && trap - EXIT && echo "workspace kept: $ws"

ex=examples/workspace
prd=$ex/prd-master/fba-smart-restock
gsd=$ex/gsd/paused-waiting
plan=$ex/dwp/shop-api/.dwp/plans/PLAN_checkout_refactor
dev=$ex/devloop/data/companies/acme/projects/p-restock
quarter=$((projects / 4))
day() { printf %02d $(($1 % 28 + 1)); }
for i in $(seq 1 "$quarter"); do
  d="$ws/prd/p$i"; mkdir -p "$d"
  cp "$prd/scene-anchor.md" "$prd/conversation.md" "$d/"
  sed -e "s/fba-smart-restock/restock-$i/" \
      -e "s/\"last_updated_at_utc\": \"2026-06-01T11:30:00Z\"/\"last_updated_at_utc\": \"2026-05-$(day "$i")T11:30:00Z\"/" \
      "$prd/state.json" > "$d/state.json"
done
for i in $(seq 1 "$quarter"); do
  d="$ws/gsd/repo$i"; mkdir -p "$d/.planning" "$d/src"
  sed -e "s/^last_updated: .*/last_updated: \"2026-05-$(day "$i")T09:56:00.000Z\"/" \
      "$gsd/.planning/STATE.md" > "$d/.planning/STATE.md"
  cp "$gsd/.planning/WAITING.json" "$d/.planning/"
  echo 'fn main() {}' > "$d/src/main.rs"
done
for i in $(seq 1 "$quarter"); do
  d="$ws/dwp/repo$i/.dwp/plans/PLAN_plan$i"; mkdir -p "$d" "$ws/dwp/repo$i/src"
  cp -r "$plan/." "$d/"
  sed -i -e "s/\"updated_at\": \"2026-[0-9-]*T/\"updated_at\": \"2026-05-$(day "$i")T/" "$d/state.json"
  echo 'fn main() {}' > "$ws/dwp/repo$i/src/main.rs"
done
for i in $(seq 1 "$((projects - 3 * quarter))"); do
  d="$ws/devloop/data/companies/acme/projects/p$i"; mkdir -p "$d"
  cp -r "$dev/." "$d/"
  sed -i -e "s/\"updated_at\": \"2026-[0-9-]*T/\"updated_at\": \"2026-05-$(day "$i")T/" "$d/project.json"
done

listed=$("$bin" list "$ws" --json | grep -c '"format"')
[ "$listed" -eq "$projects" ] || { echo "listed $listed of $projects projects" >&2; exit 1; }

# Each format's state files alone (what the previous version of this
# benchmark, with two formats, gave cat): a second, stricter reference.
mapfile -t state < <(find "$ws" \( -name state.json -o -name STATE.md -o -name WAITING.json \
  -o -name manifest.json -o -name README.md -o -name project.json -o -name units.json \
  -o -name '*.ndjson' -o -name '*.html' \) -type f | sort)
if command -v strace > /dev/null; then
  strace -f -qq -e trace=openat -o "$ws/trace" "$bin" list "$ws" --json > /dev/null
  mapfile -t files < <(grep -v ' = -1 ' "$ws/trace" | grep -o "\"$ws/[^\"]*\"" | tr -d '"' \
    | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
  rm "$ws/trace"
  what="files list opens"
else
  files=("${state[@]}")
  what="state files"
fi
bytes=$(cat "${files[@]}" | wc -c)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_ns() { local s e; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); echo $((e - s)); }

# Warm the page cache for both, then alternate the two so drift hits both.
base=${BASELINE:-}
cat "${files[@]}" > /dev/null; "$bin" list "$ws" --json > /dev/null
: > "$ws/cat.t"; : > "$ws/list.t"; : > "$ws/base.t"; : > "$ws/state.t"
# The baseline and this binary swap places every run, so neither always
# runs second (after the other warmed what they share).
for i in $(seq 1 "$runs"); do
  time_ns cat "${files[@]}" >> "$ws/cat.t"
  time_ns cat "${state[@]}" >> "$ws/state.t"
  if [ -n "$base" ] && [ $((i % 2)) -eq 0 ]; then
    time_ns "$base" list "$ws" --json >> "$ws/base.t"
    time_ns "$bin" list "$ws" --json >> "$ws/list.t"
  else
    time_ns "$bin" list "$ws" --json >> "$ws/list.t"
    [ -z "$base" ] || time_ns "$base" list "$ws" --json >> "$ws/base.t"
  fi
done
cat_ns=$(median < "$ws/cat.t")
list_ns=$(median < "$ws/list.t")
printf 'projects        %d, 4 formats (%d %s, %d bytes)\n' "$projects" "${#files[@]}" "$what" "$bytes"
printf 'cat             %.2f ms (median of %d)\n' "$(echo "$cat_ns / 1000000" | bc -l)" "$runs"
printf 'loopdeck list   %.2f ms (median of %d)\n' "$(echo "$list_ns / 1000000" | bc -l)" "$runs"
printf 'ratio           %.2f (bar: at most 2)\n' "$(echo "$list_ns / $cat_ns" | bc -l)"
state_ns=$(median < "$ws/state.t")
printf 'cat state files %.2f ms (%d files; list/that: %.2f)\n' "$(echo "$state_ns / 1000000" | bc -l)" "${#state[@]}" "$(echo "$list_ns / $state_ns" | bc -l)"
if [ -n "$base" ]; then
  base_ns=$(median < "$ws/base.t")
  printf 'baseline list   %.2f ms (median of %d, %s)\n' "$(echo "$base_ns / 1000000" | bc -l)" "$runs" "$base"
  printf 'baseline ratio  %.2f (against state files: %.2f)\n' "$(echo "$base_ns / $cat_ns" | bc -l)" "$(echo "$base_ns / $state_ns" | bc -l)"
fi
