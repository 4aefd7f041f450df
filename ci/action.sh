#!/usr/bin/env bash
# What the GitHub Action (action.yml) runs: grade one reader against the
# corpus, then report in the job. Inputs come as environment variables, so the
# action and a local run (tests/install/action_test.sh) take exactly the same
# path:
#   STGUARD_ACTION_ADAPTER      the adapter command (required)
#   STGUARD_ACTION_NAME         the reader's name in reports (default "reader");
#                               any text: characters stguard does not take in a
#                               name (blanks, ...) become '-' for it
#   STGUARD_ACTION_PLAIN        "true": grade by exit status alone
#   STGUARD_ACTION_EXPECTATIONS an expectations file (known failures)
#   STGUARD_ACTION_WRITE_EXPECTATIONS  write this run's failures there, in the
#                               expectations format (shown in the summary)
#   STGUARD_ACTION_CASES        case id globs, blank- or newline-separated
#   STGUARD_ACTION_TAGS         tags, blank- or newline-separated
#   STGUARD_ACTION_JOBS         adapter processes at a time (default: one per CPU)
#   STGUARD_ACTION_TIMEOUT      seconds per case (default 10)
#   STGUARD_ACTION_MEMORY_MB    address-space limit per adapter process in MB
#                               (default 2048; 0 = none, for sanitizer builds)
#   STGUARD_ACTION_STGUARD      a stguard binary to use (default: build one)
#   STGUARD_ACTION_BIN_DIR      where a built stguard is kept between runs (the
#                               action caches it); reused when it holds one
#   STGUARD_ACTION_OUT_DIR      where the reports go (default stguard-conform)
#   STGUARD_ACTION_ARTIFACT     the artifact's name (default
#                               stguard-conform-JOB[-INDEX]-NAME)
#   STGUARD_ACTION_JOB_INDEX    the matrix job's index, for that default
# and GitHub's own, when set: GITHUB_STEP_SUMMARY (a Markdown summary is
# appended), GITHUB_OUTPUT (outputs total, passed, failing, report-dir,
# artifact-name are appended), GITHUB_JOB. One `::error` annotation per
# failing case goes to stdout, the first 50, then one saying how many more.
#
# `ci/action.sh --cache-key` prints a key for the built stguard: a hash of
# the sources it is built from.
#
# Exit status: stguard conform's (0 nothing unexpected failed, 1 some case
# failed, 2 the run could not happen).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

if [ "${1:-}" = --cache-key ]; then
  # The action is downloaded without its git history, so its commit is not at
  # hand; the content of what the build reads stands for it.
  cd "$here"
  find CMakeLists.txt CMakePresets.json cmake parser base verify conformance cli docs \
    -type f ! -path 'conformance/adapters/*' -print0 | LC_ALL=C sort -z |
    xargs -0 sha256sum | sha256sum | cut -c1-32
  exit 0
fi

adapter="${STGUARD_ACTION_ADAPTER:?STGUARD_ACTION_ADAPTER: the adapter command is required}"
name="${STGUARD_ACTION_NAME:-reader}"
out_dir="${STGUARD_ACTION_OUT_DIR:-stguard-conform}"
stguard="${STGUARD_ACTION_STGUARD:-}"
bin_dir="${STGUARD_ACTION_BIN_DIR:-}"
# At most this many failing cases are annotated and listed in the summary.
max_listed=50

# stguard takes 1-64 of A-Z a-z 0-9 . _ + - as a reader's name.
reader_name="$(printf '%s' "$name" | LC_ALL=C tr -c 'A-Za-z0-9._+-' '-' | cut -c1-64)"
[ -n "$reader_name" ] || reader_name=reader

if [ -z "$stguard" ] && [ -n "$bin_dir" ] && [ -x "$bin_dir/stguard" ]; then
  stguard="$bin_dir/stguard"
  echo "action: using the stguard built by an earlier run ($stguard)"
fi
if [ -z "$stguard" ]; then
  # Build the command alone (no tests, no fuzzers), from this action's sources.
  if [ "$(id -u)" -eq 0 ]; then
    "$here/ci/install-deps.sh" build
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$here/ci/install-deps.sh" build
  fi
  build="${RUNNER_TEMP:-/tmp}/stguard-action-build"
  cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTGUARD_BUILD_TESTS=OFF \
    -DSTGUARD_BUILD_FUZZERS=OFF -DSTGUARD_INSTALL=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target stguard_cli >/dev/null
  stguard="$build/cli/stguard"
  if [ -n "$bin_dir" ]; then
    mkdir -p "$bin_dir"
    cp "$stguard" "$bin_dir/stguard"
    stguard="$bin_dir/stguard"
  fi
fi
if [ -z "${STGUARD_ACTION_STGUARD:-}" ]; then
  # A stguard built here reads the corpus of these sources, wherever it is kept.
  export STGUARD_DATA_DIR="$here"
fi
command -v jq >/dev/null 2>&1 ||
  { echo "action: jq is needed for the reports (ci/install-deps.sh installs it)" >&2; exit 2; }

args=(conform --adapter "$adapter" --name "$reader_name" --out-dir "$out_dir" --quiet
      --markdown "$out_dir/matrix.md"
      --timeout "${STGUARD_ACTION_TIMEOUT:-10}" --memory-mb "${STGUARD_ACTION_MEMORY_MB:-2048}")
case "${STGUARD_ACTION_PLAIN:-false}" in
  true) args+=(--plain) ;;
  false|"") ;;
  *) echo "action: plain is true or false, got '$STGUARD_ACTION_PLAIN'" >&2; exit 2 ;;
esac
if [ -n "${STGUARD_ACTION_JOBS:-}" ]; then args+=(-j "$STGUARD_ACTION_JOBS"); fi
if [ -n "${STGUARD_ACTION_EXPECTATIONS:-}" ]; then
  args+=(--expectations "$STGUARD_ACTION_EXPECTATIONS")
fi
if [ -n "${STGUARD_ACTION_WRITE_EXPECTATIONS:-}" ]; then
  args+=(--write-expectations "$STGUARD_ACTION_WRITE_EXPECTATIONS")
fi
set -f  # the globs are stguard's to match against case ids, not the shell's
for glob in ${STGUARD_ACTION_CASES:-}; do args+=(--case "$glob"); done
for tag in ${STGUARD_ACTION_TAGS:-}; do args+=(--tag "$tag"); done
set +f

mkdir -p "$out_dir"
echo "action: $stguard ${args[*]}"
status=0
"$stguard" "${args[@]}" || status=$?

# --- Reporting in the job: outputs, annotations, the step summary. ---

# GitHub's workflow commands: % CR LF escaped in a message, and : , too in a
# property's value.
escape_data() {
  local s="$1"
  s="${s//'%'/%25}"
  s="${s//$'\r'/%0D}"
  s="${s//$'\n'/%0A}"
  printf '%s' "$s"
}
escape_property() {
  local s
  s="$(escape_data "$1")"
  s="${s//:/%3A}"
  s="${s//,/%2C}"
  printf '%s' "$s"
}
# Text for a Markdown table cell: one line, no markup from the reader.
md_cell() {
  local s="$1"
  s="${s//$'\r'/ }"
  s="${s//$'\n'/ }"
  s="${s//&/&amp;}"
  s="${s//</&lt;}"
  s="${s//>/&gt;}"
  s="${s//|/\\|}"
  s="${s//\`/\\\`}"
  printf '%s' "$s"
}

artifact="${STGUARD_ACTION_ARTIFACT:-}"
if [ -z "$artifact" ]; then
  artifact="stguard-conform-${GITHUB_JOB:-local}${STGUARD_ACTION_JOB_INDEX:+-$STGUARD_ACTION_JOB_INDEX}-$reader_name"
fi
results="$out_dir/results.jsonl"
# The results of cases (not a skipped or stopped reader's line).
jq_cases='select(.case != null)'
jq_passes='(.grade == "PASS" or .grade == "IMPL_ACCEPT" or .grade == "IMPL_REJECT")'
# NOT_APPLICABLE (a case newer than the release the reader implements) is
# counted apart: neither passed nor failing.
jq_na='(.grade == "NOT_APPLICABLE")'
total=0 passed=0 failing=0 xfail=0 xpass=0 not_applicable=0
if [ -s "$results" ]; then
  read -r total passed failing xfail xpass not_applicable < <(jq -rs "[.[] | $jq_cases] |
    [length, (map(select($jq_passes)) | length),
     (map(select(($jq_passes | not) and ($jq_na | not) and .expectation != \"XFAIL\")) | length),
     (map(select(.expectation == \"XFAIL\")) | length),
     (map(select(.expectation == \"XPASS\")) | length),
     (map(select($jq_na)) | length)] | @tsv" "$results")
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "total=$total"
    echo "passed=$passed"
    echo "not-applicable=$not_applicable"
    echo "failing=$failing"
    echo "report-dir=$out_dir"
    echo "artifact-name=$artifact"
  } >>"$GITHUB_OUTPUT"
fi

# The failing cases, NUL-separated fields: case, grade, the runner's detail,
# the reader's own message (each cut to 500 characters).
failures() {
  jq -j "$jq_cases | select(($jq_passes | not) and .expectation != \"XFAIL\") |
    .case, \"\u0000\", .grade, \"\u0000\", ((.detail // \"\")[0:500]), \"\u0000\",
    ((.error // \"\")[0:500]), \"\u0000\"" "$results"
}

listed=0
if [ -s "$results" ]; then
  while IFS= read -r -d '' case_id && IFS= read -r -d '' grade &&
        IFS= read -r -d '' detail && IFS= read -r -d '' error; do
    listed=$((listed + 1))
    [ "$listed" -le "$max_listed" ] || continue
    message="$name: $grade on $case_id"
    [ -z "$detail" ] || message+=": $detail"
    [ -z "$error" ] || message+=" (reader: $error)"
    echo "::error title=$(escape_property "stguard conform: $case_id")::$(escape_data "$message")"
  done < <(failures)
fi
if [ "$failing" -gt "$max_listed" ]; then
  echo "::error title=stguard conform::$((failing - max_listed)) more failing cases (the job summary and $(escape_data "$out_dir")/summary.txt list them)"
fi

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  corpus_version=""
  if [ -f "$out_dir/matrix.md" ]; then
    corpus_version="$(sed -n 's/^Corpus version \([^,]*\),.*/\1/p' "$out_dir/matrix.md")"
    corpus_version="${corpus_version%%$'\n'*}"
  fi
  version="$("$stguard" --version 2>/dev/null || true)"
  version="${version%%$'\n'*}"
  {
    echo "## stguard conformance: $(md_cell "$name")"
    echo
    if [ ! -s "$results" ]; then
      echo "The run could not happen (exit status $status); the log of this step says why."
    else
      echo "Corpus version ${corpus_version:-unknown}, $(md_cell "$version"), exit status $status:" \
        "**$total cases, $passed passed, $failing failing**, $xfail expected failures (XFAIL)," \
        "$xpass listed failures that passed (XPASS)."
      echo
      echo "| grade | cases |"
      echo "|---|--:|"
      jq -rs "[.[] | $jq_cases | .grade] | group_by(.) | map(\"| \(.[0]) | \(length) |\") | .[]" \
        "$results"
      if [ "$failing" -gt 0 ]; then
        echo
        echo "### Failing cases"
        echo
        echo "| case | grade | what happened | the reader's message |"
        echo "|---|---|---|---|"
        n=0
        while IFS= read -r -d '' case_id && IFS= read -r -d '' grade &&
              IFS= read -r -d '' detail && IFS= read -r -d '' error; do
          n=$((n + 1))
          [ "$n" -le "$max_listed" ] || continue
          [ "${#error}" -le 200 ] || error="${error:0:200}…"
          echo "| \`$case_id\` | $grade | $(md_cell "$detail") | $(md_cell "$error") |"
        done < <(failures)
        if [ "$failing" -gt "$max_listed" ]; then
          echo
          echo "… and $((failing - max_listed)) more: \`summary.txt\` in the artifact lists them all."
        fi
      fi
    fi
    written="${STGUARD_ACTION_WRITE_EXPECTATIONS:-}"
    if [ -n "$written" ] && [ -f "$written" ]; then
      echo
      echo "### Expectations written to \`$(md_cell "$written")\`"
      echo
      echo "$(wc -l <"$written") lines; commit it and pass it as \`expectations\` to accept these failures as known:"
      echo
      echo '<details><summary>the file</summary>'
      echo
      echo '````'
      head -n 200 "$written"
      [ "$(wc -l <"$written")" -le 200 ] || echo "… (cut at 200 lines)"
      echo '````'
      echo
      echo '</details>'
    fi
    echo
    echo "Reports: \`$(md_cell "$out_dir")\` (artifact \`$(md_cell "$artifact")\`): summary.txt, results.jsonl, junit.xml, matrix.html, matrix.md."
  } >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
