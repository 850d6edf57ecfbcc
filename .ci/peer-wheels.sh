#!/usr/bin/env bash
# Downloads, on a machine with network, the wheels the GPU machine lacks for the peers' Awkward
# columns (awkward 2.14.0, awkward-cpp 57, fsspec, cuda-cccl 1.2.1, whose cuda.compute Awkward's
# cuda backend imports) into .whl/ (git-ignored), for Python 3.12 on manylinux x86_64; and
# numba-cuda-mlir 0.5.4, with which cuda.compute JITs the Python callables of Awkward's cuda
# combinations (the dielectron query). Its wheel (71 MB) and the tree (24 MB) are over a device
# call's 64 MiB, so its installed tree is packed (xz -9e, 47 MB, 2 minutes) and split in two parts
# under .whl-mlir/ (git-ignored): part-00 travels with `.ci/gpu-check stash` in one call (kept under
# build/stash on the warm machine), part-01 with .whl in the `table` call after it.
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
if ! compgen -G ".whl-mlir/numba_cuda_mlir-0.5.4.tar.xz.part-*" >/dev/null; then
  tmp=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    "${platforms[@]}" -d "$tmp" "numba-cuda-mlir==0.5.4"
  unzip -q "$tmp"/*.whl -d "$tmp/tree"
  mkdir -p .whl-mlir
  tar -C "$tmp/tree" -cf - . | xz -T0 -9e | split -b 36M -d - .whl-mlir/numba_cuda_mlir-0.5.4.tar.xz.part-
  rm -rf "$tmp"
fi
ls -la .whl .whl-mlir
