#!/usr/bin/env bash
# Installs the Debian 12 packages gpurec builds and tests with (run as root). Skips apt when all are present.
set -euo pipefail
packages=(build-essential cmake ninja-build git
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libgl1-mesa-dev
  nlohmann-json3-dev libcli11-dev libeigen3-dev liblbfgspp-dev libpugixml-dev
  openmpi-bin libopenmpi-dev # gpurec under mpirun (optional: the build runs as one process without)
  clang-14 clang-tidy-14 clang-format-14 libclang-rt-14-dev libomp-14-dev llvm-14 gcovr xvfb xauth
  xdotool at-spi2-core python3-pyatspi dbus-x11 # these four: scripts/gui-smoke.sh
  pybind11-dev python3-dev python3-numpy python3-pytest python3-torch) # the Python module (docs/python.md)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
