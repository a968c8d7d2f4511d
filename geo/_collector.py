"""Python's cyclic garbage collector paused while many records are made at once."""

from __future__ import annotations

import contextlib
import functools
import gc
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_LOCK = threading.Lock()
_PAUSES = 0
_WAS_ENABLED = True


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside this block (records, cells and rows hold no cycles; their
    reference counts free them). Each collection walks every live object: importing 300,000
    places spent a quarter of its time there. The collector's switch is the process's: it
    comes back on when the last of overlapping blocks (other threads) ends, if it was on."""
    global _PAUSES, _WAS_ENABLED
    with _LOCK:
        if _PAUSES == 0:
            _WAS_ENABLED = gc.isenabled()
            gc.disable()
        _PAUSES += 1
    try:
        yield
    finally:
        with _LOCK:
            _PAUSES -= 1
            if _PAUSES == 0 and _WAS_ENABLED:
                gc.enable()


def pausing(function: F) -> F:
    """`function` run with the collector `paused`."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with paused():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
