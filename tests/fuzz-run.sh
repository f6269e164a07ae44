#!/bin/sh
# fuzz-run.sh BUILD SECONDS [TARGET...]: runs every libFuzzer target of a
# -Dfuzz=true build for SECONDS each on average, the time split by coverage
# growth, FUZZ_JOBS at a time (tests/fuzz-run.py says how).
exec python3 "$(dirname "$0")/fuzz-run.py" "$@"
