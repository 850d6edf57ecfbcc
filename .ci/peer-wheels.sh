#!/usr/bin/env bash
# Downloads, on a machine with network, the wheels the GPU machine lacks for the peers' Awkward
# columns (awkward 2.14.0, awkward-cpp 57, fsspec, cuda-cccl 1.2.1, whose cuda.compute Awkward's
# cuda backend imports) into .whl/ (git-ignored), for Python 3.12 on manylinux x86_64.
# `.ci/gpu-check table` installs them there when .whl/ travels with the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
platforms=()
for n in 17 24 26 27 28 31 34 35; do platforms+=(--platform "manylinux_2_${n}_x86_64"); done
platforms+=(--platform manylinux2014_x86_64 --platform manylinux1_x86_64)
for w in awkward==2.14.0 awkward-cpp==57 fsspec cuda-cccl==1.2.1; do
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    "${platforms[@]}" -d .whl "$w"
done
ls .whl
