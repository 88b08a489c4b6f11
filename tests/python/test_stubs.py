"""The type stubs (python/weft/_weft/*.pyi, workloads/*/python/module.pyi) describe the native
module as it is, and the examples type-check against them with mypy --strict, against whichever
`weft` is imported: the build tree's or the installed wheel's."""
import ast
import os
import site
import subprocess
import sys
from typing import Dict, List, Tuple

import weft
from native_api import natives

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
PACKAGE = os.path.dirname(weft.__file__)
EXAMPLES = [os.path.join(ROOT, "examples", "python", name) for name in ("generation_loop.py", "monty_backend.py")] + [
    os.path.join(ROOT, "workloads", "hypothesis_update", "python", "example.py")]


def mypy_environment() -> Dict[str, str]:
    env = dict(os.environ, MYPY_CACHE_DIR=os.devnull)
    parent = os.path.dirname(PACKAGE)
    if parent not in site.getsitepackages():  # the build tree: mypy does not search PYTHONPATH
        env["MYPYPATH"] = parent
    return env


def stub_functions() -> Dict[Tuple[str, str, str], ast.FunctionDef]:
    """(module, class or "", function) -> its first definition in the stubs."""
    out: Dict[Tuple[str, str, str], ast.FunctionDef] = {}
    for file in os.listdir(os.path.join(PACKAGE, "_weft")):
        module = "weft._weft" + ("" if file == "__init__.pyi" else "." + file[:-len(".pyi")])
        tree = ast.parse(open(os.path.join(PACKAGE, "_weft", file), encoding="utf-8").read())
        for node in tree.body:
            members = node.body if isinstance(node, ast.ClassDef) else [node]
            cls = node.name if isinstance(node, ast.ClassDef) else ""
            for f in members:
                if isinstance(f, ast.FunctionDef):
                    out.setdefault((module, cls, f.name), f)
    return out


def test_stubtest_finds_the_stubs_and_the_module_in_agreement() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy.stubtest", "--concise", "weft._weft"], capture_output=True, text=True,
                            env=mypy_environment())
    # pybind11 classes have pybind11's metaclass, which stubs cannot name; everything else counts.
    problems = [line for line in result.stdout.splitlines() if line and "metaclass differs" not in line]
    assert not problems, "\n".join(problems) + result.stderr


def test_each_stub_has_the_bindings_parameter_names_and_defaults() -> None:
    stubs = stub_functions()
    mismatches: List[str] = []
    for native in natives():
        key = (native.module.__name__, native.cls.__name__ if native.cls else "", native.name)
        stub = stubs.get(key)
        if stub is None:
            mismatches.append(f"{'.'.join(key)}: no stub")
            continue
        args = [a for a in stub.args.args if a.arg != "self"]
        have = [(a.arg, i >= len(args) - len(stub.args.defaults)) for i, a in enumerate(args)]
        want = [(p.name, p.has_default) for p in native.parameters]
        if have != want:
            mismatches.append(f"{'.'.join(key)}: stub {have}, binding {want}")
    assert not mismatches, "\n".join(mismatches)


def mypy_strict(*targets: str) -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary", *targets], capture_output=True,
                            text=True, env=mypy_environment())
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_package_type_checks_strictly() -> None:
    mypy_strict("-p", "weft")


def test_the_examples_type_check_strictly() -> None:
    mypy_strict(*EXAMPLES)
