#!/usr/bin/env bash
# Runs the GitHub Action's script (ci/action.sh) locally, as the action does:
# inputs as STGUARD_ACTION_* variables, a prebuilt stguard, GitHub's
# GITHUB_STEP_SUMMARY and GITHUB_OUTPUT as files. Checks that a conforming
# reader passes with the reports written; that a broken one (named with
# blanks) fails the job with its outputs, 50 annotations and one for the rest,
# and a summary; that the expectations file it wrote makes it pass; that
# messages are escaped as workflow commands require; that a cached stguard is
# reused. A few case groups, so it runs in seconds.
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

# A reader that accepts everything (plain mode: exit 0 means accept), named
# with blanks, reported as in a GitHub job: outputs, annotations (at most 50,
# then one with the rest), the step summary, an expectations file written.
gh="$work/github"
mkdir -p "$gh"
status=0
GITHUB_STEP_SUMMARY="$gh/summary.md" GITHUB_OUTPUT="$gh/output" GITHUB_JOB=test-job \
  STGUARD_ACTION_JOB_INDEX=3 STGUARD_ACTION_CASES="layout/* json-syntax/*" STGUARD_ACTION_JOBS=2 \
  STGUARD_ACTION_ADAPTER="true" STGUARD_ACTION_PLAIN=true STGUARD_ACTION_NAME="lax reader" \
  STGUARD_ACTION_WRITE_EXPECTATIONS="$work/expected.txt" \
  STGUARD_ACTION_OUT_DIR="$work/bad" bash "$source_dir/ci/action.sh" >"$work/bad.log" 2>&1 ||
  status=$?
[ "$status" = 1 ] || fail "an accept-everything reader should fail with 1, got $status: $(cat "$work/bad.log")"
grep -q FAIL_SHOULD_REJECT "$work/bad/summary.txt" || fail "no FAIL_SHOULD_REJECT in the summary"
grep -q -- ' -j 2 ' "$work/bad.log" || fail "jobs was not passed as -j"
output() { sed -n "s/^$1=//p" "$gh/output"; }
total="$(output total)" passed="$(output passed)" failing="$(output failing)"
[ "$total" = "$(grep -c '"case":' "$work/bad/results.jsonl")" ] || fail "total=$total"
[ "$((passed + failing))" = "$total" ] || fail "passed=$passed failing=$failing of $total"
[ "$failing" -gt 50 ] || fail "the selection should fail more than 50 cases, failed $failing"
[ "$failing" = "$(grep -c 'FAIL_SHOULD_REJECT' "$work/bad/results.jsonl")" ] || fail "failing=$failing"
[ "$(output report-dir)" = "$work/bad" ] || fail "report-dir: $(output report-dir)"
[ "$(output artifact-name)" = "stguard-conform-test-job-3-lax-reader" ] ||
  fail "artifact-name: $(output artifact-name)"
# 50 annotations, one per case (the title's ':' escaped), then one for the rest.
[ "$(grep -c '^::error title=stguard conform%3A layout/\|^::error title=stguard conform%3A json-syntax/' "$work/bad.log")" = 50 ] ||
  fail "not 50 case annotations: $(grep -c '^::error' "$work/bad.log")"
grep -q "^::error title=stguard conform::$((failing - 50)) more failing cases" "$work/bad.log" ||
  fail "no annotation for the $((failing - 50)) cases past 50"
grep -q '^::error title=stguard conform%3A layout/gap-between::lax reader: FAIL_SHOULD_REJECT on layout/gap-between: accepted; must be rejected: OFFSET_GAP$' "$work/bad.log" ||
  fail "the annotation of layout/gap-between: $(grep 'gap-between' "$work/bad.log")"
summary="$gh/summary.md"
grep -q '^## stguard conformance: lax reader$' "$summary" || fail "summary title: $(head -1 "$summary")"
corpus_version="$(sed -n 's/^ *"corpus_version": "\(.*\)",$/\1/p' "$source_dir/corpus/manifest.json")"
grep -q "^Corpus version $corpus_version, stguard .*\*\*$total cases, $passed passed, $failing failing\*\*" "$summary" ||
  fail "summary counts: $(sed -n 3p "$summary")"
grep -q "^| FAIL_SHOULD_REJECT | $failing |$" "$summary" || fail "no count per grade"
grep -q "^| PASS | $passed |$" "$summary" || fail "no PASS count"
[ "$(grep -c '^| `' "$summary")" = 50 ] || fail "the summary should list 50 failing cases"
grep -q "and $((failing - 50)) more" "$summary" || fail "the summary does not say how many more"
grep -q '^### Expectations written to' "$summary" || fail "the written expectations are not shown"
[ -s "$work/expected.txt" ] || fail "no expectations written"
grep -q "$(head -n 1 "$work/expected.txt")" "$summary" || fail "the expectations' lines are not shown"

# Its failures listed as expected: the job passes, and nothing is annotated.
STGUARD_ACTION_ADAPTER="true" STGUARD_ACTION_PLAIN=true STGUARD_ACTION_NAME="lax reader" \
  STGUARD_ACTION_CASES="layout/* json-syntax/*" \
  STGUARD_ACTION_EXPECTATIONS="$work/expected.txt" STGUARD_ACTION_OUT_DIR="$work/known" \
  GITHUB_OUTPUT="$gh/known-output" bash "$source_dir/ci/action.sh" >"$work/known.log" 2>&1 ||
  fail "listed failures still failed the job: $(cat "$work/known.log")"
if grep -q '^::error' "$work/known.log"; then fail "expected failures were annotated"; fi
grep -qx 'failing=0' "$gh/known-output" || fail "expected failures counted as failing"

# A reader in a folder with a blank in its name, whose messages hold what
# workflow commands must escape (% , : and a line break): each valid case
# fails with its message, escaped in the annotation, one line in the summary.
mkdir -p "$work/my adapter"
cat >"$work/my adapter/reject.sh" <<'ADAPTER'
#!/usr/bin/env bash
printf '{"verdict":"reject","error":"100%%, no: line one\\nline two"}\n'
ADAPTER
chmod +x "$work/my adapter/reject.sh"
status=0
GITHUB_STEP_SUMMARY="$gh/strict.md" GITHUB_OUTPUT="$gh/strict-output" \
  STGUARD_ACTION_ADAPTER="'$work/my adapter/reject.sh'" STGUARD_ACTION_NAME="too strict" \
  STGUARD_ACTION_CASES="dtypes/f32" STGUARD_ACTION_OUT_DIR="$work/strict" \
  bash "$source_dir/ci/action.sh" >"$work/strict.log" 2>&1 || status=$?
[ "$status" = 1 ] || fail "a reject-everything reader should fail with 1, got $status: $(cat "$work/strict.log")"
grep -qF '::error title=stguard conform%3A dtypes/f32::too strict: FAIL_SHOULD_REJECT' "$work/strict.log" ||
  grep -qF '::error title=stguard conform%3A dtypes/f32::too strict: FAIL_SHOULD_ACCEPT' "$work/strict.log" ||
  fail "no annotation for dtypes/f32: $(cat "$work/strict.log")"
grep -qF '(reader: 100%25, no: line one%0Aline two)' "$work/strict.log" ||
  fail "the reader's message is not escaped: $(grep '^::error' "$work/strict.log")"
grep -qF '| 100%, no: line one line two |' "$gh/strict.md" ||
  fail "the reader's message is not in the summary: $(cat "$gh/strict.md")"
grep -qx 'failing=1' "$gh/strict-output" || fail "failing: $(cat "$gh/strict-output")"

# A stguard kept from an earlier run (the action's cache) is used, not rebuilt.
mkdir -p "$work/bin"
ln -s "$stguard" "$work/bin/stguard"
STGUARD_ACTION_STGUARD='' STGUARD_ACTION_BIN_DIR="$work/bin" STGUARD_ACTION_ADAPTER="$stguard adapter" \
  STGUARD_ACTION_CASES="dtypes/f32" STGUARD_ACTION_OUT_DIR="$work/cached" \
  bash "$source_dir/ci/action.sh" >"$work/cached.log" 2>&1 ||
  fail "the cached stguard did not run: $(cat "$work/cached.log")"
grep -q 'using the stguard built by an earlier run' "$work/cached.log" || fail "the cache was not used"
key="$(bash "$source_dir/ci/action.sh" --cache-key)"
[[ "$key" =~ ^[0-9a-f]{32}$ ]] || fail "cache key: '$key'"
echo "action_test: ok"
rm -rf "$work"
