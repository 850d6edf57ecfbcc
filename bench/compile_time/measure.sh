#!/usr/bin/env bash
# Compile time and peak compiler memory of one user file with 20 element-wise expressions written
# with jetfuse, against the same expressions written with plain Eigen (g++ -O3 -c, one at a time).
#   bash bench/compile_time/measure.sh [include-dir-of-jetfuse]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
inc=${1:-$here/../../include}
eigen=$(pkg-config --cflags eigen3 2>/dev/null || echo -I/usr/include/eigen3)
out=$(mktemp -d)
for f in jetfuse_20 eigen_20; do
  /usr/bin/time -f "$f: %e s wall, %M KB max RSS" g++ -std=c++20 -O3 -I"$inc" $eigen -c "$here/$f.cpp" -o "$out/$f.o"
done
rm -rf "$out"
