#!/usr/bin/env bash
# Installs what jetfuse needs to build and test on Debian/Ubuntu, only when something is missing:
# cmake (>= 3.25), ninja, g++, Eigen 3.4, Boost (YAP), GoogleTest, Google Benchmark, and for the
# differential fuzzers (tests/fuzz) Python 3 with numpy and awkward in a virtual environment, build/venv.
# Idempotent: with everything present it runs no apt at all. Uses sudo only when not root.
# The CUDA toolkit is optional and never installed here (without it jetfuse builds CPU only).
set -euo pipefail

packages=(cmake ninja-build g++ libeigen3-dev libboost-dev libgtest-dev libbenchmark-dev)

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
else
  for c in cmake ninja g++; do
    command -v "$c" >/dev/null 2>&1 || missing+=("$c")
  done
fi
# The fuzzer's virtual environment needs python3 with its venv module (Debian: python3-venv).
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  packages+=(python3 python3-venv)
  missing+=(python3-venv)
fi

if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps.sh: missing ${missing[*]} and this is not a Debian/Ubuntu system (no apt-get);" \
         "install the equivalents of: ${packages[*]}" >&2
    exit 1
  fi
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "deps.sh: missing ${missing[*]}; run as root or install sudo" >&2
      exit 1
    fi
  fi
  echo "deps.sh: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${packages[@]}"
fi

# CMakePresets.json (workflow presets) needs CMake 3.25: Debian 12 and Ubuntu 24.04 have it.
cmake_version=$(cmake --version | head -n1 | sed 's/[^0-9.]*\([0-9.]*\).*/\1/')
if [ "$(printf '%s\n' 3.25 "$cmake_version" | sort -V | head -n1)" != 3.25 ]; then
  echo "deps.sh: CMake $cmake_version is too old, jetfuse needs >= 3.25 (Ubuntu 22.04 ships 3.22):" \
       "install a newer one from https://apt.kitware.com or with 'pipx install cmake'" >&2
  exit 1
fi

# numpy for the differential fuzzer and awkward for the jagged fuzzer, from PyPI, in build/venv
# (CMake looks there first).
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/build/venv"
numpy_pin="numpy==2.4.6"
awkward_pin="awkward==2.14.0"
if ! "$venv/bin/python3" -c 'import numpy' >/dev/null 2>&1; then
  echo "deps.sh: creating $venv with $numpy_pin"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "$numpy_pin"
  "$venv/bin/python3" -c 'import numpy; print("deps.sh: numpy", numpy.__version__, "in", "'"$venv"'")'
fi
if ! "$venv/bin/python3" -c 'import awkward' >/dev/null 2>&1; then
  echo "deps.sh: installing $awkward_pin in $venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "$awkward_pin" "$numpy_pin"
  "$venv/bin/python3" -c 'import awkward; print("deps.sh: awkward", awkward.__version__)'
fi
