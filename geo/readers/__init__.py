"""A user's file read into raw rows per layer, before validation: one module per format."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from geo.errors import Problem, ProblemLog, ValidationError
from geo.readers import delimited, geojson, gpx, kml, ogr, workbook, zipped
from geo.readers.acled import ACLED_DROPPED, ACLED_FIELDS, iso_date
from geo.readers.base import LAYERS, Reader, Table, suffix_of
from geo.readers.safezip import ZipLimits
from geo.readers.text import (
    LATITUDE_ALIASES,
    LONGITUDE_ALIASES,
    Sniffed,
    binary_kind,
    sniff,
    xml_root,
)
from geo.readers.workbook import sheet_names
from geo.readers.zipped import SHAPEFILE_HINT

__all__ = [
    "ACLED_DROPPED",
    "ACLED_FIELDS",
    "FORMATS",
    "LATITUDE_ALIASES",
    "LAYERS",
    "LONGITUDE_ALIASES",
    "READERS",
    "SUFFIXES",
    "UPLOAD_TYPES",
    "WORKBOOKS",
    "Reader",
    "Sniffed",
    "Table",
    "ZipLimits",
    "binary_kind",
    "detect_format",
    "format_of",
    "iso_date",
    "read_chunks",
    "read_file",
    "sheet_names",
    "sniff",
    "xml_root",
]

MODULES = (delimited, workbook, geojson, kml, gpx, ogr)
"""The readers of single files, each module with its SUFFIXES (suffix -> format) and `read`: a
new format is one module more here (a zip holding one file of any of them is read too)."""

SUFFIXES: dict[str, str] = {
    suffix: found for module in (*MODULES, zipped) for suffix, found in module.SUFFIXES.items()
}
"""The format of each file name's suffix, the registry every reader and the upload use."""
UPLOAD_TYPES = tuple(suffix.removeprefix(".") for suffix in SUFFIXES)
"""What the upload accepts: every suffix read from the command line, as Streamlit names types."""
_MEMBERS: dict[str, Reader] = {
    suffix: module.read for module in MODULES for suffix in module.SUFFIXES
}
READERS: dict[str, Reader] = {
    **{found: module.read for module in MODULES for found in module.SUFFIXES.values()},
    "zip": functools.partial(zipped.read, inner=_MEMBERS),
}
"""Each format's reader, by the format's name."""
FORMATS = tuple(READERS)
WORKBOOKS = workbook.FORMATS
SUFFIX_HINT = "a file ending in " + ", ".join(SUFFIXES)
DEFAULT_LIMITS = ZipLimits()


def format_of(name: str) -> str | None:
    """The format of a file name, one of FORMATS, from its suffix (any case); None for others."""
    return SUFFIXES.get(suffix_of(name))


def detect_format(path_or_name: Path | str) -> str:
    """The format of a file, one of FORMATS, from its name's suffix; ValidationError otherwise."""
    name = PurePosixPath(str(path_or_name).replace("\\", "/")).name
    found = format_of(name)
    if found is None:
        raise ValidationError([_format_problem(name)], subject=name)
    return found


def read_file(
    path: Path | str,
    *,
    log: ProblemLog,
    name: str | None = None,
    layer: str | None = None,
    limits: ZipLimits = DEFAULT_LIMITS,
    sheet: str | None = None,
    sniffed: Sniffed | None = None,
) -> list[Table]:
    """Read a user's file into raw rows per layer; every problem goes to `log`.

    Partners bring CSV lists, GPS tracks (GPX), zones traced in QGIS (GeoPackage, zipped
    Shapefile, KML, GeoJSON), workbooks and ACLED's conflict-event CSV export. Cells come as
    the file gives them and geometries in EPSG:4326, no value parsed (`geo._schema.build`
    does: a latitude of "abc" is still a raw row here). Nothing is dropped silently: each row
    or feature either becomes a RawRecord or is named in an error in `log` (row number,
    feature #N, placemark or track name); problems with the content never raise.

    - Places are points stored as cells: a Point geometry becomes `latitude`/`longitude` cells
      (and no geometry); CSV columns lat/latitude/y and lon/lng/long/longitude/x are read as
      those cells.
    - Zones: invalid polygons are repaired with `shapely.make_valid`, keeping the polygonal
      part, with a warning naming the row and what was wrong.
    - Routes: a MultiLineString is merged into one LineString where its parts join end to end.
    - Geometries lose any Z (elevation): the maps are two-dimensional.
    - ACLED exports: the event columns are renamed to Corridor's event fields (`ACLED_FIELDS`)
      and dates normalised to YYYY-MM-DD; ACLED's coding and bookkeeping columns
      (`ACLED_DROPPED`) are not read.

    Parameters
    ----------
    path
        The file; an upload may be a temporary file with any name.
    log
        Collects every problem, each naming the file, the row or feature, the field, what
        was expected and what came.
    name
        The file's name as the user knows it, used in every Spot and message and to tell the
        format (default: the path's name).
    layer
        One of LAYERS to read every row as; rows of another geometry kind are errors. When
        None, the layer is guessed from the CSV header or each feature's geometry.
    limits
        What a zip archive may hold before it is refused unread.
    sheet
        The one sheet of a workbook to read (default: every sheet with columns Corridor reads).
    sniffed
        A CSV file as `sniff` already read it (by the column-at-a-time path), not read again.
    """
    path = Path(path)
    label = name or path.name
    if layer is not None and layer not in LAYERS:
        log.error(label, "", "layer", f"one of {', '.join(LAYERS)}", layer)
        return []
    found = format_of(label)
    if found is None:
        problem = _format_problem(label)
        log.error(problem.file, problem.where, problem.field, problem.expected, problem.actual)
        return []
    before = len(log)
    if sheet is not None and found not in WORKBOOKS:
        log.error(label, "", "sheet", "a workbook (.xlsx, .ods) when a sheet is named", sheet)
        return []
    tables = _read(path, label, found, layer, log, limits, sheet=sheet, sniffed=sniffed)
    if not any(table.rows for table in tables) and len(log) == before:
        log.warn(label, "", "", "at least one row or feature", "none")
    return tables


def read_chunks(
    sniffed: Sniffed, *, log: ProblemLog, layer: str | None = None, rows: int | None
) -> Iterator[Table]:
    """`read_file` of a CSV file as `sniff` read it, its rows handed on `rows` at a time as
    tables of one layer (None: all in one), each row numbered as the file numbers it; every
    problem goes to `log` as the rows around it are read (issue 40: a file's raw rows are never
    all held at once)."""
    if layer is not None and layer not in LAYERS:
        log.error(sniffed.file, "", "layer", f"one of {', '.join(LAYERS)}", layer)
        return
    before = len(log)
    handed = False
    for table in delimited.read_chunks(sniffed, layer, log, rows=rows):
        handed = handed or bool(table.rows)
        yield table
    if not handed and len(log) == before:
        log.warn(sniffed.file, "", "", "at least one row or feature", "none")


def _read(
    path: Path,
    label: str,
    found: str,
    layer: str | None,
    log: ProblemLog,
    limits: ZipLimits,
    *,
    sheet: str | None,
    sniffed: Sniffed | None,
) -> list[Table]:
    """The file read by its format's reader (a workbook's one sheet, a CSV's sniffed text)."""
    if found in WORKBOOKS:
        return workbook.read(path, label, layer, log, limits, sheet=sheet)
    if sniffed is not None and found in delimited.SUFFIXES.values():
        return delimited.read_sniffed(sniffed, layer, log)
    return READERS[found](path, label, layer, log, limits)


def _format_problem(name: str) -> Problem:
    suffix = PurePosixPath(name).suffix.lower()
    expected = SHAPEFILE_HINT if suffix in (".shp", ".shx", ".dbf", ".prj") else SUFFIX_HINT
    return Problem(name, "", "", expected, suffix or name)
