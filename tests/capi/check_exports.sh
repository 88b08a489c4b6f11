#!/bin/sh
# Fails unless the shared library exports weft_* C functions (versioned WEFT_2) and nothing else.
set -eu
lib="$1"
symbols=$(nm -D --defined-only "$lib" | awk '{print $3}')
leaks=$(printf '%s\n' "$symbols" | grep -v -e '^weft_[a-z0-9_]*@@WEFT_2$' -e '^WEFT_2$' || true)
if [ -n "$leaks" ]; then
  echo "symbols outside the C ABI exported from $lib:"; printf '%s\n' "$leaks" | head -20; exit 1
fi
count=$(printf '%s\n' "$symbols" | grep -c '^weft_' || true)
[ "$count" -ge 40 ] || { echo "only $count weft_ symbols exported from $lib"; exit 1; }
echo "$lib: $count weft_* symbols, nothing else"
