#!/bin/bash
# jetfuse's own host cost per cached call, on any machine (no GPU needed): builds the fake driver
# and host_path.cpp against a build of jetfuse with the CUDA backend (default build/dev) and runs
# it (CASE=small, new or stencil: one case; CASE=check: the ctest's run); `PERF=1` records one case (default small) with perf and
# prints the top of the report.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/dev}
OUTDIR=${OUTDIR:-/tmp/jf-host-path}
mkdir -p "$OUTDIR"
CUDA_INC=$(dirname "$(find /usr/local/cuda/include /usr/include -maxdepth 1 -name cuda.h 2>/dev/null | head -1)")
c++ -std=c++20 -O2 -shared -fPIC -I"$CUDA_INC" bench/host_path/fake_libcuda.cpp -o "$OUTDIR/libcuda.so.1"
c++ -std=c++20 -O2 -g -DNDEBUG -Iinclude -I"$BUILD/include" -I/usr/include/eigen3 bench/host_path/host_path.cpp \
  -o "$OUTDIR/host_path" -L"$BUILD" -ljetfuse -L"$(dirname "$CUDA_INC")/lib64" -lnvrtc -ldl -lpthread
export LD_LIBRARY_PATH="$OUTDIR:$(dirname "$CUDA_INC")/lib64:${LD_LIBRARY_PATH:-}"
export JF_CACHE_DIR="$OUTDIR/cache"
if [ "${PERF:-0}" = 1 ]; then
  perf record -F 20000 -o "$OUTDIR/perf.data" "$OUTDIR/host_path" "${CASE:-small}" > /dev/null
  perf report -i "$OUTDIR/perf.data" --no-children --stdio 2>/dev/null | grep -v "^#" | grep -E "^ +[0-9]" | head -40
else
  "$OUTDIR/host_path" "${CASE:-}"
fi
