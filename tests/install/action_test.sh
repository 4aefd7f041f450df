#!/usr/bin/env bash
# Runs the GitHub Action's script (ci/action.sh) locally, as the action does:
# inputs as STGUARD_ACTION_* variables, a prebuilt stguard, GitHub's
# GITHUB_STEP_SUMMARY and GITHUB_OUTPUT as files. Checks that a conforming
# reader passes with the reports written; that a broken one (named with
# blanks) fails the job with its outputs, 50 annotations and one for the rest,
# and a summary; that the expectations file it wrote makes it pass; that
# messages are escaped as workflow commands require; that what a hostile
# reader prints (Markdown, HTML, '|', backticks, ESC and NUL) is inert text in
# the summary and escaped in the annotations; that an input holding a line
# break is refused before anything runs; that outputs are written in the
# delimiter form; that a run which graded nothing sets no counts and fails;
# that a cached stguard is reused. A few case groups, so it runs in seconds.
# Usage: action_test.sh SOURCE_DIR STGUARD_BINARY WORK_DIR
# shellcheck disable=SC2016  # the backticks in single quotes are Markdown's
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
# An output's value, GITHUB_OUTPUT read as the runner reads it: `name=value`
# lines and `name<<DELIMITER` ... DELIMITER blocks. Usage: output_of FILE NAME
output_of() {
  awk -v want="$2" '
    delimiter != "" {
      if ($0 == delimiter) { if (name == want) print value; delimiter = "" }
      else value = (first ? $0 : value "\n" $0)
      first = 0; next
    }
    index($0, "<<") && (!index($0, "=") || index($0, "<<") < index($0, "=")) {
      name = substr($0, 1, index($0, "<<") - 1); delimiter = substr($0, index($0, "<<") + 2)
      value = ""; first = 1; next
    }
    index($0, "=") { if (substr($0, 1, index($0, "=") - 1) == want) print substr($0, index($0, "=") + 1) }
  ' "$1"
}
# Whether FILE sets the output NAME at all, in either form.
has_output() { [ -f "$1" ] && grep -q "^$2=\|^$2<<" "$1"; }

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
output() { output_of "$gh/output" "$1"; }
# Every output in the delimiter form, none as a `name=value` line that a value
# could follow with a line of its own.
if grep -q '^[A-Za-z-]*=' "$gh/output"; then
  fail "an output written as name=value: $(grep '^[A-Za-z-]*=' "$gh/output")"
fi
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
grep -q '^## stguard conformance: `lax reader`$' "$summary" || fail "summary title: $(head -1 "$summary")"
corpus_version="$(sed -n 's/^ *"corpus_version": "\(.*\)",$/\1/p' "$source_dir/corpus/manifest.json")"
grep -q "^Corpus version $corpus_version, \`stguard .*\*\*$total cases, $passed passed, $failing failing\*\*" "$summary" ||
  fail "summary counts: $(sed -n 3p "$summary")"
grep -q "^| \`FAIL_SHOULD_REJECT\` | $failing |$" "$summary" || fail "no count per grade"
grep -q "^| \`PASS\` | $passed |$" "$summary" || fail "no PASS count"
[ "$(grep -c '^| `[^`]*` | `' "$summary")" = 50 ] || fail "the summary should list 50 failing cases"
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
[ "$(output_of "$gh/known-output" failing)" = 0 ] || fail "expected failures counted as failing"

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
grep -qF '| `100%, no: line one line two` |' "$gh/strict.md" ||
  fail "the reader's message is not in the summary: $(cat "$gh/strict.md")"
[ "$(output_of "$gh/strict-output" failing)" = 1 ] || fail "failing: $(cat "$gh/strict-output")"

# A hostile reader, and a name to match: what they print holds Markdown (an
# image fetched by whoever reads the summary), HTML, '&', '|', backticks, an
# ESC sequence and a NUL. In the summary each is a code span shown as written
# (no image, no tag, no HTML entity shown as text, the pipe escaped for the
# table); in the annotation it is escaped, ESC and NUL as \x1b and \x00, and
# the NUL ends no field; no ESC byte reaches the log or the summary.
cat >"$work/hostile.sh" <<'ADAPTER'
#!/usr/bin/env bash
printf '{"verdict":"reject","error":"![t](https://example.invalid/t.png) <img src=x> a|b & ``c`` \\u001b[31mred\\u0000end"}\n'
ADAPTER
chmod +x "$work/hostile.sh"
hostile_name=$'<b>bold</b> ![n](https://example.invalid/n.png) \e[1m'
status=0
GITHUB_STEP_SUMMARY="$gh/hostile.md" GITHUB_OUTPUT="$gh/hostile-output" \
  STGUARD_ACTION_ADAPTER="$work/hostile.sh" STGUARD_ACTION_NAME="$hostile_name" \
  STGUARD_ACTION_CASES="dtypes/f32" STGUARD_ACTION_OUT_DIR="$work/hostile" \
  bash "$source_dir/ci/action.sh" >"$work/hostile.log" 2>&1 || status=$?
[ "$status" = 1 ] || fail "a hostile reader should fail with 1, got $status: $(cat "$work/hostile.log")"
message='![t](https://example.invalid/t.png) <img src=x> a|b & ``c`` \x1b[31mred\x00end'
[ "$(grep -c '^::error' "$work/hostile.log")" = 1 ] ||
  fail "one annotation expected (a NUL ended a field?): $(grep '^::error' "$work/hostile.log")"
grep -qF "::error title=stguard conform%3A dtypes/f32::<b>bold</b> ![n](https://example.invalid/n.png) \\x1b[1m: FAIL_SHOULD_ACCEPT on dtypes/f32" "$work/hostile.log" ||
  fail "the annotation's start: $(grep '^::error' "$work/hostile.log")"
grep -qF "(reader: $message)" "$work/hostile.log" ||
  fail "the reader's message in the annotation: $(grep '^::error' "$work/hostile.log")"
grep -qF '## stguard conformance: `<b>bold</b> ![n](https://example.invalid/n.png) \x1b[1m`' "$gh/hostile.md" ||
  fail "the summary's title: $(head -n 1 "$gh/hostile.md")"
grep -qF '| ```![t](https://example.invalid/t.png) <img src=x> a\|b & ``c`` \x1b[31mred\x00end``` |' "$gh/hostile.md" ||
  fail "the reader's message in the summary: $(grep '^| `' "$gh/hostile.md")"
if grep -qF -e '&lt;' -e 'lt;' -e '&amp;' "$gh/hostile.md"; then
  fail "HTML entities in the summary (shown as written in a code span): $(grep -F 'lt;' "$gh/hostile.md")"
fi
if grep -q $'\e' "$work/hostile.log" "$gh/hostile.md"; then fail "an ESC byte reached the log or the summary"; fi

# An input holding a line break is refused before anything runs: exit status
# 2, an annotation naming it, none of its lines in the log, nothing in
# GITHUB_OUTPUT (where it could have added `passed=999`). cases and tags take
# LF between their words, but no CR.
injected=$'x\n::error::injected\npassed=999'
for input in adapter:ADAPTER name:NAME out-dir:OUT_DIR expectations:EXPECTATIONS \
    write-expectations:WRITE_EXPECTATIONS artifact-name:ARTIFACT jobs:JOBS \
    name:NAME@$'x\r::error::injected' cases:CASES@$'dtypes/f32\r::error::injected'; do
  value="$injected"
  [[ $input != *@* ]] || { value="${input#*@}"; input="${input%%@*}"; }
  rm -f "$gh/refused-output"
  status=0
  env GITHUB_OUTPUT="$gh/refused-output" STGUARD_ACTION_ADAPTER=true STGUARD_ACTION_PLAIN=true \
    STGUARD_ACTION_CASES="dtypes/f32" STGUARD_ACTION_OUT_DIR="$work/refused" \
    "STGUARD_ACTION_${input#*:}=$value" \
    bash "$source_dir/ci/action.sh" >"$work/refused.log" 2>&1 || status=$?
  [ "$status" = 2 ] || fail "${input%%:*} with a line break: status $status, not 2: $(cat "$work/refused.log")"
  grep -q "^::error title=stguard conform::the input ${input%%:*} .*line break" "$work/refused.log" ||
    fail "${input%%:*} with a line break: no annotation naming it: $(cat "$work/refused.log")"
  if tr '\r' '\n' <"$work/refused.log" | grep -q '^::error::injected'; then
    fail "${input%%:*} with a line break: its lines reached the log: $(cat "$work/refused.log")"
  fi
  [ ! -s "$gh/refused-output" ] || fail "${input%%:*} with a line break: outputs $(cat "$gh/refused-output")"
done

# A run that graded nothing sets no counts (0 of 0 failing would read as a
# clean run) and fails: no case matched (stguard's exit status 2), a stguard
# that said 0 but wrote no results, one that could not start.
cat >"$work/silent-stguard" <<'STGUARD'
#!/usr/bin/env bash
exit 0
STGUARD
chmod +x "$work/silent-stguard"
for run in nomatch:2 silent:2 missing:127; do
  case "${run%%:*}" in
    nomatch) binary="$stguard" cases="no-such-group/*" ;;
    silent) binary="$work/silent-stguard" cases="dtypes/f32" ;;
    missing) binary="$work/no-such-stguard" cases="dtypes/f32" ;;
  esac
  status=0
  GITHUB_STEP_SUMMARY="$gh/ungraded.md" GITHUB_OUTPUT="$gh/ungraded-output" \
    STGUARD_ACTION_STGUARD="$binary" STGUARD_ACTION_CASES="$cases" \
    STGUARD_ACTION_ADAPTER=true STGUARD_ACTION_PLAIN=true STGUARD_ACTION_OUT_DIR="$work/ungraded" \
    bash "$source_dir/ci/action.sh" >"$work/ungraded.log" 2>&1 || status=$?
  [ "$status" = "${run#*:}" ] || fail "${run%%:*}: status $status, not ${run#*:}: $(cat "$work/ungraded.log")"
  for count in total passed not-applicable failing; do
    if has_output "$gh/ungraded-output" "$count"; then
      fail "${run%%:*}: a run that graded nothing set $count: $(cat "$gh/ungraded-output")"
    fi
  done
  [ "$(output_of "$gh/ungraded-output" report-dir)" = "$work/ungraded" ] ||
    fail "${run%%:*}: no report-dir: $(cat "$gh/ungraded-output")"
  grep -q '^::error title=stguard conform::reader: the run graded no case' "$work/ungraded.log" ||
    fail "${run%%:*}: no annotation: $(cat "$work/ungraded.log")"
  grep -q '^The run graded no case' "$gh/ungraded.md" || fail "${run%%:*}: summary: $(cat "$gh/ungraded.md")"
  rm -rf "$work/ungraded" "$gh/ungraded.md" "$gh/ungraded-output"
done

# A stguard kept from an earlier run (the action's cache) is used, not rebuilt.
mkdir -p "$work/bin"
ln -s "$stguard" "$work/bin/stguard"
# Its cases on lines of their own, as a YAML block would give them.
STGUARD_ACTION_STGUARD='' STGUARD_ACTION_BIN_DIR="$work/bin" STGUARD_ACTION_ADAPTER="$stguard adapter" \
  STGUARD_ACTION_CASES=$'dtypes/f32\ndtypes/bf16\n' STGUARD_ACTION_OUT_DIR="$work/cached" \
  bash "$source_dir/ci/action.sh" >"$work/cached.log" 2>&1 ||
  fail "the cached stguard did not run: $(cat "$work/cached.log")"
grep -q 'using the stguard built by an earlier run' "$work/cached.log" || fail "the cache was not used"
grep -q '"case":"dtypes/bf16"' "$work/cached/results.jsonl" || fail "cases on lines of their own were not run"
key="$(bash "$source_dir/ci/action.sh" --cache-key)"
[[ "$key" =~ ^[0-9a-f]{32}$ ]] || fail "cache key: '$key'"
echo "action_test: ok"
rm -rf "$work"
