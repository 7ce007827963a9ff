#!/usr/bin/env bash
# Before/after in one run: this tree against another checkout (a worktree of
# an older commit), alternating, so both see the same machine state.
#
#   git worktree add /tmp/before <commit> && bench/compare_trees.sh /tmp/before [ROUNDS]
#
# Runs each tree's `cargo bench --bench render` ROUNDS times (default 3) and
# `--bench incremental` twice, alternating trees, then bench/list_vs_cat.sh
# with the other tree's release binary as its BASELINE. Trees older than the
# workspace split have the same bench names, so any two commits compare.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
other=$(cd "${1:?usage: bench/compare_trees.sh OTHER_TREE [ROUNDS]}" && pwd)
rounds=${2:-3}
for t in "$other" "$here"; do
  (cd "$t" && cargo build --release --quiet && cargo bench --no-run --quiet --bench render --bench incremental)
done
bench() { # tree name
  echo "== $2 $(basename "$1") ($(git -C "$1" rev-parse --short HEAD))"
  (cd "$1" && cargo bench --quiet --bench "$2" 2>/dev/null | grep -v '^$')
}
for _ in $(seq 1 "$rounds"); do
  bench "$other" render
  bench "$here" render
done
for _ in 1 2; do
  bench "$other" incremental
  bench "$here" incremental
done
echo "== list_vs_cat (baseline: $other)"
BASELINE="$other/target/release/loopdeck" "$here/bench/list_vs_cat.sh" 1000 21
