#!/usr/bin/env bash
# tests/precommit/hook_test.sh STGUARD WORKDIR: runs the `stguard-check` hook of
# .pre-commit-hooks.yaml as pre-commit would (its entry, with the staged file
# names as arguments) on a good file, a broken one and a Git LFS pointer, with
# STGUARD standing in for the installed `stguard`.
set -euo pipefail
stguard="$1"
work="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
rm -rf "$work"
mkdir -p "$work"

# The hook's entry, as written in the file (one hook, one entry line).
entry="$(sed -n 's/^  entry: //p' "$root/.pre-commit-hooks.yaml")"
[ "$entry" = "stguard check" ] || { echo "unexpected entry: '$entry'"; exit 1; }
files_pattern="$(sed -n 's/^  files: //p' "$root/.pre-commit-hooks.yaml")"
run_hook() { "$stguard" "${entry#stguard }" "$@"; }

cp "$root/examples/seed-example.safetensors" "$work/good.safetensors"
head -c 100 "$root/examples/seed-example.safetensors" > "$work/truncated.safetensors"
printf 'version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize 4\n' \
  "$(printf '%064d' 0)" > "$work/pointer.safetensors"
for f in good truncated pointer; do
  echo "$f.safetensors" | grep -Eq "$files_pattern" || { echo "$f not matched by files:"; exit 1; }
done
echo "notes.txt" | grep -Eq "$files_pattern" && { echo "files: matches notes.txt"; exit 1; }

run_hook "$work/good.safetensors" > "$work/good.out" || { cat "$work/good.out"; exit 1; }
status=0
run_hook "$work/good.safetensors" "$work/truncated.safetensors" "$work/pointer.safetensors" \
  > "$work/bad.out" || status=$?
[ "$status" -eq 1 ] || { echo "exit $status, not 1, for bad files"; cat "$work/bad.out"; exit 1; }
grep -q 'good.safetensors: accept' "$work/bad.out"
grep -q 'truncated.safetensors: reject' "$work/bad.out"
grep -q 'pointer.safetensors: reject .*Git LFS pointer' "$work/bad.out" ||
  { cat "$work/bad.out"; exit 1; }
echo "hook_test: good accepted, truncated and LFS pointer rejected (exit 1)"
