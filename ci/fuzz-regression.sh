#!/usr/bin/env bash
# Turns a fuzzing finding into a regression file that ctest replays in every
# build (test <harness>_replay, label fuzz-replay).
#
#   ci/fuzz-regression.sh [--name NAME] [--minimize SECONDS]
#                         [--build-dir DIR] [--no-check] HARNESS FILE
#
#   --name NAME         file name under fuzz/regressions/HARNESS/ (letters,
#                       digits, '.', '_', '-'; default: the input's SHA-1)
#   --minimize SECONDS  first run ci/fuzz-minimize.sh with this time box and
#                       keep the minimised input
#   --build-dir DIR     libFuzzer build directory for the check (default
#                       build/fuzz; also $STGUARD_FUZZ_BUILD_DIR)
#   --no-check          do not run the harness on the file afterwards
#
# Copies FILE to fuzz/regressions/HARNESS/NAME (refuses to overwrite a
# different file of that name; the same content under any name is reported
# and not added twice), then runs the harness once on it and says whether it
# still fails (expected until the bug is fixed; ctest fails meanwhile) or
# passes. Exit status: 0 when the file is in place, 1 when minimisation or
# the copy failed, 2 on a usage error.
set -euo pipefail
prog=fuzz-regression.sh
cd "$(dirname "$0")/.."
root="$(pwd)"
source ci/fuzz-common.sh

name=""
minimize=""
build="${STGUARD_FUZZ_BUILD_DIR:-build/fuzz}"
check=1
args=()

while [ $# -gt 0 ]; do
  case "$1" in
    --name) [ $# -ge 2 ] || usage; name="$2"; shift 2 ;;
    --minimize) [ $# -ge 2 ] || usage; minimize="$2"; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage; build="$2"; shift 2 ;;
    --no-check) check=0; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "$prog: unknown option $1" >&2; usage ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] || { echo "$prog: need HARNESS and FILE" >&2; usage; }
harness="${args[0]}"
input="${args[1]}"
stguard_check_harness "$harness"
[ -f "$input" ] || stguard_die 2 "no such file: $input"
[ -z "$minimize" ] || stguard_check_seconds --minimize "$minimize"
if [ -n "$name" ] && ! [[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]]; then
  stguard_die 2 "--name '$name': use letters, digits, '.', '_' and '-' (not starting with '.' or '-')"
fi

if [ -n "$minimize" ]; then
  min="$(mktemp -d)/$(basename "$input").min"
  ci/fuzz-minimize.sh --seconds "$minimize" --build-dir "$build" --out "$min" "$harness" "$input" ||
    stguard_die 1 "minimisation failed; add the original without --minimize if it still fails"
  input="$min"
fi

dir="fuzz/regressions/$harness"
mkdir -p "$dir"
sha=$(stguard_sha1 "$input")
name="${name:-$sha}"
dest="$dir/$name"
while IFS= read -r -d '' existing; do
  if cmp -s "$existing" "$input"; then
    echo "$prog: already there as $existing; nothing added"
    exit 0
  fi
done < <(find "$dir" -maxdepth 1 -type f -print0)
[ ! -e "$dest" ] || stguard_die 1 "$dest exists with other content; choose another --name"
cp "$input" "$dest"
echo "$prog: added $dest ($(wc -c <"$dest") bytes, sha1 $sha)"

if [ "$check" = 1 ]; then
  stguard_build fuzz "$build" "$harness"
  case "$build" in /*) ;; *) build="$root/$build" ;; esac
  stguard_sanitizer_env
  set +e
  out=$("$build/fuzz/$harness" -rss_limit_mb=2048 -timeout=10 "$dest" 2>&1)
  status=$?
  set -e
  if [ "$status" -eq 0 ]; then
    echo "$prog: $harness passes on it now; ctest keeps it that way"
  else
    echo "$prog: $harness still fails on it (exit $status) -- ctest -R ${harness}_replay fails until the bug is fixed:"
    echo "$out" | grep -E 'invariant broken|ERROR: |runtime error|SUMMARY|#[0-9]+ 0x' | head -15 || true
  fi
fi
echo "$prog: describe it in fuzz/regressions/README.md and commit it with the fix"
