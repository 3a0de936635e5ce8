#!/usr/bin/env bash
# Fills .device/ (git-ignored) with what the GPU machine lacks: the header-only dependencies and the
# pugixml static library (the `device` CMake preset reads .device/include and .device/lib) and a copy
# of ../shared/data for `gpurec check --data .device/data`. Run here, then carry .device with the
# device tool and run scripts/device-check.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .device
mkdir -p .device/include/eigen3 .device/lib .device/data
cp -r /usr/include/nlohmann /usr/include/CLI /usr/include/LBFGS.h /usr/include/LBFGSB.h /usr/include/LBFGSpp \
  /usr/include/pugiconfig.hpp /usr/include/pugixml.hpp .device/include/
cp -r /usr/include/eigen3/Eigen .device/include/eigen3/
cp /usr/lib/x86_64-linux-gnu/libpugixml.a .device/lib/
cp -r ../shared/data/* .device/data/
du -sh .device
