"""Weft's SQL engine (SQLite dialect, docs/db.md) from Python: one database on one device, its
base tables resident there across queries, programs cached by query text.

    import numpy as np, weft
    from weft.db import Session
    s = Session(weft.Device())
    s.load_csv("orders", "examples/db/orders.csv")
    s.add_table("t", {"id": np.arange(3), "name": np.array(["a", None, "c"], dtype=object)})
    r = s.query("SELECT name, COUNT(*) FROM t GROUP BY name")
    r.names                # ['name', 'COUNT(*)']
    r["name"]              # numpy.ma.MaskedArray, dtype object, NULL rows masked
    s.last_timing          # {'plan_ms': ..., 'uploaded_bytes': ..., 'cached': ..., ...}

NULL convention, both ways: a NULL is a masked entry of a numpy.ma.MaskedArray. Going in, a
masked entry or a None in an object array is NULL. Coming out, every column is a MaskedArray
(int64, float64, or object holding str; object with Python numbers for a column whose values
mix types) whose mask marks the NULL rows; the value under a mask is 0, 0.0 or None.
Other input dtypes (bool, datetime, complex, ...) are refused with weft.BadInput.
query() releases the GIL while it plans and runs.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

from ._weft import Device
from ._weft.db import DbSession as _DbSession



class Result:
    """A query's columns in order: names, types ('int', 'float', 'text', 'mixed') and masked arrays."""

    def __init__(self, columns: List[Tuple[str, str, npt.NDArray[Any], npt.NDArray[np.bool_]]]) -> None:
        self.names: List[str] = [c[0] for c in columns]
        self.types: List[str] = [c[1] for c in columns]
        # numpy's stubs leave MaskedArray's constructor untyped
        self.columns: List[np.ma.MaskedArray[Any, Any]] = [
            np.ma.MaskedArray(c[2], mask=c[3]) for c in columns]  # type: ignore[no-untyped-call]

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def __getitem__(self, key: Union[int, str]) -> np.ma.MaskedArray[Any, Any]:
        if isinstance(key, int):
            return self.columns[key]
        matches = [i for i, n in enumerate(self.names) if n == key]
        if len(matches) != 1:
            raise KeyError(f"{key!r} names {len(matches)} result columns of {self.names}")
        return self.columns[matches[0]]

    def rows(self) -> Iterator[Tuple[object, ...]]:
        """Rows as tuples of Python values, None for NULL (what sqlite3's fetchall() gives)."""
        for r in range(len(self)):
            yield tuple(None if c.mask[r] else c.data[r].item() if hasattr(c.data[r], "item") else c.data[r]
                        for c in self.columns)


class Session:
    """A database open on a weft.Device; see the module docstring for the NULL convention."""

    def __init__(self, device: Device) -> None:
        self._native = _DbSession(device)

    def load_csv(self, name: str, path: str, schema: Optional[str] = None) -> None:
        self._native.load_csv(name, path, schema)

    def add_table(self, name: str, columns: Dict[str, Any]) -> None:
        self._native.add_table(name, columns)

    def query(self, sql: str) -> Result:
        return Result(self._native.query(sql))

    def tables(self) -> List[str]:
        return self._native.tables()

    def schema(self, name: str) -> List[Tuple[str, str]]:
        return self._native.schema(name)

    @property
    def last_timing(self) -> Dict[str, Union[float, int, bool]]:
        return self._native.last_timing

    @property
    def resident(self) -> bool:
        """Whether base tables stay on the device (bufferDeviceAddress) rather than upload per query."""
        return self._native.resident


__all__ = ["Session", "Result"]
