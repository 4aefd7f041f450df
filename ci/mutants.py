#!/usr/bin/env python3
"""Operator mutants of the parser, graded by the corpus.

    ci/mutants.py [--sample N] [--seed S] [--files GLOB ...] [--list]
                  [--work DIR] [--jobs J] [--timeout SECONDS] [--report FILE]
                  [--before-corpus DIR]

Each mutant changes one operator in parser/src/ (a comparison's strictness,
== and !=, && and ||, + 1 and - 1, a dropped !), in a copy of the tree (the
checkout is never touched). The copy's parser is built with
stguard_corpus_answers (tests/parser/corpus_answers.cc), which prints every
corpus case's answer in both profiles with every fast path on and with the
plain path alone; a mutant is

  killed     when some answer changes, or the program crashes or times out;
  survived   when every answer is the same: no corpus case notices it;
  invalid    when it does not compile (not counted in the score).

The score is killed / (killed + survived). A survivor is either an
equivalent mutant (no input can tell it apart: argue why in
docs/mutation.md) or a check the corpus does not defend (add the case).

Sites are found in the code with comments, strings and preprocessor lines
blanked out, and only where clang-format puts spaces around a binary
operator (` < `), so that templates and includes are left alone. All the
mutants of parser/src/ take hours (a rebuild each); --sample N grades N of
them drawn with --seed, --files limits them to some files, --list prints
them and stops. The report (--report, default stdout) lists every mutant
with its grade. --before-corpus DIR grades each mutant by a second corpus
too (an earlier version, from `git archive REV corpus`, say), so that one
run gives the score before and after cases were added. Exit status: 0 when
it ran (survivors are the result), 2 when it could not (the baseline failed
to build or run).
"""

import argparse
import fnmatch
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The files that read a header in memory, which is what the corpus run
# exercises (not the writer, the linter, the file and window code, or the
# test-only switches of checks.h and layers.h).
READER_FILES = [
    "parser/src/header.cc", "parser/src/header_scanner.*", "parser/src/json_lexer.*",
    "parser/src/json_syntax*", "parser/src/layout.*", "parser/src/name_index.*",
    "parser/src/tensor_entry.cc", "parser/src/utf8.*", "parser/src/dtype*",
    "parser/src/error.cc", "parser/src/sizes.h", "parser/src/little_endian.h",
    "parser/src/message.h", "parser/src/scanned_header.h", "parser/src/kernels/*",
]

# (pattern, replacement, name): each pattern matches one operator with the
# spaces clang-format puts around it.
OPERATORS = [
    (" <= ", " < ", "<= to <"),
    (" < ", " <= ", "< to <="),
    (" >= ", " > ", ">= to >"),
    (" > ", " >= ", "> to >="),
    (" == ", " != ", "== to !="),
    (" != ", " == ", "!= to =="),
    (" && ", " || ", "&& to ||"),
    (" || ", " && ", "|| to &&"),
    (" + 1", " - 1", "+ 1 to - 1"),
    (" - 1", " + 1", "- 1 to + 1"),
]
# A `!` in front of a name or a parenthesis (not `!=`), dropped.
NOT = re.compile(r"(?<=[\s(])!(?=[A-Za-z_(])")


def blanked(text):
    """The text with comments, string and character literals and
    preprocessor lines replaced by spaces (same length, newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and text[i:].lstrip(" ").startswith("#"):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def find_mutants(files):
    """Every (file, offset, old, new, name, line) in the given files."""
    mutants = []
    for rel in files:
        text = open(os.path.join(ROOT, rel), encoding="utf-8").read()
        code = blanked(text)
        for old, new, name in OPERATORS:
            start = 0
            while True:
                at = code.find(old, start)
                if at < 0:
                    break
                start = at + 1
                # "+ 1" must be the whole number (not + 16) and not "<< 1".
                if old.endswith("1") and at + len(old) < len(code) and code[at + len(old)].isalnum():
                    continue
                if old in (" < ", " > ") and (code[at - 1] in "<>" or code[at + 3:at + 4] in "<>="):
                    continue
                line = text.count("\n", 0, at) + 1
                mutants.append((rel, at, old, new, name, line))
        for m in NOT.finditer(code):
            line = text.count("\n", 0, m.start()) + 1
            mutants.append((rel, m.start(), "!", "", "drop !", line))
    mutants.sort(key=lambda m: (m[0], m[1], m[4]))
    return mutants


def run(cmd, cwd, timeout=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout, text=True, errors="replace")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=0, help="grade N mutants drawn at random")
    parser.add_argument("--seed", type=int, default=1, help="the draw's seed (default 1)")
    parser.add_argument("--files", nargs="*", default=READER_FILES,
                        help="globs of files relative to the checkout (default: the header "
                             "reader's files in parser/src/)")
    parser.add_argument("--lines", nargs="+", default=[],
                        help="only the mutants at these places, FILE:LINE as --list prints them "
                             "(to grade listed survivors again)")
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument("--work", help="the scratch copy and its build (default: a temporary folder)")
    parser.add_argument("--jobs", type=int, default=2, help="build jobs (default 2)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per corpus run (default 60)")
    parser.add_argument("--report", help="write the report here (default stdout)")
    parser.add_argument("--before-corpus",
                        help="also grade each mutant by this corpus folder (an earlier version)")
    args = parser.parse_args()

    if args.before_corpus and not os.path.isfile(os.path.join(args.before_corpus, "manifest.json")):
        print(f"mutants.py: --before-corpus {args.before_corpus}: no manifest.json there "
              "(a corpus folder, e.g. from `git archive REV corpus`)", file=sys.stderr)
        return 2
    tracked = run(["git", "ls-files"], ROOT).stdout.split()
    files = sorted(f for f in tracked if any(fnmatch.fnmatch(f, g) for g in args.files))
    if not files:
        print(f"mutants.py: no tracked file matches {args.files}", file=sys.stderr)
        return 2
    mutants = find_mutants(files)
    if args.lines:
        wanted = set(args.lines)
        mutants = [m for m in mutants if f"{m[0]}:{m[5]}" in wanted]
        if not mutants:
            print(f"mutants.py: no mutant at {' '.join(args.lines)}", file=sys.stderr)
            return 2
    if args.sample and args.sample < len(mutants):
        mutants = sorted(random.Random(args.seed).sample(mutants, args.sample),
                         key=lambda m: (m[0], m[1]))
    if args.list:
        for rel, _, old, new, name, line in mutants:
            print(f"{rel}:{line}: {name}")
        print(f"{len(mutants)} mutants in {len(files)} files")
        return 0

    work = args.work or tempfile.mkdtemp(prefix="stguard-mutants-")
    tree, build = os.path.join(work, "tree"), os.path.join(work, "build")
    # The tracked files as they are in the checkout now (edits included).
    if os.path.exists(tree):
        shutil.rmtree(tree)
    for rel in tracked:
        if not os.path.isfile(os.path.join(ROOT, rel)):
            continue
        os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(tree, rel))
    configure = run(["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                     "-DCMAKE_CXX_COMPILER=clang++-14"], work)
    if configure.returncode != 0:
        print(configure.stdout[-3000:], file=sys.stderr)
        return 2
    target = ["cmake", "--build", build, "-j", str(args.jobs), "--target", "stguard_corpus_answers"]
    answers_program = os.path.join(build, "tests", "parser", "stguard_corpus_answers")
    corpora = {"now": os.path.join(tree, "corpus")}
    if args.before_corpus:
        corpora["before"] = os.path.abspath(args.before_corpus)

    def answers(corpus):
        try:
            r = subprocess.run([answers_program, corpora[corpus]], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return None, "timeout"
        return r.stdout, ("exit %d" % r.returncode if r.returncode != 0 else "")

    built = run(target, work)
    if built.returncode != 0:
        print(built.stdout[-3000:], file=sys.stderr)
        return 2
    baselines = {}
    for corpus, folder in corpora.items():
        baselines[corpus], why = answers(corpus)
        if baselines[corpus] is None or why:
            print(f"mutants.py: the unmutated parser does not run on {folder}: {why}",
                  file=sys.stderr)
            return 2

    def grade_by(corpus):
        got, why = answers(corpus)
        if got is None or why:
            return "killed", why
        if got != baselines[corpus]:
            changed = sum(1 for a, b in zip(got.splitlines(), baselines[corpus].splitlines())
                          if a != b)
            return "killed", f"{changed} answers change"
        return "survived", ""

    out = open(args.report, "w") if args.report else sys.stdout
    counts = {"killed": 0, "survived": 0, "invalid": 0}
    before_counts = {"killed": 0, "survived": 0}
    print(f"# {len(mutants)} mutants of {len(files)} files", file=out, flush=True)
    for rel, at, old, new, name, line in mutants:
        path = os.path.join(tree, rel)
        original = open(path, encoding="utf-8").read()
        before = ""
        try:
            open(path, "w", encoding="utf-8").write(original[:at] + new + original[at + len(old):])
            if run(target, work).returncode != 0:
                grade, detail = "invalid", "does not compile"
            else:
                grade, detail = grade_by("now")
                if "before" in corpora:
                    before, _ = grade_by("before")
                    before_counts[before] += 1
        finally:
            open(path, "w", encoding="utf-8").write(original)
        counts[grade] += 1
        print(f"{grade:9} {rel}:{line}: {name}" + (f" ({detail})" if detail else "") +
              (f" [before: {before}]" if before else ""), file=out, flush=True)
    run(target, work)  # leave the build as the tree is
    graded = counts["killed"] + counts["survived"]
    score = f"{100.0 * counts['killed'] / graded:.1f}%" if graded else "n/a"
    print(f"# killed {counts['killed']}, survived {counts['survived']}, invalid "
          f"{counts['invalid']}: score {score}", file=out, flush=True)
    if "before" in corpora and graded:
        print(f"# by the before corpus: killed {before_counts['killed']}, survived "
              f"{before_counts['survived']}: score "
              f"{100.0 * before_counts['killed'] / graded:.1f}%", file=out, flush=True)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
