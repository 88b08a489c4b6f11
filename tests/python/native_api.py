"""The package's native API as pybind11 describes it: every function, static method, method and
constructor of weft._weft and its submodules, with the parameters from its docstring's signature.
Shared by the hostile-argument test and the stub check, so a binding added later is covered by
both without touching either."""
import re
import types
from typing import Iterator, List, NamedTuple, Optional

import weft  # noqa: F401  (wraps the native callables, which keep pybind11's docstrings)
from weft import _weft


class Parameter(NamedTuple):
    name: str
    type: str          # as pybind11 writes it: "int", "List[int]", "weft._weft.Device", ...
    has_default: bool


class Native(NamedTuple):
    module: types.ModuleType
    cls: Optional[type]     # None for a module-level function
    name: str               # "__init__" for a constructor
    static: bool
    parameters: List[Parameter]


def parameters(doc: str) -> List[Parameter]:
    """The parameters after self, from pybind11's first signature line: `name(a: int, b: str = 'x') -> R`."""
    match = re.match(r"\w+\((.*)\) ->", doc.split("\n")[0])
    if not match:
        raise ValueError(f"no pybind11 signature in {doc[:80]!r}")
    out = []
    for part in re.split(r", (?![^\[]*\])", match.group(1)):
        if not part or part.startswith("self:") or part.startswith("*"):
            continue
        name, _, rest = part.partition(": ")
        type_text, _, default = rest.partition(" = ")
        out.append(Parameter(name, type_text, bool(default)))
    return out


def modules() -> List[types.ModuleType]:
    return [_weft] + [m for m in vars(_weft).values() if isinstance(m, types.ModuleType) and m.__name__.startswith("weft._weft.")]


def natives() -> Iterator[Native]:
    for module in modules():
        for name, member in vars(module).items():
            if callable(member) and not isinstance(member, type) and hasattr(member, "__wrapped__"):
                yield Native(module, None, name, False, parameters(member.__doc__ or ""))
            if not isinstance(member, type) or issubclass(member, BaseException):
                continue
            for attr, value in vars(member).items():
                static = isinstance(value, staticmethod)
                target = value.__func__ if static else value
                if hasattr(target, "__wrapped__"):  # a native one (weft._arguments wrapped it)
                    yield Native(module, member, attr, static, parameters(target.__doc__ or ""))
