#!/usr/bin/env bash
# Rebuild fuzz/seeds/<target>/ from examples/ and ../shared/real-world/
# (not committed: bench/fuzz.sh runs this when seeds/ is missing; runs write
# to fuzz/corpus/, also ignored).
# Usage: fuzz/seed.sh [REAL_WORLD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
ex="$repo/examples/workspace"
rw=${1:-$repo/../shared/real-world}
[ -d "$rw" ] || rw=/work/shared/real-world
out="$here/seeds"
rm -rf "$out"
mkdir -p "$out"/{prd_state,gsd_state,dwp_readme,devloop_html,ndjson_tail,ndjson_fold,jsonedit,decide_prd,decide_gsd,decide_dwp,decide_devloop}
name() { echo "$1" | sed 's#^.*/workspace/##; s#^.*/real-world/##; s#[^A-Za-z0-9._-]#_#g'; }

for f in "$ex"/prd-master/*/state.json; do cp "$f" "$out/prd_state/$(name "$f")"; done
for f in "$ex"/gsd/*/.planning/STATE.md; do cp "$f" "$out/gsd_state/$(name "$f")"; done
# Real GSD files: every fourth one, and CRLF copies of a few (Windows users write CRLF).
i=0
for f in "$rw"/gsd/*/STATE.md; do
  i=$((i + 1))
  [ $((i % 4)) -eq 0 ] || continue
  cp "$f" "$out/gsd_state/$(name "$f")"
  [ $((i % 16)) -eq 0 ] && sed 's/$/\r/' "$f" > "$out/gsd_state/crlf_$(name "$f")"
done
find "$ex/dwp" "$rw/dwp" -name README.md -path '*PLAN_*' | while read -r f; do
  cp "$f" "$out/dwp_readme/$(name "$f")"
done
find "$ex/devloop" -name '*.html' | while read -r f; do cp "$f" "$out/devloop_html/$(name "$f")"; done
# ndjson_tail: two choice bytes pairs (chunk, max line), then the file.
find "$ex/devloop" -name '*.ndjson' | while read -r f; do
  { printf '\x00\x07\x00\x28'; cat "$f"; } > "$out/ndjson_tail/$(name "$f")"
  { printf '\x00\x3f\x00\x00'; head -c 300 "$f"; } > "$out/ndjson_tail/short_$(name "$f")"
done
# ndjson_fold: bugs.ndjson, 0xFF, timeline.ndjson of one project.
for d in "$ex"/devloop/data/companies/*/projects/*; do
  { cat "$d/bugs.ndjson" 2>/dev/null; printf '\xff'; cat "$d/timeline.ndjson" 2>/dev/null; } \
    > "$out/ndjson_fold/$(basename "$d")"
done
# jsonedit: choices (edits, salt, split n: big-endian, n = 6 + script), script, document.
find "$ex" "$rw/dwp" -name '*.json' -size -24k | sort | head -40 | while read -r f; do
  { printf '\x00\x03\x00\x05\x00\x0e'; printf '\x01\x02\x00\x01\x03\x00\x02\x01'; cat "$f"; } \
    > "$out/jsonedit/$(name "$f")"
done
# Decisions: the input is a stream of choices; a few spread ones.
for t in decide_prd decide_gsd decide_dwp decide_devloop; do
  for s in 0 1 2 3 4 5 6 7; do
    head -c 96 /dev/urandom > "$out/$t/random_$s"
    { printf "\\x00\\x0$s"; head -c 94 /dev/zero; } > "$out/$t/zeros_$s"
  done
done
du -sh "$out"
