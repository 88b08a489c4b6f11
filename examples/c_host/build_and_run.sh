#!/bin/sh
# Builds the C host against an installed Weft through pkg-config only, then runs it:
#   cmake --install build --prefix /tmp/weft-prefix
#   examples/c_host/build_and_run.sh /tmp/weft-prefix
set -eu
[ $# -ge 1 ] || { echo "usage: $0 PREFIX [BUILD_DIR]" >&2; exit 2; }
prefix=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$(mktemp -d "${TMPDIR:-/tmp}/weft-c-host.XXXXXX")}
mkdir -p "$build"
libdir=$(ls -d "$prefix"/lib*/pkgconfig "$prefix"/lib/*/pkgconfig 2>/dev/null | head -n 1)
export PKG_CONFIG_PATH="$libdir"
cc -std=c99 -Wall -Wextra -Werror "$here/main.c" $(pkg-config --cflags --libs weft) -lm \
   -Wl,-rpath,"$(pkg-config --variable=libdir weft)" -o "$build/c_host"
"$build/c_host" "$here/../chain/chain.toml"
