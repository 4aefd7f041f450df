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
# appended), GITHUB_OUTPUT (outputs total, passed, not-applicable, failing,
# report-dir, artifact-name are appended, each in the `name<<DELIMITER` form),
# GITHUB_JOB. One `::error` annotation per failing case goes to stdout, the
# first 50, then one saying how many more.
#
# Every input is one line: one holding a line break (CR or LF) is refused, exit
# status 2, before anything runs or is written (cases and tags may hold LF
# between their words). Everything a reader printed is shown as text: in code
# spans in the summary, escaped in the annotations, control bytes as \xHH.
#
# `ci/action.sh --cache-key` prints a key for the built stguard: a hash of
# the sources it is built from.
#
# Exit status: stguard conform's (0 nothing unexpected failed, 1 some case
# failed, 2 the run could not happen). A run that graded no case (stguard's
# status 2, a stop by a signal, no results.jsonl or none of the reader's cases
# in it) sets no counts and fails: status 2, or stguard's own when it is
# neither 0 nor 1 (127: it could not start, 130: stopped by SIGINT).
set -euo pipefail
# Bash 5.2 reads '&' in the replacement of ${var//pattern/replacement} as the
# text matched (patsub_replacement); every replacement here means its text as
# written, as in bash 5.1, which has no such option.
shopt -u patsub_replacement 2>/dev/null || true
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

# A line break in an input would end the line it is printed on and start one
# of the runner's own: a `::` workflow command in the log (GitHub ends a line
# at CR as well as LF), or a line of GITHUB_OUTPUT such as `passed=999`. So no
# input holds one, but the lists cases and tags, whose words may be on lines of
# their own (the shell splits them there, so none reaches a line).
for input in adapter:ADAPTER name:NAME plain:PLAIN expectations:EXPECTATIONS \
    write-expectations:WRITE_EXPECTATIONS jobs:JOBS timeout:TIMEOUT memory-mb:MEMORY_MB \
    stguard:STGUARD out-dir:OUT_DIR artifact-name:ARTIFACT bin-dir:BIN_DIR \
    job-index:JOB_INDEX cases:CASES tags:TAGS; do
  variable="STGUARD_ACTION_${input#*:}"
  value="${!variable:-}"
  case "${input%%:*}" in
    cases|tags) breaks=$'\r' ;;
    *) breaks=$'\r\n' ;;
  esac
  if [[ $value == *["$breaks"]* ]]; then
    echo "::error title=stguard conform::the input ${input%%:*} ($variable) holds a line break; an input is one line"
    exit 2
  fi
done

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

# The caller's variable s with its control bytes (C0 but CR and LF, and DEL)
# shown as \xHH, so that a reader's ESC sequence or BEL reaches the log, an
# annotation or the summary as text, never as a byte a terminal or a viewer
# acts on. (It works on s in place, the caller's local: the escapers below run
# for every cell and annotation, and a subshell each would slow a long list.)
show_controls() {
  local hex byte
  # Most text has none: [[:cntrl:]] is a quick look (it counts CR and LF too).
  [[ $s == *[[:cntrl:]]* ]] || return 0
  for hex in 01 02 03 04 05 06 07 08 09 0b 0c 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d \
      1e 1f 7f; do
    printf -v byte '%b' "\\x$hex"
    s="${s//"$byte"/"\\x$hex"}"
  done
}
# GitHub's workflow commands: % CR LF escaped in a message, and : , too in a
# property's value; control bytes shown first.
escape_data() {
  local s="$1"
  show_controls
  s="${s//'%'/%25}"
  s="${s//$'\r'/%0D}"
  s="${s//$'\n'/%0A}"
  if [ "${2:-}" = property ]; then
    s="${s//:/%3A}"
    s="${s//,/%2C}"
  fi
  printf '%s' "$s"
}
escape_property() { escape_data "$1" property; }
# Text for the Markdown summary, shown as it is and never read as markup: a
# code span, inside which Markdown interprets nothing (no image, link or
# autolink, emphasis, HTML tag or character reference; entities would show as
# written there, so none are used). Its fence is one backtick longer than the
# longest run of them in the text, so no run ends it early, with a blank
# inside each end (which Markdown takes off again) when the text starts or
# ends with a backtick or with blanks at both ends. Line breaks become blanks
# (a heading or a table row is one line), other control bytes \xHH. Empty text
# stays empty. With "cell", for a table cell: every '|' escaped too, since a
# table splits its cells before it reads code spans (GFM shows `\|` as '|' in
# the span, and cmark-gfm takes `\|` as an escaped pipe whatever backslashes
# precede it).
md_code() {
  local s="$1" fence='`'
  s="${s//$'\r'/ }"
  s="${s//$'\n'/ }"
  show_controls
  [ -n "$s" ] || return 0
  while [[ $s == *"$fence"* ]]; do fence+='`'; done
  case "$s" in '`'* | *'`' | ' '*' ') s=" $s " ;; esac
  s="$fence$s$fence"
  [ "${2:-}" != cell ] || s="${s//|/\\|}"
  printf '%s' "$s"
}
md_cell() { md_code "$1" cell; }
# One output in the delimiter form (`name<<DELIMITER`, the value, DELIMITER),
# with a random delimiter that the value does not hold: no value can end early
# and add an output line of its own.
set_output() {
  local delimiter
  while :; do
    delimiter="STGUARD_OUTPUT_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    [[ $2 == *"$delimiter"* ]] || break
  done
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"
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
# The counts, when the run graded the reader: stguard ended with 0 or 1 and
# results.jsonl holds its cases, the reader neither skipped nor stopped.
# Anything else grades nothing, and counts of 0 would read as a clean run: no
# counts are set then, and the step fails.
counts=""
if { [ "$status" = 0 ] || [ "$status" = 1 ]; } && [ -s "$results" ]; then
  counts="$(jq -rs "if any(.[]; .skipped == true or .interrupted == true) then empty else
    [.[] | $jq_cases] | select(length > 0) |
    [length, (map(select($jq_passes)) | length),
     (map(select(($jq_passes | not) and ($jq_na | not) and .expectation != \"XFAIL\")) | length),
     (map(select(.expectation == \"XFAIL\")) | length),
     (map(select(.expectation == \"XPASS\")) | length),
     (map(select($jq_na)) | length)] | @tsv end" "$results")" || counts=""
fi
total=0 passed=0 failing=0 xfail=0 xpass=0 not_applicable=0
if [ -n "$counts" ]; then
  graded=true
  read -r total passed failing xfail xpass not_applicable <<<"$counts"
else
  graded=false
  if [ "$status" = 0 ] || [ "$status" = 1 ]; then status=2; fi
  echo "::error title=stguard conform::$(escape_data "$name: the run graded no case (exit status $status); nothing is counted, and the log of this step says why")"
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
  if [ "$graded" = true ]; then
    set_output total "$total"
    set_output passed "$passed"
    set_output not-applicable "$not_applicable"
    set_output failing "$failing"
  fi
  set_output report-dir "$out_dir"
  set_output artifact-name "$artifact"
fi

# The failing cases, NUL-separated fields: case, grade, the runner's detail,
# the reader's own message (each cut to 500 characters). A NUL the reader wrote
# (JSON's \u0000) is shown as \x00, so that it cannot end a field.
failures() {
  jq -j "def field: (. // \"\")[0:500] | split(\"\u0000\") | join(\"\\\\x00\");
    $jq_cases | select(($jq_passes | not) and .expectation != \"XFAIL\") |
    (.case | field), \"\u0000\", (.grade | field), \"\u0000\", (.detail | field), \"\u0000\",
    (.error | field), \"\u0000\"" "$results"
}

listed=0
if [ "$graded" = true ]; then
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
    echo "## stguard conformance: $(md_code "$name")"
    echo
    if [ "$graded" = false ]; then
      echo "The run graded no case (exit status $status), so no counts are set; the log of this step says why."
    else
      echo "Corpus version ${corpus_version:-unknown}, $(md_code "$version"), exit status $status:" \
        "**$total cases, $passed passed, $failing failing**, $xfail expected failures (XFAIL)," \
        "$xpass listed failures that passed (XPASS)."
      echo
      echo "| grade | cases |"
      echo "|---|--:|"
      while IFS=$'\t' read -r grade count; do
        echo "| $(md_cell "$grade") | $count |"
      done < <(jq -rs "[.[] | $jq_cases | .grade] | group_by(.) | map([.[0], length] | @tsv) | .[]" \
        "$results")
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
          echo "| $(md_cell "$case_id") | $(md_cell "$grade") | $(md_cell "$detail") | $(md_cell "$error") |"
        done < <(failures)
        if [ "$failing" -gt "$max_listed" ]; then
          echo
          echo "… and $((failing - max_listed)) more: \`summary.txt\` in the artifact lists them all."
        fi
      fi
    fi
    # A file left from before (a run that graded nothing writes none) is not
    # this run's.
    written="${STGUARD_ACTION_WRITE_EXPECTATIONS:-}"
    if [ "$graded" = true ] && [ -n "$written" ] && [ -f "$written" ]; then
      echo
      echo "### Expectations written to $(md_code "$written")"
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
    echo "Reports: $(md_code "$out_dir") (artifact $(md_code "$artifact")): summary.txt, results.jsonl, junit.xml, matrix.html, matrix.md."
  } >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
