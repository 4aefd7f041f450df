#!/usr/bin/env bash
# Runs the GitHub Action's script (ci/action.sh) locally, as the action does:
# inputs as STGUARD_ACTION_* variables, a prebuilt stguard. Checks that a
# conforming reader passes with the reports written, that a broken one fails
# the job, and that an expectations file listing its failures makes it pass.
# Usage: action_test.sh SOURCE_DIR STGUARD_BINARY WORK_DIR
set -euo pipefail
source_dir="$1"
stguard="$2"
work="$3"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

export STGUARD_ACTION_STGUARD="$stguard"
export STGUARD_ACTION_CASES="layout/* dtypes/f32"
# A sanitizer build of stguard cannot start under an address-space limit.
export STGUARD_ACTION_MEMORY_MB=0
fail() { echo "action_test: $*" >&2; exit 1; }

# A conforming reader: stguard itself.
STGUARD_ACTION_ADAPTER="$stguard adapter" STGUARD_ACTION_NAME=self \
  STGUARD_ACTION_OUT_DIR="$work/good" bash "$source_dir/ci/action.sh" >"$work/good.log" 2>&1 ||
  fail "a conforming reader failed: $(cat "$work/good.log")"
for report in summary.txt results.jsonl junit.xml matrix.html; do
  [ -s "$work/good/$report" ] || fail "no $report"
done
grep -q '"case":"dtypes/f32"' "$work/good/results.jsonl" || fail "dtypes/f32 did not run"
if grep -q '"case":"names/' "$work/good/results.jsonl"; then fail "the case selection was ignored"; fi

# A reader that accepts everything (plain mode: exit 0 means accept).
status=0
STGUARD_ACTION_ADAPTER="true" STGUARD_ACTION_PLAIN=true STGUARD_ACTION_NAME=lax \
  STGUARD_ACTION_OUT_DIR="$work/bad" bash "$source_dir/ci/action.sh" >"$work/bad.log" 2>&1 ||
  status=$?
[ "$status" = 1 ] || fail "an accept-everything reader should fail with 1, got $status"
grep -q FAIL_SHOULD_REJECT "$work/bad/summary.txt" || fail "no FAIL_SHOULD_REJECT in the summary"

# Its failures listed as expected: the job passes.
"$stguard" conform --adapter true --plain --name lax --quiet --case 'layout/*' --case dtypes/f32 \
  --write-expectations "$work/expected.txt" >/dev/null || true
[ -s "$work/expected.txt" ] || fail "no expectations written"
STGUARD_ACTION_ADAPTER="true" STGUARD_ACTION_PLAIN=true STGUARD_ACTION_NAME=lax \
  STGUARD_ACTION_EXPECTATIONS="$work/expected.txt" STGUARD_ACTION_OUT_DIR="$work/known" \
  bash "$source_dir/ci/action.sh" >"$work/known.log" 2>&1 ||
  fail "listed failures still failed the job: $(cat "$work/known.log")"
echo "action_test: ok"
rm -rf "$work"
