#!/bin/bash
# jetfuse's own host cost per cached call, on any machine (no GPU needed): builds the stand-in
# driver and host_path.cpp in a build of jetfuse with the CUDA backend and its tests (default
# build/dev) and runs it (CASE=small, new, stencil or put: one case; CASE=check: the ctest's run;
# CASE=first: the first call in a new process, its kernel from the disk cache, median of 21 processes;
# CASE=first-warm: the same after another expression's first call in that process);
# `PERF=1` records one case (default small) with perf and prints the top of the report.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/dev}
OUTDIR=${OUTDIR:-/tmp/jf-host-path}
mkdir -p "$OUTDIR"
# The same targets as ctest host_path_stand_in_driver (tests/CMakeLists.txt).
cmake --build "$BUILD" --target host_path jf_stand_in_cuda > /dev/null
export LD_LIBRARY_PATH="$BUILD/tests/stand_in_cuda:${LD_LIBRARY_PATH:-}"
export JF_CACHE_DIR="$OUTDIR/cache"
if [ "${CASE:-}" = first ] || [ "${CASE:-}" = first-warm ]; then
  "$BUILD/tests/host_path" "$CASE" > /dev/null 2>&1  # fills the disk cache
  for i in $(seq 21); do "$BUILD/tests/host_path" "$CASE" 2>/dev/null | sed -n 's/^first call in the process: \([0-9]*\) us.*/\1/p'; done |
    sort -n | awk '{v[NR] = $1} END {printf "first call in a new process, from the disk cache: %d us (median of %d; %d-%d)\n", v[int((NR + 1) / 2)], NR, v[1], v[NR]}'
elif [ "${PERF:-0}" = 1 ]; then
  perf record -F 20000 -o "$OUTDIR/perf.data" "$BUILD/tests/host_path" "${CASE:-small}" > /dev/null
  perf report -i "$OUTDIR/perf.data" --no-children --stdio 2>/dev/null | grep -v "^#" | grep -E "^ +[0-9]" | head -40
else
  "$BUILD/tests/host_path" "${CASE:-}"
fi
