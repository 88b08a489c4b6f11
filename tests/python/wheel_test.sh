#!/usr/bin/env bash
# The Python package as a user installs it: `pip wheel` from this checkout (reusing the CMake build
# folder, so nothing is compiled twice), the wheel installed into a fresh virtual environment, and
# the Python tests, examples and type checks run against it from outside the source and build
# trees, with no PYTHONPATH. Usage: wheel_test.sh SOURCE_DIR BUILD_DIR PYTHON
set -euo pipefail
src=$1 build=$2 python=$3
work="$build/wheel-test"
rm -rf "$work"
mkdir -p "$work"
export PYTHONDONTWRITEBYTECODE=1
unset PYTHONPATH

WEFT_BUILD_DIR="$build" "$python" -m pip wheel --no-build-isolation --no-deps --no-index -q -w "$work/dist" "$src"
"$python" -m venv --system-site-packages "$work/venv"
venv="$work/venv/bin/python"
"$venv" -m pip install --no-index --no-deps -q "$work"/dist/weft-*.whl

cd "$work"
"$venv" -c "import sys, weft; assert weft.__file__.startswith(sys.prefix), weft.__file__; print(weft.devices()[0]['name'])"
"$venv" -m weft info
WEFT_EXAMPLES_DIR="$src/examples" "$venv" -m pytest -q -p no:cacheprovider "$src/tests/python" \
  "$src/workloads/token_vm/tests/test_token_vm.py" "$src/workloads/hypothesis_update/tests/python" \
  "$src/workloads/volumetric/tests/python"
"$venv" "$src/examples/python/generation_loop.py"
"$venv" "$src/examples/python/monty_backend.py" --vulkan | grep "step 4 LM 1: mug"  # the recognised object
"$venv" "$src/workloads/hypothesis_update/python/example.py" --steps 3
echo "wheel: $(basename "$work"/dist/weft-*.whl) installed and tested in $work/venv"
