"""Wrong argument types and counts raise weft.ArgumentError, never a bare TypeError.

pybind11 checks a native call's arguments before any Weft code runs and raises TypeError itself,
beyond the reach of the module's exception translator. So each native function, method and
property setter is wrapped once, at import, by one that re-raises exactly that TypeError as
weft.ArgumentError (a weft.BadInput and a TypeError, with pybind11's list of accepted signatures).
A TypeError raised by a Python callback the caller passed in goes through unchanged.
"""
import functools
import inspect
import types
from typing import Any, Callable

from ._weft import ArgumentError

_MISMATCH = ("incompatible function arguments", "incompatible constructor arguments")


def argument_error(text: str) -> ArgumentError:
    """weft.ArgumentError with its code and message, for the package's Python functions too."""
    error = ArgumentError("BadInput: " + text)
    error.code, error.message = "BadInput", text
    return error


def _checked(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            if type(e) is not TypeError or not any(m in str(e) for m in _MISMATCH):
                raise
            raise argument_error(str(e)) from None
    return call


def _no_constructor(cls: type) -> Callable[..., None]:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> None:
        raise argument_error(f"{cls.__name__} has no constructor: Weft's functions return it")
    # What the stubs declare (object's own __init__): the type checker refuses any argument.
    setattr(refuse, "__signature__", inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)]))
    return refuse


def _is_native(obj: Any) -> bool:
    return isinstance(obj, types.BuiltinFunctionType) or type(obj).__name__ == "instancemethod"


def _check_class(cls: type) -> None:
    if not _is_native(vars(cls).get("__init__")):  # pybind11's default one raises a bare TypeError
        setattr(cls, "__init__", _no_constructor(cls))
    for name, member in list(vars(cls).items()):
        if isinstance(member, staticmethod) and _is_native(member.__func__):
            setattr(cls, name, staticmethod(_checked(member.__func__)))
        elif isinstance(member, property) and member.fset is not None and _is_native(member.fset):
            setattr(cls, name, property(member.fget, _checked(member.fset), member.fdel, member.__doc__))
        elif _is_native(member):
            setattr(cls, name, _checked(getattr(member, "__func__", member)))


def check_arguments(module: types.ModuleType) -> None:
    """Wraps every native callable of the module, its classes and its submodules, once."""
    if getattr(module, "_arguments_checked", False):
        return
    setattr(module, "_arguments_checked", True)
    for name, member in list(vars(module).items()):
        if isinstance(member, types.ModuleType) and member.__name__.startswith(module.__name__ + "."):
            check_arguments(member)
        elif isinstance(member, type) and not issubclass(member, BaseException) and member.__module__.startswith(module.__name__):
            _check_class(member)
        elif isinstance(member, types.BuiltinFunctionType):
            setattr(module, name, _checked(member))
