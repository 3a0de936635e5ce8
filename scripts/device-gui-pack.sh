#!/usr/bin/env bash
# Packs the workbench for the GPU machine, which has no Qt: builds it here with the CUDA backend
# (sm_90) together with gpurec and the GUI suites, then puts them, the Qt libraries and plugins they
# load (the ldd closure, without the C and C++ runtimes the machine has) and a font into
# .device/gui.tar.xz. Run after scripts/device-prepare.sh; scripts/device-gui-check.sh unpacks and
# runs it there.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/gpu-gui
suites=()
for f in tests/test_gui_*.cpp; do suites+=("$(basename "$f" .cpp)"); done
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$build" -j "$(nproc)" --target gpurec gpurec-workbench "${suites[@]}"

pack=$(mktemp -d)
trap 'rm -rf "$pack"' EXIT
mkdir -p "$pack/gui/bin" "$pack/gui/lib" "$pack/gui/plugins/platforms" "$pack/gui/fonts"
cp "$build/app/gpurec" "$build/app/workbench/gpurec-workbench" "$pack/gui/bin/"
for s in "${suites[@]}"; do cp "$build/tests/$s" "$pack/gui/bin/"; done
cp /usr/lib/x86_64-linux-gnu/qt6/plugins/platforms/libqoffscreen.so "$pack/gui/plugins/platforms/"
cp /usr/share/fonts/truetype/dejavu/DejaVuSans*.ttf "$pack/gui/fonts/"
# The user guide where an installed workbench finds it (Help ▸ User guide), with its pictures.
mkdir -p "$pack/gui/share/doc/gpurec"
cp -r docs/user-guide.md docs/images "$pack/gui/share/doc/gpurec/"
# The machine's own glibc, libstdc++ and libgcc are newer than Debian 12's: keep those out.
system='^(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux-x86-64|linux-vdso)\.so'
ldd "$pack"/gui/bin/* "$pack"/gui/plugins/platforms/*.so | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
  sort -u | while read -r name path; do
    [[ $name =~ $system ]] || cp -L "$path" "$pack/gui/lib/$name"
  done
tar -C "$pack" -cJf .device/gui.tar.xz gui
du -h .device/gui.tar.xz
