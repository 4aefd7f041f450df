#!/bin/bash -eu
# ClusterFuzzLite build: every harness with $CXX $CXXFLAGS $LIB_FUZZING_ENGINE
# into $OUT, with its .options, .dict and <harness>_seed_corpus.zip. The work
# is in the repository's ci/fuzz-oss-build.sh (shared with OSS-Fuzz, and
# runnable locally).
"$SRC/stguard/ci/fuzz-oss-build.sh"
