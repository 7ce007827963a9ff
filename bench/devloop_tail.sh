#!/usr/bin/env bash
# Benchmarks of the devloop reader's NDJSON logs, each measured in one run:
#
# 1. `loopdeck show --json` of a devloop project whose timeline.ndjson is
#    30 KB, against the same project with a 30 MB timeline. The timeline is
#    read from its end, so PRODUCT.md's bar is a ratio of at most 1.5.
# 2. `loopdeck show --json` of a project whose bugs.ndjson is large (many
#    lines per bug id), against `cat` of that file. Every line must be seen
#    (the latest line of each id is its state); the bar is loopdeck at least
#    a third of cat's speed: a time ratio of at most 3.
#
#   bench/devloop_tail.sh [RUNS] [BUGS_MB]
#
# Prints the median wall time of each command and the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-15}
bugs_mb=${2:-150}
cargo build --release --quiet
bin=target/release/loopdeck
ws=$(mktemp -d)
trap "rm -rf \"$ws\"" EXIT; [ -n "${KEEP_WS:-}" ] && trap - EXIT && echo "workspace kept: $ws"

src=examples/workspace/devloop/data/companies/acme/projects/p-restock
for p in small large bugs; do cp -r "$src" "$ws/$p"; done

# Timeline events shaped like the seed's (unix-second ts, source, kind, ref,
# summary), about 200 bytes each.
timeline() { # BYTES FILE
  awk -v want="$1" 'BEGIN {
    split("system coder tester integrator architect bug-triager", src, " ")
    split("agent_started unit_coded unit_passed unit_failed todo_updated runtime_state", kind, " ")
    ts = 1780000000; n = 0; total = 0
    while (total < want) {
      line = sprintf("{\"ts\":%d,\"source\":\"%s\",\"kind\":\"%s\",\"ref\":\"unit/restock-plan-be\",\"summary\":\"event %d: restock-plan-be 第 %d 轮 · PASS 7/8 · case_pack 取整\"}",
        ts + n, src[n % 6 + 1], kind[n % 6 + 1], n, n % 97)
      print line; total += length(line) + 1; n++
    }
  }' > "$2"
}
timeline $((30 * 1024)) "$ws/small/timeline.ndjson"
timeline $((30 * 1024 * 1024)) "$ws/large/timeline.ndjson"

# Bugs: 3,000 ids, each updated many times; every line repeats the whole
# bug with its cumulative status_history, as the seed's BugTracker does.
awk -v want="$((bugs_mb * 1024 * 1024))" 'BEGIN {
  split("open fixing fixed verified", st, " ")
  split("critical high medium low", sev, " ")
  total = 0; n = 0
  while (total < want) {
    b = n % 3000; round = int(n / 3000); s = st[round % 4 + 1]
    hist = ""
    for (k = 0; k < round % 4; k++)
      hist = hist sprintf("%s{\"ts\":\"2026-05-30T1%d:00:00Z\",\"from\":\"%s\",\"to\":\"%s\",\"by\":\"coder\"}", k ? "," : "", k, st[k + 1], st[k + 2])
    line = sprintf("{\"id\":\"bug-20260530-%04d-%04x\",\"discovered_at\":\"2026-05-30T10:12:44Z\",\"source\":\"unit_test\",\"unit_id\":\"restock-plan-be\",\"run_id\":\"run-20260530-1012\",\"test_name\":\"plan.case-pack-rounding\",\"category\":\"impl_bug\",\"severity\":\"%s\",\"title\":\"plan.case-pack-rounding 期望 qty 48 收 45 (round %d)\",\"detail\":\"expected {qty:48,cases:4}, got {qty:45,cases:null}; AssertionError at tests/plan.test.js:88:7\",\"affected_units\":[\"restock-plan-be\"],\"status\":\"%s\",\"status_history\":[%s],\"fix_refs\":[\"run-20260531-0315\"]}",
      b % 10000, b, sev[b % 4 + 1], round, s, hist)
    print line; total += length(line) + 1; n++
  }
}' > "$ws/bugs/bugs.ndjson"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_ns() { local s e; s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N); echo $((e - s)); }
ms() { echo "$1 / 1000000" | bc -l; }

# Sanity: the large timeline's last event is shown; every bug is counted.
last=$(tail -n 1 "$ws/large/timeline.ndjson" | sed 's/.*"summary":"\([^"]*\)".*/\1/')
"$bin" show "$ws/large" --json | grep -qF "$last" || { echo "last event not shown" >&2; exit 1; }
"$bin" show "$ws/bugs" --json | grep -q '"total": 3000' || { echo "bugs not all counted" >&2; exit 1; }

# Warm the page cache, then alternate the commands so drift hits all.
for p in small large bugs; do "$bin" show "$ws/$p" --json > /dev/null; done
cat "$ws/bugs/bugs.ndjson" > /dev/null
for f in small large bugs cat; do : > "$ws/$f.t"; done
for _ in $(seq 1 "$runs"); do
  time_ns "$bin" show "$ws/small" --json >> "$ws/small.t"
  time_ns "$bin" show "$ws/large" --json >> "$ws/large.t"
  time_ns cat "$ws/bugs/bugs.ndjson" >> "$ws/cat.t"
  time_ns "$bin" show "$ws/bugs" --json >> "$ws/bugs.t"
done
small=$(median < "$ws/small.t"); large=$(median < "$ws/large.t")
cat_ns=$(median < "$ws/cat.t"); bugs=$(median < "$ws/bugs.t")
size() { wc -c < "$1" | awk '{printf "%.1f MB", $1 / 1048576}'; }
printf 'timeline 30 KB   show %.2f ms (median of %d)\n' "$(ms "$small")" "$runs"
printf 'timeline 30 MB   show %.2f ms (median of %d)\n' "$(ms "$large")" "$runs"
printf 'ratio            %.2f (bar: at most 1.5)\n' "$(echo "$large / $small" | bc -l)"
printf 'bugs.ndjson      %s, %d lines\n' "$(size "$ws/bugs/bugs.ndjson")" "$(wc -l < "$ws/bugs/bugs.ndjson")"
printf 'cat              %.2f ms (median of %d)\n' "$(ms "$cat_ns")" "$runs"
printf 'loopdeck show    %.2f ms (median of %d)\n' "$(ms "$bugs")" "$runs"
printf 'ratio            %.2f (bar: at most 3)\n' "$(echo "$bugs / $cat_ns" | bc -l)"
