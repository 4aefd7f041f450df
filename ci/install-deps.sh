#!/usr/bin/env bash
# Installs the Debian 12 packages stguard needs, only those missing.
# Usage: ci/install-deps.sh [build|bench|fuzz|readers|all]   (default: build)
# readers: Node.js and npm for the JavaScript readers `stguard conform` grades,
# and Python 3 for the worked example adapters (conformance/adapters/example/;
# each skipped when its command is already on PATH, whatever installed it).
# jq reads `stguard conform`'s results.jsonl for the GitHub Action's job
# summary and annotations (ci/action.sh; its test runs in the test command).
# libcurl4-openssl-dev: checking files over HTTP (remote/); nginx-light: the
# real HTTP server the remote tests start on the loopback address, and
# openssl the self-signed certificate of its https tests.
# pybind11-dev, python3-dev and python3-pytest build and test the Python
# package (python/, docs/python.md); python3-venv is what it installs into.
# Runs as root on a fresh machine (apt-get); as another user it only reports.
set -euo pipefail

profile="${1:-build}"
packages=(cmake make pkg-config clang-14 g++-12 libclang-rt-14-dev llvm-14
          nlohmann-json3-dev libgtest-dev libgmock-dev libssl-dev libcli11-dev libarchive-dev
          libcurl4-openssl-dev nginx-light openssl
          clang-format-14 clang-tidy-14 jq
          pybind11-dev python3-dev python3-venv python3-pytest)
case "$profile" in
  build) ;;
  bench) packages+=(libbenchmark-dev libsimdjson-dev time) ;;
  fuzz) packages+=(afl++ lld-14) ;;
  readers) ;;
  all) packages+=(libbenchmark-dev libsimdjson-dev time afl++ lld-14) ;;
  *) echo "usage: $0 [build|bench|fuzz|readers|all]" >&2; exit 2 ;;
esac
# Node.js brings npm in some distributions of it (NodeSource) and not in
# Debian's: ask for each only when its command is missing.
if [ "$profile" = readers ] || [ "$profile" = all ]; then
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
  command -v python3 >/dev/null 2>&1 || packages+=(python3)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present ($profile)"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: not root; install these packages first: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
