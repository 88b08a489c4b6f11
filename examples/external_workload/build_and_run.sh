#!/bin/sh
# Configures, builds and runs the out-of-tree workload against an installed Weft:
#   cmake --install build --prefix /tmp/weft-prefix
#   examples/external_workload/build_and_run.sh /tmp/weft-prefix [BUILD_DIR]
# Exits with the workload's status (0: device result matches the CPU reference).
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 PREFIX [BUILD_DIR]" >&2
  exit 2
fi
prefix=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$(mktemp -d "${TMPDIR:-/tmp}/weft-external.XXXXXX")}
cmake -S "$here" -B "$build" -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$build" --parallel
"$build/external_workload"
