"""Zip archives from users: every member is checked before anything is extracted.

A member is refused when its path could land outside the folder it is extracted to (absolute,
a drive letter, a `..` part), when it is a symbolic link, or when the archive looks like a zip
bomb (too many members, too many bytes in all, or one member compressed too well). Extraction
writes only the members asked for, under a folder the caller owns, and never more bytes than a
member declared.
"""

from __future__ import annotations

import stat
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

CHUNK = 1 << 16


@dataclass(frozen=True)
class ZipLimits:
    """How much an uploaded zip may hold; an archive over any limit is refused, not trimmed."""

    max_members: int = 200
    max_total_bytes: int = 200_000_000
    max_ratio: float = 200.0
    """Uncompressed size over compressed size of any one member."""


@dataclass(frozen=True)
class Refusal:
    """Why an archive is not read: what was expected and what the archive holds instead."""

    expected: str
    actual: str


def inspect(path: Path, limits: ZipLimits) -> list[zipfile.ZipInfo] | Refusal:
    """The archive's file members when every member passes every check, else the first refusal."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile) as error:
        return Refusal("a readable zip archive", f"{type(error).__name__}: {error}")
    if len(infos) > limits.max_members:
        return Refusal(f"at most {limits.max_members} members", f"{len(infos)} members")
    total = 0
    for info in infos:
        refusal = _member_refusal(info, limits)
        if refusal:
            return refusal
        total += info.file_size
        if total > limits.max_total_bytes:
            return Refusal(
                f"at most {limits.max_total_bytes:,} bytes uncompressed in all",
                f"{total:,} bytes by member {info.filename!r}",
            )
    return [info for info in infos if not info.is_dir()]


def _member_refusal(info: zipfile.ZipInfo, limits: ZipLimits) -> Refusal | None:
    name = info.filename
    if not safe_name(name):
        return Refusal(
            "member paths inside the archive (no absolute path, drive or '..' part)",
            f"member {name!r}",
        )
    if stat.S_ISLNK(info.external_attr >> 16):
        return Refusal("regular files (no symbolic links)", f"member {name!r}, a symbolic link")
    if info.file_size and info.file_size > limits.max_ratio * info.compress_size:
        ratio = info.file_size / max(info.compress_size, 1)
        return Refusal(
            f"members compressed at most {limits.max_ratio:g}:1 (a guard against zip bombs)",
            f"member {name!r}: {info.file_size:,} bytes from {info.compress_size:,}, "
            f"{ratio:,.0f}:1",
        )
    return None


def safe_name(name: str) -> bool:
    """True for a relative member path with no '..' part, in POSIX or Windows spelling."""
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(parts[0]) >= 2 and parts[0][1] == ":"):
        return False
    return ".." not in parts and "\0" not in name


def extract(
    path: Path, members: Sequence[zipfile.ZipInfo], folder: Path
) -> dict[str, Path] | Refusal:
    """Write each member (by its base name, in a numbered folder per archive folder) under `folder`.

    Returns member name → extracted path. Members of one archive folder stay together, so a
    Shapefile's .shp, .dbf and .prj are side by side.
    """
    folders: dict[str, Path] = {}
    written: dict[str, Path] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in members:
                parent = str(PurePosixPath(info.filename.replace("\\", "/")).parent)
                if parent not in folders:
                    folders[parent] = folder / str(len(folders))
                    folders[parent].mkdir()
                target = folders[parent] / PurePosixPath(info.filename.replace("\\", "/")).name
                refusal = _copy(archive, info, target)
                if refusal:
                    return refusal
                written[info.filename] = target
    except (OSError, zipfile.BadZipFile, NotImplementedError, RuntimeError) as error:
        # NotImplementedError: an unsupported compression method; RuntimeError: encrypted
        return Refusal("a readable, unencrypted zip archive", f"{type(error).__name__}: {error}")
    return written


def _copy(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> Refusal | None:
    left = info.file_size
    with archive.open(info) as source, target.open("xb") as sink:
        while chunk := source.read(min(CHUNK, left + 1)):
            left -= len(chunk)
            if left < 0:
                return Refusal(
                    f"member {info.filename!r} to hold the {info.file_size:,} bytes it declares",
                    "more bytes",
                )
            sink.write(chunk)
    return None
