#!/usr/bin/env bash
# Memory of `loopdeck act` on a large PRD-master state.json (issue 18 §5):
# peak RSS of a real decision (answer the frontier question OQ-7) against
# the state file's size, next to `cp` of the same file in the same run.
#
#   bench/memory_act.sh [MB]                 # default 11 MB
#   BIN=/path/to/loopdeck bench/memory_act.sh
#
# The state is tests/fixtures/prd-act/stage1 grown to MB megabytes the way
# a long PRD session grows it: answered questions, key decisions and a long
# user_inputs_log (CJK text, as the seed writes it). The target is a peak of
# at most 4x the file + 30 MB (the bound reads keep); the script exits 1
# above it.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-11}
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
p=$ws/prd
mkdir -p "$p"
cp tests/fixtures/prd-act/stage1/before/conversation.md "$p/"
python3 - "$p/state.json" "$mb" <<'PY'
import json, sys
path, mb = sys.argv[1], float(sys.argv[2])
d = json.load(open("tests/fixtures/prd-act/stage1/before/state.json"))
want = int(mb * 1024 * 1024)
i = 0
while True:
    i += 1
    d["user_inputs_log"].append({"stage": "1.%d" % (i % 9), "timestamp": "2026-05-23T10:%02d:00Z" % (i % 60),
                                 "summary": "用户补充说明第 %d 条：补货建议需要考虑季节性与促销节奏" % i})
    if i % 4 == 0:
        d["key_decisions_made"].append({"id": "D-%d" % (i + 1), "decision": "决定 %d：先做 CSV 导出" % i,
                                        "stage": "1", "rationale": "客户每周对账要用，来源 %d" % i})
    if i % 8 == 0:
        d["open_questions"].append({"id": "OQ-%d" % (i + 100), "title": "已回答的问题 %d" % i, "kind": "decision",
                                    "priority": "P2", "depends_on": [], "owner": "user", "status": "answered",
                                    "answer": "是，第 %d 轮确认" % i})
    if i % 2000 == 0 and len(json.dumps(d, ensure_ascii=False, indent=4).encode()) >= want:
        break
open(path, "w").write(json.dumps(d, ensure_ascii=False, indent=4) + "\n")
PY
size=$(stat -c %s "$p/state.json")
kb() { # peak RSS in KB of a command, output discarded
  "$TIME" -f '%M' -o "$ws/time.out" "$@" > /dev/null 2> "$ws/err.out" || {
    echo "failed: $*" >&2; cat "$ws/err.out" >&2; exit 1; }
  cat "$ws/time.out"
}
cp_kb=$(kb cp "$p/state.json" "$ws/copy.json")
dry_kb=$(kb "$BIN" --now 2026-06-01T12:00:00Z act "$p" answer OQ-7 "进入 MVP，只导出 CSV" --dry-run)
export XDG_STATE_HOME=$ws/state
act_kb=$(kb "$BIN" --now 2026-06-01T12:00:00Z act "$p" answer OQ-7 "进入 MVP，只导出 CSV" --key-decision --rationale "客户每周对账要用")
grep -q '"status": "answered"' "$p/state.json"
limit_kb=$(( (4 * size + 30 * 1024 * 1024) / 1024 ))
awk -v s="$size" -v c="$cp_kb" -v d="$dry_kb" -v a="$act_kb" -v l="$limit_kb" 'BEGIN {
  printf "state.json             %8.1f MB\n", s / 1048576
  printf "%-22s %8.1f MB  %6.2fx the file\n", "cp (baseline)", c / 1024, c * 1024 / s
  printf "%-22s %8.1f MB  %6.2fx the file\n", "act --dry-run", d / 1024, d * 1024 / s
  printf "%-22s %8.1f MB  %6.2fx the file\n", "act answer", a / 1024, a * 1024 / s
  printf "%-22s %8.1f MB  (4x the file + 30 MB)\n", "bound", l / 1024
}'
if [ "$act_kb" -gt "$limit_kb" ] || [ "$dry_kb" -gt "$limit_kb" ]; then
  echo "over the bound" >&2
  exit 1
fi
