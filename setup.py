"""Builds the `weft` package's native module with CMake and puts the whole package in the wheel.

The package is what CMake assembles in <build>/python/weft: the native module _weft (the engine
and every workload's bindings, linked statically, shaders compiled in), the pure-Python modules,
the type stubs and py.typed. The CMake build folder is WEFT_BUILD_DIR, else build/ in this
checkout (the one tools/setup.sh makes), configured here when it is not configured yet.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def cmake_version() -> str:
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(weft VERSION ([0-9.]+)", f.read())
    if not match:
        raise RuntimeError("CMakeLists.txt: no `project(weft VERSION x.y.z ...)` line")
    return match.group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build = os.path.abspath(os.environ.get("WEFT_BUILD_DIR") or os.path.join(ROOT, "build"))
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", ROOT, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", build, "--target", "weft_python"], check=True)
        package = os.path.join(build, "python", "weft")
        native = "_weft" + sysconfig.get_config_var("EXT_SUFFIX")
        if not os.path.exists(os.path.join(package, native)):
            raise RuntimeError(f"{build} has no {native}: it was configured for another Python than {sys.executable} "
                               "(set WEFT_BUILD_DIR to a new folder)")
        target = os.path.dirname(self.get_ext_fullpath(ext.name))
        shutil.copytree(package, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))


setup(
    version=cmake_version(),
    packages=[],  # the package comes whole from the CMake build (CMakeBuild)
    ext_modules=[Extension("weft._weft", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join("build", "setuptools")}},
    zip_safe=False,
)
