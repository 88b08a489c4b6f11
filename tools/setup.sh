#!/usr/bin/env bash
# Installs Weft's build and test dependencies from Debian 12 packages, then configures and
# builds everything into build/. Safe to run again: apt-get and the build are incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config
  libvulkan-dev libvulkan-volk-dev glslang-tools glslang-dev spirv-tools libglm-dev
  doctest-dev vulkan-validationlayers vulkan-tools mesa-vulkan-drivers
  libtomlplusplus-dev nlohmann-json3-dev libcli11-dev python3 python3-numpy python3-scipy
  python3-dev pybind11-dev python3-pytest libfftw3-dev libvkfft-dev libsqlite3-dev sqlite3 python3-regex
  libpcre2-dev libicu-dev liblzma-dev
  python3-pip python3-setuptools python3-wheel python3-venv mypy python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
