#!/usr/bin/env bash
# Fuzz every target for MINUTES minutes each (default 2), at nice 19.
#
#   bench/fuzz.sh [MINUTES] [TARGET...]
#
# Targets are in fuzz/fuzz_targets/ (one per parser, one decision target per
# format; fuzz/src/lib.rs says what each checks). Each run starts from the
# seeds (fuzz/seeds/<target>/, built by fuzz/seed.sh from examples/ and shared/real-world/) and what earlier runs found
# (fuzz/corpus/<target>/, ignored by git). A crash lands in
# fuzz/artifacts/<target>/; copy it to tests/fixtures/fuzz/<target>/ and
# `cargo test --test fuzz_regressions` replays it on the stable toolchain.
#
# Toolchain: cargo-fuzz (installed from crates.io if missing) on the
# stable toolchain with `--sanitizer none` (cargo-fuzz 0.13 builds and runs
# libFuzzer targets on stable that way). FUZZ_SANITIZER=address (or
# another) needs nightly, used then when rustup has it. `none` is the
# default even with nightly: loopdeck is safe Rust, what the targets look
# for (panics, wrong answers, hangs, unbounded memory) needs no sanitizer,
# and runs several times faster without one.
# Exit 1 when a target found a crash.
set -uo pipefail
minutes=${1:-2}
shift || true
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here/fuzz" || exit 2
# The seeds are copies of examples/ and shared/real-world/, built here
# rather than committed twice.
[ -d seeds ] || bash ./seed.sh || exit 2
case $minutes in '' | *[!0-9]*) echo "usage: bench/fuzz.sh [MINUTES] [TARGET...]" >&2; exit 2 ;; esac

command -v cargo-fuzz >/dev/null || nice -n 19 cargo install cargo-fuzz || exit 2
sanitizer=${FUZZ_SANITIZER:-none}
toolchain=
if [ "$sanitizer" != none ]; then
  if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    toolchain=+nightly
  else
    echo "FUZZ_SANITIZER=$sanitizer needs a nightly toolchain, and rustup has none" >&2
    exit 2
  fi
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(ls fuzz_targets | sed 's/\.rs$//')
fi

echo "building ${#targets[@]} targets (cargo $toolchain fuzz, sanitizer $sanitizer)"
nice -n 19 cargo $toolchain fuzz build --sanitizer "$sanitizer" || exit 2

mkdir -p logs
failed=()
printf '%-16s %8s %10s %8s %6s  %s\n' target seconds execs exec/s corpus result
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="logs/$t.log"
  start=$(date +%s)
  nice -n 19 cargo $toolchain fuzz run --sanitizer "$sanitizer" "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time=$((minutes * 60)) -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
    -print_final_stats=1 >"$log" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(ls "corpus/$t" | wc -l)
  if [ $rc -eq 0 ]; then result=ok; else
    result="CRASH: $(ls -t "artifacts/$t" | head -1) (see fuzz/$log)"
    failed+=("$t")
  fi
  printf '%-16s %8s %10s %8s %6s  %s\n' "$t" "$secs" "${execs:-?}" "${rate:-?}" "$corpus" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "crashes in: ${failed[*]}"
  exit 1
fi
echo "no crash"
