#!/usr/bin/env bash
# Installs the bundled third-party readers of `stguard conform`: `npm ci` in
# every conformance/adapters/<reader>/ that has a package-lock.json, exactly
# the versions its lockfile pins (from the npm registry). Installs Node.js and
# npm first when missing (ci/install-deps.sh readers).
#   ci/setup-readers.sh            all readers
#   ci/setup-readers.sh NAME...    only these (directory names)
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

ci/install-deps.sh readers

readers=("$@")
if [ "${#readers[@]}" -eq 0 ]; then
  for lock in conformance/adapters/*/package-lock.json; do
    [ -e "$lock" ] && readers+=("$(basename "$(dirname "$lock")")")
  done
fi
for name in "${readers[@]}"; do
  dir="conformance/adapters/$name"
  if [ ! -f "$dir/package-lock.json" ]; then
    echo "setup-readers: $dir has no package-lock.json" >&2
    exit 2
  fi
  echo "setup-readers: $name: npm ci"
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
done
