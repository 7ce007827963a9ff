#!/usr/bin/env bash
# GSD compatibility suite: every loopdeck GSD verb, with ordinary and hostile
# texts, on the real STATE.md files (LF and CRLF), read by GSD's own code
# (gsd-tools 1.42.3 and its statusline hook) before and after. See compat.py.
#
#   bench/compat/gsd/run.sh [--quick] [--only NAME] [--verbose] [--json OUT] [--jobs N]
#
# Finds, in order:
#   GSD's package  $GSD_PACKAGE, else /tmp/gsdpk/package, else
#                  `npm pack get-shit-done-cc@1.42.3` (npm's cache, else the registry)
#                  unpacked into a temporary folder;
#   the real files $LOOPDECK_SHARED/real-world/gsd, else the repository's copy
#                  in tests/fixtures/gsd-real-world;
#   loopdeck       $LOOPDECK_BIN, else target/debug/loopdeck (built if missing).
# Prints "skipped: …" and exits 0 when node, GSD's package or the real files
# cannot be found; exits 1 when a case does not hold.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
version=1.42.3

skip() { echo "skipped: $*"; exit 0; }

command -v node >/dev/null 2>&1 || skip "node is not installed (GSD's tools are JavaScript)"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (it drives the suite)"

tmp=""
cleanup() { if [ -n "$tmp" ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT

package="${GSD_PACKAGE:-}"
if [ -z "$package" ] && [ -f /tmp/gsdpk/package/get-shit-done/bin/lib/state.cjs ]; then
  package=/tmp/gsdpk/package
fi
if [ -z "$package" ]; then
  command -v npm >/dev/null 2>&1 || skip "GSD's package not found (set GSD_PACKAGE) and npm is not installed"
  tmp="$(mktemp -d)"
  # npm's cache first; else the registry (CI reaches it), bounded in time.
  if ! (cd "$tmp" && npm pack "get-shit-done-cc@$version" --offline --silent >/dev/null 2>&1) &&
     ! (cd "$tmp" && timeout 180 npm pack "get-shit-done-cc@$version" --silent >/dev/null 2>&1); then
    skip "GSD's package not found: set GSD_PACKAGE to an unpacked get-shit-done-cc@$version (npm's cache has no copy and the registry did not answer)"
  fi
  tar xzf "$tmp"/get-shit-done-cc-*.tgz -C "$tmp"
  package="$tmp/package"
fi
[ -f "$package/get-shit-done/bin/lib/state.cjs" ] || skip "$package is not get-shit-done-cc's package (no get-shit-done/bin/lib/state.cjs)"

# The 60 real STATE.md files: the repository's copy (tests/fixtures), or
# LOOPDECK_SHARED's real-world/gsd when set.
if [ -n "${LOOPDECK_SHARED:-}" ]; then
  files="$LOOPDECK_SHARED/real-world/gsd"
else
  files="$repo/tests/fixtures/gsd-real-world"
fi
[ -d "$files" ] || skip "the real GSD files are not at $files"

bin="${LOOPDECK_BIN:-$repo/target/debug/loopdeck}"
if [ ! -x "$bin" ]; then
  (cd "$repo" && cargo build --quiet)
fi

exec python3 "$here/compat.py" --loopdeck "$bin" --package "$package" --files "$files" "$@"
