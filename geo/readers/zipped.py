"""Zip archives (and KMZ files): one file of another format, or Shapefiles with their sidecars."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from geo.errors import ProblemLog
from geo.readers.base import Reader, Table, suffix_of
from geo.readers.ogr import layer_named, read_layer
from geo.readers.safezip import Refusal, ZipLimits, extract, inspect

SUFFIXES = {".zip": "zip", ".kmz": "zip"}  # a KMZ is a zip holding one KML file
"""The names this module reads, and the format each is."""
SHAPEFILE_HINT = "a zipped Shapefile (a .zip holding its .shp, .shx, .dbf and .prj files)"


def read(
    path: Path,
    file: str,
    layer: str | None,
    log: ProblemLog,
    limits: ZipLimits,
    *,
    inner: Mapping[str, Reader],
) -> list[Table]:
    """The one file of another format a zip holds (read by `inner`, the reader of each suffix
    a member may have), or its Shapefiles; an archive over `limits` is refused unread."""
    checked = inspect(path, limits)
    if isinstance(checked, Refusal):
        log.error(file, "", "", checked.expected, checked.actual)
        return []
    members = [info for info in checked if not _is_junk(info.filename)]
    shapefiles = [info for info in members if info.filename.lower().endswith(".shp")]
    others = [info for info in members if suffix_of(info.filename) in inner]
    if shapefiles:
        for info in others:
            log.warn(
                file, "", "", "Shapefiles only, beside Shapefiles", f"{info.filename} (not read)"
            )
        wanted = [info for info in members if _beside(info.filename, shapefiles)]
        if not _sidecars_present(shapefiles, wanted, file, log):
            return []
    elif len(others) == 1:
        wanted = others
    else:
        found = ", ".join(info.filename for info in others) or "no such file"
        expected = f"{SHAPEFILE_HINT}, or a zip holding one CSV, GeoJSON, KML, GPX or GeoPackage"
        log.error(file, "", "", expected, found)
        return []
    with tempfile.TemporaryDirectory(prefix="corridor-") as folder:
        written = extract(path, wanted, Path(folder))
        if isinstance(written, Refusal):
            log.error(file, "", "", written.expected, written.actual)
            return []
        if not shapefiles:
            member = others[0].filename
            label = f"{file}:{member}"
            return inner[suffix_of(member)](written[member], label, layer, log, limits)
        return [
            table
            for info in shapefiles
            for table in _read_shapefile(written[info.filename], file, layer, log)
        ]


def _sidecars_present(
    shapefiles: Sequence[Any], members: Sequence[Any], file: str, log: ProblemLog
) -> bool:
    """Whether every Shapefile in the zip has its index (.shx), without which it cannot be read;
    a missing attribute table (.dbf) is only warned of (every field then comes from defaults)."""
    names = {info.filename.lower() for info in members}
    complete = True
    for info in shapefiles:
        stem = info.filename[: -len(".shp")]
        base = PurePosixPath(stem).name
        if f"{stem}.shx".lower() not in names:
            expected = f"{base}.shx (the Shapefile's index) beside {info.filename}"
            log.error(file, "", "", expected, "no such member in the zip")
            complete = False
        if f"{stem}.dbf".lower() not in names:
            expected = f"{base}.dbf (the Shapefile's attribute table) beside {info.filename}"
            log.warn(file, "", "", expected, "none: every field must come from the defaults")
    return complete


def _is_junk(name: str) -> bool:
    """macOS resource forks and folders that zip tools add (`__MACOSX/`, `._name`)."""
    parts = name.replace("\\", "/").split("/")
    return parts[0] == "__MACOSX" or parts[-1].startswith("._")


def _beside(name: str, shapefiles: Sequence[Any]) -> bool:
    """True for a Shapefile's own member or a sidecar of it (.dbf, .prj…: same folder and stem)."""
    stem = PurePosixPath(name.replace("\\", "/")).with_suffix("")
    return any(
        PurePosixPath(info.filename.replace("\\", "/")).with_suffix("").as_posix().lower()
        == stem.as_posix().lower()
        for info in shapefiles
    )


def _read_shapefile(path: Path, file: str, layer: str | None, log: ProblemLog) -> list[Table]:
    stem = path.stem
    own = layer or layer_named(stem)
    return read_layer(path, stem, f"{file}:{stem}", own, "a CRS (.prj file)", log)
