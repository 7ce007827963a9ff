#!/usr/bin/env bash
# Memory benchmark of the devloop reader (issue 7 §1): peak RSS of
# `loopdeck status`, `show --json` and `list --json` against the bytes of the
# project's files, next to `cat` of the same files, all in one run.
#
# Two generated workspaces (the issue's shapes):
#   units: a project whose units.json holds UNITS units (default 200,000,
#          about 12 MB: ids, types, statuses, one dependency each);
#   bugs:  a project whose bugs.ndjson holds BUGS distinct bug ids, one
#          line each (default 4,500,000, about 280 MB).
#
#   bench/memory.sh [UNITS] [BUGS]
#   BIN=/path/to/loopdeck bench/memory.sh     # measure another build
#
# For each command it prints the peak RSS, the wall time, and the ratio of
# the peak RSS to the bytes of the project's files (the target: at most
# about 4). `cat` of the same files gives the floor of any process that
# reads them.
set -euo pipefail
cd "$(dirname "$0")/.."
units=${1:-200000}
bugs=${2:-4500000}
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=target/release/loopdeck
fi
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
  echo "GNU time is needed: apt-get install -y time" >&2
  exit 2
fi
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
[ -n "${KEEP_WS:-}" ] && trap - EXIT && echo "workspace kept: $ws"

meta() { # PID STATUS
  printf '{"id":"%s","company_id":"acme","name":"%s","status":"%s","updated_at":"2026-06-01T10:00:00Z","owner":"bench","token_budget":5000000,"token_used":1000}\n' "$1" "$1" "$2"
}

# units.json: ids as the seed spells them (^[a-z]+(-[a-z]+)*-(be|fe|mw|db)$),
# each unit depending on the one before it in its chain of ten.
u=$ws/units/data/companies/acme/projects/p-units
mkdir -p "$u"
meta p-units running > "$u/project.json"
awk -v n="$units" 'function name(i,   s, k) {
    s = ""
    for (k = 0; k < 5; k++) { s = sprintf("%c", 97 + i % 26) s; i = int(i / 26) }
    return s
  }
  BEGIN {
    split("be fe mw db", ty, " ")
    split("passed passed passed testing failed pending", st, " ")
    printf "{\"project_id\":\"p-units\",\"prd_rev\":\"1\",\"sdd_rev\":\"1\",\"l2_rounds\":0,\"l2_budget\":3,\"units\":[\n"
    for (i = 0; i < n; i++) {
      t = ty[i % 4 + 1]
      dep = (i % 10) ? sprintf("\"u-%s-%s\"", name(i - 1), ty[(i - 1) % 4 + 1]) : ""
      printf "%s{\"id\":\"u-%s-%s\",\"type\":\"%s\",\"status\":\"%s\",\"depends_on\":[%s]}\n", i ? "," : "", name(i), t, t, st[i % 6 + 1], dep
    }
    printf "]}\n"
  }' > "$u/units.json"

# bugs.ndjson: one line per bug, every id distinct (the worst case for a
# reader that must remember which ids it has met).
b=$ws/bugs/data/companies/acme/projects/p-bugs
mkdir -p "$b"
meta p-bugs running > "$b/project.json"
awk -v n="$bugs" 'BEGIN {
    split("open fixing fixed verified wontfix", st, " ")
    split("critical high medium low", sev, " ")
    for (i = 0; i < n; i++)
      printf "{\"id\":\"bug-%08d\",\"status\":\"%s\",\"severity\":\"%s\"}\n", i, st[i % 5 + 1], sev[i % 4 + 1]
  }' > "$b/bugs.ndjson"

bytes() { find "$1" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
# Peak RSS (KB) and wall seconds of a command, output discarded.
measure() {
  "$TIME" -f '%M %e' -o "$ws/time.out" "$@" > /dev/null 2> "$ws/err.out" || {
    echo "failed: $*" >&2; cat "$ws/err.out" >&2; exit 1; }
  cat "$ws/time.out"
}
row() { # LABEL INPUT_BYTES CMD...
  local label=$1 input=$2; shift 2
  read -r kb secs < <(measure "$@")
  awk -v l="$label" -v kb="$kb" -v s="$secs" -v in_="$input" 'BEGIN {
    printf "  %-22s %9.1f MB  %6.2f s  %6.2fx of input\n", l, kb / 1024, s, kb * 1024 / in_ }'
}

for set in units bugs; do
  dir=$ws/$set/data/companies/acme/projects/p-$set
  root=$ws/$set
  input=$(bytes "$dir")
  # Warm the page cache once.
  find "$dir" -type f -exec cat {} + > /dev/null
  printf '%s: %s files, %.1f MB\n' "$set" "$(find "$dir" -type f | wc -l)" "$(echo "$input / 1048576" | bc -l)"
  row "cat (baseline)" "$input" sh -c "find '$dir' -type f -exec cat {} + > /dev/null"
  row "loopdeck status" "$input" "$BIN" status "$dir"
  row "loopdeck show --json" "$input" "$BIN" show "$dir" --json
  row "loopdeck list --json" "$input" "$BIN" list "$root" --json
done
