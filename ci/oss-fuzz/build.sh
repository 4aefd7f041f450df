#!/bin/bash -eu
# OSS-Fuzz build: every harness with $CXX $CXXFLAGS $LIB_FUZZING_ENGINE
# (libFuzzer or AFL++ driver, any sanitizer) into $OUT, with its .options,
# .dict and <harness>_seed_corpus.zip. The work is in the repository's
# ci/fuzz-oss-build.sh, so the build stays in step with the project.
"$SRC/stguard/ci/fuzz-oss-build.sh"
