"""Run one measured step in a fresh process: its seconds and its peak RSS (issue 40).

Each step runs alone in a process started for it (multiprocessing's spawn, so it inherits
none of the benchmark's memory), and reports its own ``ru_maxrss``: a figure for that step
only, as ``/usr/bin/time -v`` would give a command line doing the same.
"""

from __future__ import annotations

import multiprocessing
import resource
import time
from collections.abc import Callable
from typing import Any


def _child(run: Callable[..., Any], args: tuple[Any, ...], out: Any) -> None:
    started = time.perf_counter()
    value = run(*args)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out.send((value, seconds, peak))


def measured(run: Callable[..., Any], *args: Any) -> tuple[Any, float, float]:
    """`run(*args)` in a fresh process: what it returned, its seconds and its peak RSS in MB
    (`run` a module-level function, its arguments and answer picklable)."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(run, args, send))
    process.start()
    send.close()
    try:
        value, seconds, peak = receive.recv()
    except EOFError as error:
        process.join()
        raise RuntimeError(f"measured step {run.__name__} died: exit {process.exitcode}") from error
    process.join()
    return value, seconds, peak
