"""Atomic file output: write to a temporary file beside the target, then rename it into place."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TextIO

FILE_MODE = 0o644
"""Written files are readable by others, as any file an editor saves (mkstemp makes 0600)."""


@contextlib.contextmanager
def atomic_path(target: Path | str) -> Iterator[Path]:
    """Yield a temporary path beside `target`; on success it replaces `target`, on error it goes."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(
        prefix=f".{target.stem}.", suffix=f".tmp{target.suffix}", dir=target.parent
    )
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        _fsync(temporary)
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def write_text(target: Path | str, text: str) -> None:
    """Write a UTF-8 text file atomically."""
    with atomic_path(target) as temporary:
        temporary.write_text(text, encoding="utf-8", newline="")


def write_files(folder: Path | str, files: Mapping[str, str | Callable[[TextIO], None]]) -> None:
    """Write several text files into a folder: all temporary files first, then every rename.
    A file is its text, or what writes its text to an open file a part at a time."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        for name, text in files.items():
            temporary = stack.enter_context(atomic_path(folder / name))
            if isinstance(text, str):
                temporary.write_text(text, encoding="utf-8", newline="")
                continue
            with temporary.open("w", encoding="utf-8", newline="") as out:
                text(out)


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())
