#!/usr/bin/env bash
# Mutation testing of the write path: cargo-mutants (installed from
# crates.io if missing) on crates/loopdeck-core/src/store/ and the format-preserving editors
# (crates/loopdeck-core/src/formats/jsonedit/, crates/loopdeck-core/src/formats/gsd/splice.rs), then the score.
#
#   bench/mutants.sh [--timeout SECS] [--jobs N] [--tests "ARGS"] [FILE...] [-- CARGO-MUTANTS-ARGS...]
#
# FILE...     limit the run to these files (default: the write path above).
#             The full run takes hours on 2 cores; try one file first:
#             bench/mutants.sh crates/loopdeck-core/src/store/diff.rs
# --timeout   seconds a mutant's tests may run before it counts as caught
#             by a hang (default 300).
# --tests     cargo test's target selection, e.g. "--lib --test store_write"
#             (default: the whole suite).
#             Fewer tests run faster but can leave mutants missed that
#             another test would catch.
#
# As root it never runs a mutant as root (a mutated Dir::open once opened
# "/" and the unit tests wrote their files there): it copies the tree to
# $MUTANTS_WORK (default /tmp/loopdeck-mutants) with what cargo needs (the
# toolchain, the registry, a target dir kept for the next run), makes
# the fixtures a test needs another user's files for (a link and files
# owned by another uid: LOOPDECK_TEST_FOREIGN_LINK/_FILES), runs itself
# there as $MUTANTS_USER (default nobody) with setpriv, and copies the
# report back to target/mutants.out. MUTANTS_AS_ROOT=1 runs as root in
# place (a throwaway machine only).
#
# MUTANTS_TARGET_DIR=DIR builds every mutant in DIR (CARGO_TARGET_DIR):
# seeded with a copy of target/debug, dependencies are not built again.
# MUTANTS_ARGS adds cargo-mutants options (e.g. "--shard 0/4"), split at
# spaces; after `--`, each argument goes to cargo-mutants as it is (a
# regex with spaces: -- --re 'replace \| with & in Dir::open').
#
# cargo-mutants copies the tree and mutates the copy (no --in-place): the
# working tree is never touched. Its report is in target/mutants.out/ (or
# $MUTANTS_OUT). Every missed mutant must be killed by a new test or
# listed, with why it is equivalent, in bench/mutants-equivalent.txt; the
# listed ones do not count against the score. Runs at nice 19.
# Exit 0 when no missed mutant is left unexplained, 1 otherwise, 2 on a
# usage or build error.
set -uo pipefail
# A mutant of the write path can write anywhere its user may (a mutated
# Dir::open once opened "/" and the unit tests wrote their files there):
# never as root unless the caller says the machine is a throwaway one.
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 2
for a in "$@"; do
  case $a in -h | --help) sed -n '2,/^set -uo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
done
if [ "$(id -u)" = 0 ] && [ "${MUTANTS_AS_ROOT:-}" != 1 ]; then
  user=${MUTANTS_USER:-nobody}
  uid=$(id -u "$user") && gid=$(id -g "$user") || exit 2
  if [ "$uid" = 0 ]; then
    echo "bench/mutants.sh: MUTANTS_USER=$user is root" >&2
    exit 2
  fi
  command -v setpriv >/dev/null || { echo "bench/mutants.sh: running as root needs setpriv (util-linux) to drop to $user; or run it as a user" >&2; exit 2; }
  work=${MUTANTS_WORK:-/tmp/loopdeck-mutants}
  case $work in
    / | /tmp | /tmp/ | "$here" | "$here"/*) echo "bench/mutants.sh: MUTANTS_WORK=$work: choose a directory of its own" >&2; exit 2 ;;
    /*) ;;
    *) echo "bench/mutants.sh: MUTANTS_WORK=$work: an absolute path, please" >&2; exit 2 ;;
  esac
  echo "bench/mutants.sh: running as root: the mutants run as $user (uid $uid) on a copy in $work, never as root"
  mkdir -p "$work" && chmod 755 "$work" || exit 2
  as_user() { setpriv --reuid "$uid" --regid "$gid" --clear-groups "$@"; }
  # The sources, fresh each run (mtimes of now: nothing built from an
  # older copy is taken for them).
  rm -rf "$work/src" && mkdir "$work/src" || exit 2
  tar -cf - --exclude=./target --exclude=./.git --exclude=./fuzz/corpus \
    --exclude=./fuzz/target --exclude=./fuzz/artifacts . | tar -C "$work/src" -xmf - || exit 2
  # The toolchain: used where it is when the user can read it, else
  # hard-linked (or copied) beside the sources.
  sysroot=$(rustc --print sysroot) || exit 2
  if ! as_user test -x "$sysroot/bin/rustc" || ! as_user test -x "$sysroot/bin/cargo"; then
    if [ ! -x "$work/toolchain/bin/rustc" ] || [ "$("$work/toolchain/bin/rustc" -V)" != "$(rustc -V)" ]; then
      rm -rf "$work/toolchain"
      cp -al "$sysroot" "$work/toolchain" 2>/dev/null || cp -a "$sysroot" "$work/toolchain" || exit 2
    fi
    sysroot=$work/toolchain
  fi
  # cargo-mutants, and the registry (offline: nothing is fetched).
  mkdir -p "$work/bin" "$work/home" "$work/out" || exit 2
  mutants_bin=$(command -v cargo-mutants) || { nice -n 19 cargo install cargo-mutants || exit 2; mutants_bin=$(command -v cargo-mutants) || exit 2; }
  cp "$mutants_bin" "$work/bin/" || exit 2
  cargo_home=${CARGO_HOME:-$HOME/.cargo}
  # Brought up to date each run (-u: only what is new since the last).
  mkdir -p "$work/cargo-home" && cp -au "$cargo_home/registry" "$work/cargo-home/" || exit 2
  # The target dir is kept between runs. It cannot be seeded from
  # target/: the registry's path differs from root's, and cargo builds
  # every dependency again when its source path changes.
  mkdir -p "$work/target" || exit 2
  # Fixtures only root can make: a link to a directory and files owned by
  # a uid that is neither the user's nor root's.
  other=1
  [ "$uid" = 1 ] && other=2
  rm -rf "$work/fixtures" && mkdir -p "$work/fixtures/files" || exit 2
  ln -s "$work" "$work/fixtures/link" && chown -h "$other:$other" "$work/fixtures/link" || exit 2
  (
    cd "$work/fixtures/files" || exit 2
    echo x >other-uid && chown "$other:$gid" other-uid && chmod 666 other-uid &&
      echo x >other-gid && chown "$uid:$other" other-gid && chmod 666 other-gid &&
      echo x >not-ours && chown "$other:$other" not-ours && chmod 644 not-ours
  ) || exit 2
  chown "$uid:$gid" "$work/fixtures/files" || exit 2
  chown -R "$uid:$gid" "$work/src" "$work/bin" "$work/home" "$work/out" "$work/cargo-home" "$work/target" || exit 2
  rm -rf "$work/out/mutants.out"
  as_user env -i HOME="$work/home" PATH="$sysroot/bin:$work/bin:/usr/bin:/bin" \
    RUSTC="$sysroot/bin/rustc" CARGO="$sysroot/bin/cargo" CARGO_HOME="$work/cargo-home" \
    CARGO_NET_OFFLINE=true TMPDIR=/tmp TERM=dumb LANG=C.UTF-8 \
    MUTANTS_TARGET_DIR="$work/target" MUTANTS_OUT="$work/out/mutants.out" \
    MUTANTS_ARGS="${MUTANTS_ARGS:-}" \
    LOOPDECK_TEST_FOREIGN_LINK="$work/fixtures/link" \
    LOOPDECK_TEST_FOREIGN_FILES="$work/fixtures/files" \
    bash "$work/src/bench/mutants.sh" "$@"
  rc=$?
  if [ -d "$work/out/mutants.out" ]; then
    rm -rf "$here/target/mutants.out" && mkdir -p "$here/target" &&
      cp -a "$work/out/mutants.out" "$here/target/" && chown -R 0:0 "$here/target/mutants.out" &&
      echo "bench/mutants.sh: report copied to $here/target/mutants.out"
  fi
  exit $rc
fi
timeout=300
jobs=1
tests=""
files=()
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; extra=("$@"); break ;;
    --timeout) timeout=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    -*) echo "bench/mutants.sh: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [ ${#files[@]} -eq 0 ]; then
  files=(crates/loopdeck-core/src/store/ crates/loopdeck-core/src/formats/jsonedit/ crates/loopdeck-core/src/formats/gsd/splice.rs)
fi
command -v cargo-mutants >/dev/null || nice -n 19 cargo install cargo-mutants || exit 2

if [ -n "${MUTANTS_TARGET_DIR:-}" ]; then
  export CARGO_TARGET_DIR=$MUTANTS_TARGET_DIR
fi
out=${MUTANTS_OUT:-$here/target/mutants.out}
# --gitignore true: the copy leaves out target/ and fuzz/corpus/ (which a
# running fuzzer changes under it).
# --workspace --test-workspace=true: the files live in crates/loopdeck-core,
# but most of what catches a store mutant is the binary's tests (tests/*.rs at
# the root), so every package's tests run against every mutant.
args=(--timeout "$timeout" --jobs "$jobs" --gitignore true --output "$(dirname "$out")" --workspace --test-workspace=true)
for f in "${files[@]}"; do
  if [ -d "$f" ]; then
    while IFS= read -r rs; do args+=(--file "$rs"); done < <(find "$f" -name '*.rs' ! -name '*tests.rs' ! -path '*/tests/*' | sort)
  elif [ -f "$f" ]; then
    args+=(--file "$f")
  else
    echo "bench/mutants.sh: $f: no such file or directory" >&2; exit 2
  fi
done
echo "cargo mutants on ${#args[@]} arguments: ${files[*]} (timeout ${timeout}s, $jobs job(s))"
# `--tests` are cargo's own arguments (`--lib`, `--test NAME`): they choose
# what is built and run for every mutant, so each goes in --cargo-arg (build and test phases alike).
for a in $tests; do args+=("--cargo-arg=$a"); done
# shellcheck disable=SC2086 # word splitting of $MUTANTS_ARGS is meant
nice -n 19 cargo mutants "${args[@]}" ${MUTANTS_ARGS:-} "${extra[@]}"
rc=$?
# 0: all caught; 2: some missed; 3: some timed out; 4: the baseline failed.
case $rc in 0 | 2 | 3) ;; *) echo "cargo mutants failed (exit $rc): see $out/log" >&2; exit 2 ;; esac
# Nothing was run (`-- --list`): no score.
[ -f "$out/outcomes.json" ] || exit "$rc"

python3 - "$out/outcomes.json" "$here/bench/mutants-equivalent.txt" <<'PY'
import json, re, sys
outcomes = json.load(open(sys.argv[1]))
# A mutant is named "file:line:col: description"; the equivalent list
# names it without the position (which moves with every edit: any mutant
# so described), or with it when only that one of several alike is
# equivalent.
def key(name):
    return re.sub(r"^([^:]+):\d+:\d+: ", r"\1: ", name.strip())
equivalent = set()
exact = set()
for line in open(sys.argv[2], encoding="utf-8"):
    line = line.split("  #")[0].strip()
    if line and not line.startswith("#"):
        if re.match(r"^[^:]+:\d+:\d+: ", line):
            exact.add(line)
        else:
            equivalent.add(key(line))
counts = {"caught": 0, "missed": 0, "timeout": 0, "unviable": 0, "equivalent": 0}
missed = []
for o in outcomes.get("outcomes", []):
    scenario = o.get("scenario")
    if not isinstance(scenario, dict) or "Mutant" not in scenario:
        continue
    m = scenario["Mutant"]
    name = m.get("name") or "{}:{}:{}: {}".format(
        m.get("file"), m.get("span", {}).get("start", {}).get("line"),
        m.get("span", {}).get("start", {}).get("column"), m.get("replacement"))
    summary = o.get("summary", "")
    if summary == "CaughtMutant":
        counts["caught"] += 1
    elif summary == "MissedMutant":
        if key(name) in equivalent or name.strip() in exact:
            counts["equivalent"] += 1
        else:
            counts["missed"] += 1
            missed.append(name)
    elif summary == "Timeout":
        counts["timeout"] += 1
    elif summary == "Unviable":
        counts["unviable"] += 1
judged = counts["caught"] + counts["timeout"] + counts["missed"]
score = 100.0 * (counts["caught"] + counts["timeout"]) / judged if judged else 100.0
print()
print("mutants: {caught} caught, {timeout} timed out (caught), {missed} missed, "
      "{equivalent} equivalent (listed), {unviable} unviable".format(**counts))
print("score: {:.1f}% ({} of {} viable, non-equivalent mutants caught)".format(
    score, counts["caught"] + counts["timeout"], judged))
if missed:
    print("missed (kill each with a test, or list it in bench/mutants-equivalent.txt with why):")
    for n in missed:
        print("  " + n)
sys.exit(1 if missed else 0)
PY
