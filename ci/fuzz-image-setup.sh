#!/bin/bash -eu
# What stguard's fuzz build needs on top of OSS-Fuzz's base-builder image
# (clang, libFuzzer, AFL++, sanitizer runtimes), whose Ubuntu lacks them:
# make and zip, CMake >= 3.25 and nlohmann/json >= 3.10 (header-only; only
# fuzz_differential uses it). Run once while the image is built, by both
# .clusterfuzzlite/Dockerfile and ci/oss-fuzz/Dockerfile; never by a build
# or test of the project itself.
apt-get update
apt-get install -y --no-install-recommends make zip
rm -rf /var/lib/apt/lists/*
python3 -m pip install --no-cache-dir 'cmake>=3.25,<4'
json_src="$SRC/nlohmann-json"
git clone --depth 1 --branch v3.11.3 https://github.com/nlohmann/json.git "$json_src"
cmake -S "$json_src" -B "$json_src/build" -DJSON_BuildTests=OFF -DJSON_Install=ON \
  -DCMAKE_INSTALL_PREFIX=/usr/local
cmake --install "$json_src/build"
rm -rf "$json_src"
