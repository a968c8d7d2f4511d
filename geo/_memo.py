"""Derived data remembered per object (a scenario's tuple of routes or events), by identity."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
SIZE = 64
"""Entries kept; the least recently used goes first."""

_REMEMBERED: OrderedDict[tuple[int, str], tuple[Any, Any]] = OrderedDict()


def derived(source: Any, name: str, make: Callable[[], T]) -> T:
    """`make()`'s result for this very object (not an equal one), computed once while remembered.

    Records are immutable, so what is derived from a tuple of them never goes stale; holding the
    tuple keeps its id from being reused while the entry lives.
    """
    key = (id(source), name)
    found = _REMEMBERED.get(key)
    if found is not None and found[0] is source:
        _REMEMBERED.move_to_end(key)
        return found[1]  # type: ignore[no-any-return]
    value = make()
    _REMEMBERED[key] = (source, value)
    while len(_REMEMBERED) > SIZE:
        _REMEMBERED.popitem(last=False)
    return value
