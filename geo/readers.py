"""A user's file read into raw rows per layer, before validation.

Partners bring CSV lists, GPS tracks (GPX), zones traced in QGIS (GeoPackage, zipped Shapefile,
KML, GeoJSON) and ACLED's conflict-event CSV export. `read_file` reads any of them into
`Table`s of `RawRecord`s: cells as the file gives them and geometries in EPSG:4326. It parses
no values (`geo._schema.build` does): a latitude of "abc" is still a raw row here.

Nothing is dropped silently: each row or feature either becomes a RawRecord or is named in an
error in the `ProblemLog` (row number, feature #N, placemark or track name). Problems with the
content never raise.

- Places are points stored as cells: a Point geometry becomes `latitude`/`longitude` cells (and
  no geometry); CSV columns lat/latitude/y and lon/lng/long/longitude/x are read as those cells.
- Zones: invalid polygons are repaired with `shapely.make_valid`, keeping the polygonal part,
  with a warning naming the row and what was wrong.
- Routes: a MultiLineString is merged into one LineString where its parts join end to end.
- Geometries lose any Z (elevation): the maps are two-dimensional.
- ACLED exports: the event columns are renamed to Corridor's event fields (`ACLED_FIELDS`) and
  dates normalised to YYYY-MM-DD. ACLED's coding and bookkeeping columns (`ACLED_DROPPED`: the
  year, which repeats the date; interaction codes, which repeat the actors' types; ISO codes and
  region, which repeat the country; admin2/admin3, finer names for the location, which keeps
  its name and coordinates; source scale, tags and ACLED's upload timestamp) are not read: none
  of them is information the renamed columns lack for the map. Any column ACLED does not export
  is kept, as in every other CSV (validation warns about columns it does not know).
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import math
import re
import sqlite3
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree
import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import pyogrio.errors
import shapely
import shapely.errors
from shapely.geometry import LineString, MultiLineString
from shapely.geometry.base import BaseGeometry

from geo import _gpx, _kml, _safezip, _workbook, hxl
from geo._fields import Spot
from geo._geojson import read_features
from geo._safezip import ZipLimits
from geo._schema import RawRecord
from geo._spreadsheet import restored
from geo.errors import Problem, ProblemLog, ValidationError

__all__ = [
    "ACLED_DROPPED",
    "ACLED_FIELDS",
    "FORMATS",
    "LAYERS",
    "Table",
    "ZipLimits",
    "detect_format",
    "iso_date",
    "read_file",
]

LAYERS = ("places", "convoys", "figures", "routes", "zones", "events")
FORMATS = ("csv", "xlsx", "ods", "geojson", "kml", "gpx", "gpkg", "zip")
SUFFIXES = {
    ".csv": "csv",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".xls": "xlsx",  # (calamine reads the older binary workbooks too)
    ".ods": "ods",
    ".geojson": "geojson",
    ".json": "geojson",
    ".kml": "kml",
    ".gpx": "gpx",
    ".gpkg": "gpkg",
    ".zip": "zip",
    ".kmz": "zip",  # a KMZ is a zip holding one KML file
}
SUFFIX_HINT = "a file ending in " + ", ".join(SUFFIXES)
SHAPEFILE_HINT = "a zipped Shapefile (a .zip holding its .shp, .shx, .dbf and .prj files)"
DEFAULT_LIMITS = ZipLimits()

LATITUDE_ALIASES = ("latitude", "lat", "y")
LONGITUDE_ALIASES = ("longitude", "lon", "lng", "long", "x")
ACLED_MARKERS = frozenset({"event_id_cnty", "event_type", "fatalities"})
ACLED_FIELDS = {
    "event_id_cnty": "id",
    "event_date": "date",
    "event_type": "event_type",
    "sub_event_type": "sub_event_type",
    "actor1": "actor1",
    "assoc_actor_1": "assoc_actor_1",
    "actor2": "actor2",
    "assoc_actor_2": "assoc_actor_2",
    "location": "location",
    "admin1": "admin1",
    "country": "country",
    "latitude": "latitude",
    "longitude": "longitude",
    "geo_precision": "geo_precision",
    "time_precision": "time_precision",
    "fatalities": "fatalities",
    "notes": "notes",
    "source": "reported_by",
}
ACLED_DROPPED = frozenset({
    "event_id_no_cnty", "year", "disorder_type", "inter1", "inter2", "interaction",
    "civilian_targeting", "iso", "iso3", "region", "admin2", "admin3", "source_scale", "tags",
    "timestamp",
})  # fmt: skip
MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
               "september", "october", "november", "december")  # fmt: skip
MONTHS = {
    name: number
    for number, month in enumerate(MONTH_NAMES, start=1)
    for name in (month, month[:3], month[:4])
}
DAY_MONTH_YEAR = re.compile(r"^(\d{1,2})[ -]([A-Za-z]+)\.?[ -](\d{4})$")

POINT, LINE, POLYGON = "a Point", "a LineString", "a Polygon or MultiPolygon"
GEOMETRY_KIND = {
    "Point": POINT,
    "LineString": LINE,
    "MultiLineString": LINE,
    "Polygon": POLYGON,
    "MultiPolygon": POLYGON,
}
LAYER_GEOMETRY: dict[str, str | None] = {
    "places": POINT,
    "events": POINT,
    "routes": LINE,
    "zones": POLYGON,
    "convoys": None,
    "figures": None,
}
GUESS = {POINT: "places", LINE: "routes", POLYGON: "zones"}
OGR_ERRORS = (
    pyogrio.errors.DataSourceError,
    pyogrio.errors.DataLayerError,
    pyogrio.errors.FieldError,
    pyogrio.errors.FeatureError,
    pyogrio.errors.GeometryError,
    pyogrio.errors.CRSError,
)


@dataclass(frozen=True)
class Table:
    """Raw rows of one layer, and the part of the file they came from."""

    layer: str
    rows: list[RawRecord]
    source_layer: str = ""
    """The GeoPackage layer, Shapefile, KML folder or GPX part ("tracks"…) read, if any."""


Reader = Callable[[Path, str, str | None, ProblemLog, ZipLimits], list[Table]]


def detect_format(path_or_name: Path | str) -> str:
    """The format of a file, one of FORMATS, from its name's suffix; ValidationError otherwise."""
    name = PurePosixPath(str(path_or_name).replace("\\", "/")).name
    found = _format_of(name)
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
) -> list[Table]:
    """Read a user's file into raw rows per layer; every problem goes to `log`.

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
    """
    path = Path(path)
    label = name or path.name
    if layer is not None and layer not in LAYERS:
        log.error(label, "", "layer", f"one of {', '.join(LAYERS)}", layer)
        return []
    found = _format_of(label)
    if found is None:
        problem = _format_problem(label)
        log.error(problem.file, problem.where, problem.field, problem.expected, problem.actual)
        return []
    before = len(log)
    if sheet is not None and found not in WORKBOOKS:
        log.error(label, "", "sheet", "a workbook (.xlsx, .ods) when a sheet is named", sheet)
        return []
    if found in WORKBOOKS:
        tables = _read_workbook(path, label, layer, log, limits, sheet=sheet)
    else:
        tables = READERS[found](path, label, layer, log, limits)
    if not any(table.rows for table in tables) and len(log) == before:
        log.warn(label, "", "", "at least one row or feature", "none")
    return tables


def _format_of(name: str) -> str | None:
    return SUFFIXES.get(PurePosixPath(name).suffix.lower())


def _format_problem(name: str) -> Problem:
    suffix = PurePosixPath(name).suffix.lower()
    expected = SHAPEFILE_HINT if suffix in (".shp", ".shx", ".dbf", ".prj") else SUFFIX_HINT
    return Problem(name, "", "", expected, suffix or name)


# CSV ---------------------------------------------------------------------------------------


def _read_csv(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    try:
        raw = path.read_bytes()
    except OSError as error:
        log.error(file, "", "", "a readable CSV file", str(error))
        return []
    binary = binary_kind(raw)
    if binary is not None:
        log.error(file, "", "", "a CSV file (text)", f"{binary}, not a CSV: nothing read")
        return []
    content = _decoded(raw, file, log)
    delimiter = _delimiter(content, file, log)
    rows = csv.reader(io.StringIO(content, newline=""), delimiter=delimiter)
    table = read_rows(_numbered(rows, file, log), file, layer, log)
    if table is None:
        return []
    if delimiter == ";":  # spreadsheets that write ';' between cells write decimal commas
        table = Table(table.layer, [_decimal_points(record) for record in table.rows])
    return [table]


def _numbered(rows: Iterator[list[str]], file: str, log: ProblemLog) -> Iterator[Row]:
    """Each CSV record with its number (the header is 1); a malformed one is the end, said."""
    number = 0
    try:
        for number, cells in enumerate(rows, start=1):
            yield number, cells
    except csv.Error as error:
        log.error(
            file, f"row {number + 1}" if number else "header", "", "well-formed CSV", str(error)
        )


Row = tuple[int, list[str]]
"""A table's row: its number as the user counts it (the header is row 1 of a CSV) and its cells."""


def read_rows(
    rows: Iterable[Row],
    file: str,
    layer: str | None,
    log: ProblemLog,
    *,
    where: str = "",
    skip_unknown: bool = False,
    columns: Sequence[str] = (),
) -> Table | None:
    """The rows of a table (a CSV file or a sheet) under its header, and an HXL hashtag row if
    it has one, as raw records of one layer; None when it has no rows to read (said in `log`,
    except a sheet skipped for having no column Corridor reads, which is a warning).

    `where` comes before each row's number ("sheet 'IDPs', "); `skip_unknown` skips a table
    none of whose columns Corridor reads, with a warning, instead of refusing every row;
    `columns` names the columns in messages (a sheet's letters; default: 1, 2, 3…).
    """
    rows = iter(rows)
    head = [row for row in itertools.islice(rows, hxl.HASHTAG_ROWS_SCANNED) if _filled(row)]
    found = _layout(head, file, where, log)
    if found is None:
        return None
    header, tags, data = found
    target = layer or (hxl.layer_of(tags) if tags else None) or _csv_layer(header)
    if LAYER_GEOMETRY[target] in (LINE, POLYGON):
        expected = f"a file with geometry for the {target} layer (GeoJSON, KML, GPX, GeoPackage)"
        got = f"{'a sheet' if where else 'a CSV file'} (it has no geometry)"
        log.error(file, where.rstrip(", "), "", expected, got)
        return None
    acled = target == "events" and _is_acled(header)
    implied: dict[str, str] = {}
    if tags and not acled:
        tagged = hxl.tagged_columns(header, tags, target)
        keys, implied = _checked_keys(tagged.keys, file, where, log), tagged.implied
    else:
        keys = _csv_keys(header, target, file, log, acled=acled, where=where, columns=columns)
    if skip_unknown and not acled and len(set(keys) & set(hxl.TAGS[target])) < 2:
        shown = ", ".join(name for name in header if name) or "none"
        expected = "columns of a layer Corridor reads (this sheet is not read)"
        log.warn(file, where.rstrip(", "), "", expected, shown)
        return None
    records = _csv_records(
        itertools.chain(data, rows), keys, file, log, acled=acled, where=where, implied=implied
    )
    return Table(target, list(records), source_layer=where.removeprefix("sheet ").rstrip(", "))


def _layout(
    head: list[Row], file: str, where: str, log: ProblemLog
) -> tuple[list[str], list[hxl.Tag | None], list[Row]] | None:
    """The header, the HXL tags (none: an empty list) and the rows read after them."""
    if not head:
        log.error(file, where.rstrip(", "), "", "a header row naming the columns", "no rows")
        return None
    index = hxl.hashtag_row([cells for _, cells in head])
    if index is None:
        header = [cell.strip() for cell in head[0][1]]
        return header, [], head[1:]
    tags = [hxl.parse(cell) for cell in head[index][1]]
    header = [cell.strip() for cell in head[index - 1][1]] if index else [""] * len(tags)
    if index > 1:
        titles = f"rows {head[0][0]}-{head[index - 2][0]}" if index > 2 else f"row {head[0][0]}"
        log.warn(file, where + titles, "", "the header row first", "titles above it: not read")
    header += [""] * (len(tags) - len(header))
    tags += [None] * (len(header) - len(tags))
    return header, tags, head[index + 1 :]


MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"), (b"%PDF-", "a PDF document"), (b"\x1f\x8b", "a gzip archive"),
    (b"SQLite format 3\x00", "an SQLite database (a GeoPackage? name it .gpkg)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel workbook (name it .xls)"),
    (b"PK\x03\x04", "a zip archive"), (b"PK\x05\x06", "an empty zip archive"),
)  # fmt: skip
"""The first bytes of files that are not text, and what they are."""
TEXT_SAMPLE = 8192
"""How much of a file is looked at for bytes no text holds."""


def binary_kind(raw: bytes) -> str | None:
    """What a file that is not text is ("a PNG image"), from its first bytes; None for text.

    Text in UTF-16 with its byte order mark holds NUL bytes, and is text; a file with a known
    signature is not, nor one whose first 8 KB are more than 1% NUL bytes (a NUL or two in a
    cell of a text file is that row's problem: the other rows are read)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    for signature, kind in MAGIC:
        if raw.startswith(signature):
            return _zip_kind(raw) if signature == b"PK\x03\x04" else kind
    sample = raw[:TEXT_SAMPLE]
    return "a binary file" if sample.count(0) > len(sample) / 100 else None


def _zip_kind(raw: bytes) -> str:
    head = raw[:TEXT_SAMPLE]
    if b"xl/" in head:
        return "an Excel workbook (name it .xlsx)"
    if b"application/vnd.oasis.opendocument.spreadsheet" in head:
        return "an OpenDocument workbook (name it .ods)"
    return "a zip archive (name it .zip)"


def _decoded(raw: bytes, file: str, log: ProblemLog) -> str:
    """The file's text: UTF-8 (with or without its mark), UTF-16 with its byte order mark (a
    spreadsheet's "Unicode text"), else Windows-1252 (older spreadsheets in western Europe),
    which is said in a warning since it is a guess."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        text = raw.decode("cp1252", errors="replace")
        where = f"byte {error.start}"
        log.warn(file, where, "encoding", "UTF-8", "other bytes: read as Windows-1252 (Latin-1)")
        return text


_DELIMITERS = (",", ";", "\t", "|")


def _delimiter(content: str, file: str, log: ProblemLog) -> str:
    """The separator the header row uses most: ',' unless ';', a tab or '|' is more common
    (said in a warning, so a wrong guess is seen)."""
    header = content.lstrip("\ufeff").split("\n", 1)[0]
    counts = {delimiter: header.count(delimiter) for delimiter in _DELIMITERS}
    found = max(_DELIMITERS, key=lambda d: (counts[d], d == ","))
    if found != "," and counts[found] > counts[","]:
        shown = {"\t": "a tab"}.get(found, repr(found))
        log.warn(file, "header", "", "cells separated by ','", f"{shown}: read with it")
        return found
    return ","


_DECIMAL_COMMA = re.compile(r"-?\d+,\d+")


def _decimal_points(record: RawRecord) -> RawRecord:
    """Coordinates written with a decimal comma ('36,2012') with a decimal point."""
    cells = dict(record.cells)
    for key in ("latitude", "longitude"):
        value = cells.get(key)
        if isinstance(value, str) and _DECIMAL_COMMA.fullmatch(value.strip()):
            cells[key] = value.strip().replace(",", ".")
    return RawRecord(record.spot, cells, record.geometry)


def _csv_layer(header: Sequence[str]) -> str:
    names = {name.lower() for name in header}
    if names >= ACLED_MARKERS:
        return "events"
    if "destination" in names:
        return "convoys"
    if {"count", "kind", "what"} <= names:
        return "figures"
    return "places"


def _is_acled(header: Sequence[str]) -> bool:
    return {name.lower() for name in header} >= ACLED_MARKERS


def _filled(row: Row) -> bool:
    return any(cell.strip() for cell in row[1])


def _csv_keys(
    header: list[str],
    layer: str,
    file: str,
    log: ProblemLog,
    *,
    acled: bool,
    where: str = "",
    columns: Sequence[str] = (),
) -> list[str | None]:
    """The cell key of each column: renamed, or None for a column that is not read."""
    spot = where + "header"
    keys: list[str | None] = []
    for number, name in enumerate(header, start=1):
        if not name:
            column = columns[number - 1] if number <= len(columns) else number
            log.error(file, spot, f"column {column}", "a column name", "an empty one")
            keys.append(None)
        elif name in header[: number - 1]:
            log.error(file, spot, name, "each column name once", "a second column so named")
            keys.append(None)
        elif acled and name.lower() in ACLED_DROPPED:
            keys.append(None)
        else:
            keys.append(ACLED_FIELDS.get(name.lower(), name) if acled else name)
    if LAYER_GEOMETRY[layer] == POINT and not acled:
        _alias(keys, "latitude", LATITUDE_ALIASES)
        _alias(keys, "longitude", LONGITUDE_ALIASES)
    return keys


def _checked_keys(
    keys: list[str | None], file: str, where: str, log: ProblemLog
) -> list[str | None]:
    """A tagged table's keys, a second column of one key not read (said in `log`)."""
    seen: set[str] = set()
    checked: list[str | None] = []
    for key in keys:
        if key is not None and key in seen:
            log.error(
                file, where + "header", key, "each column name once", "a second column so named"
            )
            key = None
        checked.append(key)
        seen |= {key} if key else set()
    return checked


def _alias(keys: list[str | None], target: str, aliases: Sequence[str]) -> None:
    """Name the first column spelled as one of `aliases` (any case) `target`, unless one is."""
    if target in keys:
        return
    for index, key in enumerate(keys):
        if key is not None and key.lower() in aliases:
            keys[index] = target
            return


def _csv_records(
    rows: Iterable[Row],
    keys: list[str | None],
    file: str,
    log: ProblemLog,
    *,
    acled: bool,
    where: str = "",
    implied: Mapping[str, str] | None = None,
) -> Iterator[RawRecord]:
    for number, row in rows:
        if not _filled((number, row)):
            continue  # a blank line holds nothing
        if len(row) != len(keys):
            present = {key: cell for key, cell in zip(keys, row, strict=False) if key}
            spot = _row_spot(file, f"{where}row {number}", present)
            expected = f"{len(keys)} cells, one per column of the header"
            log.error(file, spot.where, "", expected, f"{len(row)} cells")
            continue
        pairs = zip(keys, row, strict=True)
        cells = {key: restored(value) if value.strip() else "" for key, value in pairs if key}
        for key, value in (implied or {}).items():
            if not cells.get(key):
                cells[key] = value
        if acled and "date" in cells:
            cells["date"] = iso_date(cells["date"])
        yield RawRecord(_row_spot(file, f"{where}row {number}", cells), cells)


def _row_spot(file: str, where: str, cells: dict[str, Any]) -> Spot:
    label = cells.get("id")
    label = label.strip() if isinstance(label, str) else label
    return Spot(file, where + (f" (id {label!r})" if label not in (None, "") else ""))


def iso_date(value: str) -> str:
    """A date such as 15 December 2016, 15-Dec-2016 or 2016-12-15 as ISO text; other text as is."""
    text = value.strip()
    match = DAY_MONTH_YEAR.match(text)
    try:
        if match:
            month = MONTHS.get(match[2].lower())
            return date(int(match[3]), month, int(match[1])).isoformat() if month else value
        return date.fromisoformat(text).isoformat()
    except ValueError:
        return value


# Workbooks -----------------------------------------------------------------------------------

WORKBOOKS = frozenset({"xlsx", "ods"})


def sheet_names(path: Path | str) -> list[str]:
    """A workbook's worksheets, in order; [] for a file that is no workbook."""
    try:
        return _workbook.sheet_names(_workbook.open_workbook(Path(path)))
    except _workbook.Unreadable:
        return []


def _read_workbook(
    path: Path,
    file: str,
    layer: str | None,
    log: ProblemLog,
    limits: ZipLimits,
    *,
    sheet: str | None = None,
) -> list[Table]:
    """Every sheet with columns Corridor reads, or the one named, each a table of its own."""
    try:
        book = _workbook.open_workbook(path)
        names = _workbook.sheet_names(book)
    except _workbook.Unreadable as error:
        log.error(file, "", "", "an Excel or OpenDocument workbook", f"unreadable: {error}")
        return []
    if sheet is not None and sheet not in names:
        log.error(file, "", "sheet", f"one of the sheets {', '.join(map(repr, names))}", sheet)
        return []
    tables = []
    for name in [sheet] if sheet is not None else names:
        where = f"sheet {name!r}, "
        try:
            rows, letters = _trimmed(list(_workbook.sheet_rows(book, name)))
        except _workbook.Unreadable as error:
            log.error(file, where.rstrip(", "), "", "a readable sheet", str(error))
            continue
        if not rows:
            continue  # (an empty sheet holds nothing to say)
        unknown = sheet is None and len(names) > 1
        table = read_rows(
            rows, file, layer, log, where=where, skip_unknown=unknown, columns=letters
        )
        tables += [table] if table is not None else []
    return tables


def _trimmed(rows: list[Row]) -> tuple[list[Row], list[str]]:
    """A sheet's rows without the columns blank from top to bottom (a sheet is a grid, so its
    rows are as wide as its widest; a CSV's are as wide as they are written), and the letters
    of the columns kept."""
    width = max((len(cells) for _, cells in rows), default=0)
    used = [i for i in range(width) if any(i < len(c) and c[i].strip() for _, c in rows)]
    kept = [(n, [cells[i] if i < len(cells) else "" for i in used]) for n, cells in rows]
    return kept, [_workbook.column_letter(i) for i in used]


# GeoJSON -----------------------------------------------------------------------------------


GEOMETRY_TYPES = frozenset({
    "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon",
    "GeometryCollection",
})  # fmt: skip


def _read_geojson(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    try:
        document = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        log.error(file, "", "", "a readable GeoJSON file", str(error))
        return []
    except RecursionError:
        log.error(file, "", "", "GeoJSON nested as geometries are", "arrays nested past any depth")
        return []
    collection = _as_collection(document)
    if collection is None:
        kind = document.get("type") if isinstance(document, dict) else type(document).__name__
        log.error(file, "", "type", "a GeoJSON FeatureCollection, Feature or geometry", kind)
        return []
    inner = ProblemLog()
    with tempfile.TemporaryDirectory(prefix="corridor-") as folder:
        copy = Path(folder) / "features.geojson"
        copy.write_text(json.dumps(collection), encoding="utf-8")
        features = read_features(copy, inner)
    for problem in inner:
        (log.error if problem.severity == "error" else log.warn)(
            file, problem.where, problem.field, problem.expected, problem.actual
        )
    pairs = [
        ("", RawRecord(Spot(file, feature.spot.where), feature.properties, feature.geometry))
        for feature in features
        if feature.geometry is not None  # read_features logged why it has none
    ]
    return _tables(pairs, layer, log)


def _as_collection(document: object) -> dict[str, Any] | None:
    """A FeatureCollection as it is; a single Feature or a bare geometry wrapped in one."""
    if not isinstance(document, dict):
        return None
    kind = document.get("type")
    crs = {"crs": document["crs"]} if "crs" in document else {}
    if kind == "FeatureCollection":
        return document
    if kind == "Feature":
        return {"type": "FeatureCollection", **crs, "features": [document]}
    if isinstance(kind, str) and kind in GEOMETRY_TYPES:  # a list or object is no type name
        geometry = {key: value for key, value in document.items() if key != "crs"}
        feature = {"type": "Feature", "properties": {}, "geometry": geometry}
        return {"type": "FeatureCollection", **crs, "features": [feature]}
    return None


# KML and GPX -------------------------------------------------------------------------------


def _read_kml(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    root = xml_root(path, file, "kml", log)
    return [] if root is None else _tables(_kml.placemarks(root, file, log), layer, log)


def _read_gpx(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    root = xml_root(path, file, "gpx", log)
    return [] if root is None else _tables(_gpx.items(root, file, log), layer, log)


def xml_root(path: Path, file: str, tag: str, log: ProblemLog) -> Element | None:
    """The document element, namespaces stripped; None (logged) for unreadable or unsafe XML."""
    expected = f"a {tag.upper()} document (XML without DTD or entity declarations)"
    try:
        root = defusedxml.ElementTree.fromstring(path.read_bytes(), forbid_dtd=True)
    except (OSError, ParseError, defusedxml.DefusedXmlException) as error:
        log.error(file, "", "", expected, f"{type(error).__name__}: {error}")
        return None
    for element in root.iter():
        if isinstance(element.tag, str):
            element.tag = element.tag.rpartition("}")[2]
    if root.tag != tag:
        log.error(file, "", "", f"{expected}, whose root element is <{tag}>", f"<{root.tag}>")
        return None
    return root


# GeoPackage and Shapefile ------------------------------------------------------------------


def _read_gpkg(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    try:
        with _gdal_warnings(file, log):
            listing = pyogrio.list_layers(path)
    except OGR_ERRORS as error:
        log.error(file, "", "", "a readable GeoPackage", str(error))
        return []
    tables: list[Table] = []
    for layer_name, geometry_type in listing:
        label = f"{file}:{layer_name}"
        own = layer or _layer_named(layer_name)
        if own is None and geometry_type is None:
            expected = f"a table with geometry, or one named {', '.join(LAYERS)}"
            log.warn(label, "", "", expected, "a table without geometry (not read)")
            continue
        tables += _read_ogr(path, layer_name, label, own, "a CRS", log)
    return tables


@contextlib.contextmanager
def _gdal_warnings(file: str, log: ProblemLog) -> Iterator[None]:
    """What GDAL and pyogrio warn of while reading, as the import's warnings (each once), not
    as lines on the server's standard error ('Measured (M) geometry types are not supported')."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for message in dict.fromkeys(str(warning.message) for warning in caught):
        log.warn(file, "", "", "data Corridor reads as it is", message)


def _layer_named(name: str) -> str | None:
    return name.lower() if name.lower() in LAYERS else None


def _read_ogr(
    path: Path, layer_name: str, file: str, layer: str | None, crs: str, log: ProblemLog
) -> list[Table]:
    """One GeoPackage layer or Shapefile: cells and geometries in EPSG:4326, then layers.

    `crs` names what tells the coordinate system in this format, for messages.
    """
    info: dict[str, Any] = {}
    try:
        with _gdal_warnings(file, log):
            info = pyogrio.read_info(path, layer=layer_name)
            frame = pyogrio.read_dataframe(path, layer=layer_name, fid_as_index=True)
    except OGR_ERRORS as error:
        log.error(file, "", "", "a readable layer", str(error))
        return []
    except shapely.errors.GEOSException as error:  # e.g. a TIN or MultiPatch (WKB type 16)
        kind = info.get("geometry_type") or "a type GEOS cannot read"
        expected = "points, lines or polygons (or their Multi- forms)"
        log.error(file, f"layer {layer_name!r}", "geometry", expected, f"{kind} ({error})")
        return []
    geometries: list[BaseGeometry | None] = [None] * len(frame)
    if isinstance(frame, gpd.GeoDataFrame):
        declared = _declared_srs(path, layer_name) if frame.crs is None else ""
        projected = _in_wgs84(frame, file, crs, log, declared=declared)
        if projected is None:
            return []
        geometries = list(projected.geometry)
        frame = projected.drop(columns=projected.geometry.name)
    # pandas reads an integer field with blanks as floats: give its numbers back as integers
    integers = {
        str(field)
        for field, dtype in zip(info["fields"], info["dtypes"], strict=True)
        if str(dtype).startswith(("int", "uint"))
    }
    unreadable = _unreadable_blobs(path, layer_name, info, frame.index, geometries)
    pairs = []
    for number, (fid, record, geometry) in enumerate(
        zip(frame.index, frame.to_dict("records"), geometries, strict=True), start=1
    ):
        cells = {str(key): _plain(value, str(key) in integers) for key, value in record.items()}
        spot = _row_spot(file, f"feature #{number}", cells)
        if fid in unreadable:  # GDAL reads a corrupt blob as no geometry: say so, keep it out
            expected = "a geometry GDAL can read (the row would be placed by its name instead)"
            log.error(file, spot.where, "geometry", expected, "a corrupt geometry blob")
            continue
        pairs.append((layer_name, RawRecord(spot, cells, geometry)))
    return _tables(pairs, layer, log)


def _unreadable_blobs(
    path: Path, layer_name: str, info: dict[str, Any], fids: Any, geometries: list[Any]
) -> set[Any]:
    """The features of a GeoPackage layer whose geometry GDAL gave as none although the file
    holds bytes for it (a corrupt blob); empty for other formats."""
    empty = [fid for fid, geometry in zip(fids, geometries, strict=True) if geometry is None]
    column, key = info.get("geometry_name"), info.get("fid_column")
    if not empty or not column or not key or path.suffix.lower() != ".gpkg":
        return set()
    key, table, column = (_quoted(name) for name in (key, layer_name, column))
    query = f"SELECT {key} FROM {table} WHERE {column} IS NOT NULL"
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        ) as db:
            present = {row[0] for row in db.execute(query)}
    except sqlite3.Error:
        return set()
    return set(empty) & present


def _quoted(name: str) -> str:
    """An SQL identifier in double quotes (a quote inside doubled): names come from the file."""
    return '"' + name.replace('"', '""') + '"'


def _in_wgs84(frame: Any, file: str, crs: str, log: ProblemLog, *, declared: str = "") -> Any:
    """The GeoDataFrame in EPSG:4326; None (logged) when it has no CRS and is not in degrees.

    `declared` describes a coordinate system the file names but GDAL could not read.
    """
    if frame.crs is not None:
        return frame.to_crs(4326)
    present = frame.geometry[~(frame.geometry.isna() | frame.geometry.is_empty)]
    if present.empty:
        return frame
    minx, miny, maxx, maxy = present.total_bounds
    if -180 <= minx <= maxx <= 180 and -90 <= miny <= maxy <= 90:
        assumed = "the coordinates are within degree ranges, so EPSG:4326 is assumed"
        actual = f"{declared or 'none'}; {assumed}"
        log.warn(file, "", "crs", crs, actual)
        return frame.set_crs(4326)
    x, y, *_ = shapely.get_coordinates(present.iloc[0])[0]
    actual = f"x={x:g}, y={y:g}" + (f" with {declared}" if declared else "")
    log.error(file, "", "crs", f"{crs} for these projected coordinates", actual)
    return None


def _declared_srs(path: Path, layer_name: str) -> str:
    """The coordinate system a GeoPackage layer names when GDAL could not read it ('' when it
    names none, or for other formats): its srs_id, name and the start of its definition."""
    if path.suffix.lower() != ".gpkg":
        return ""
    query = (
        "SELECT c.srs_id, s.srs_name, s.definition FROM gpkg_geometry_columns c "
        "LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = c.srs_id WHERE c.table_name = ?"
    )
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        ) as db:
            found = db.execute(query, (layer_name,)).fetchone()
    except sqlite3.Error:
        return ""
    if not found or found[0] in (0, -1, None):  # 0 and -1: "undefined" by the standard
        return ""
    srs_id, name, definition = found
    if definition is None:
        return f"srs_id {srs_id}, which the file's gpkg_spatial_ref_sys does not define"
    shown = " ".join(str(definition).split())[:60]
    return f"srs_id {srs_id} ({name or 'unnamed'}) whose definition GDAL cannot read: {shown!r}"


def _plain(value: object, integer: bool) -> object:
    """A dataframe cell as plain Python: None for NaN/NaT/NA, ISO text for times.

    `integer`: the cell is from an integer field, so a whole float is given as an int.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return int(value) if integer and value.is_integer() else value
    if isinstance(value, datetime | date):  # pandas Timestamps are datetimes
        return value.isoformat()
    return value


# Zip ---------------------------------------------------------------------------------------


def _read_zip(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    checked = _safezip.inspect(path, limits)
    if isinstance(checked, _safezip.Refusal):
        log.error(file, "", "", checked.expected, checked.actual)
        return []
    members = [info for info in checked if not _is_junk(info.filename)]
    shapefiles = [info for info in members if info.filename.lower().endswith(".shp")]
    others = [info for info in members if _format_of(info.filename) not in (None, "zip")]
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
        written = _safezip.extract(path, wanted, Path(folder))
        if isinstance(written, _safezip.Refusal):
            log.error(file, "", "", written.expected, written.actual)
            return []
        if not shapefiles:
            member = others[0].filename
            inner = f"{file}:{member}"
            return READERS[_format_of(member) or ""](written[member], inner, layer, log, limits)
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
    own = layer or _layer_named(stem)
    return _read_ogr(path, stem, f"{file}:{stem}", own, "a CRS (.prj file)", log)


# Layers and geometries ---------------------------------------------------------------------


def _tables(
    pairs: Iterable[tuple[str, RawRecord]], layer: str | None, log: ProblemLog
) -> list[Table]:
    """Group raw records by layer (given, or guessed from each geometry) and source layer."""
    grouped: dict[tuple[str, str], list[RawRecord]] = {}
    for source, raw in pairs:
        placed = _placed(raw, layer, log)
        if placed:
            grouped.setdefault((placed[0], source), []).append(placed[1])
    tables = [Table(name, rows, source) for (name, source), rows in grouped.items()]
    return sorted(tables, key=lambda table: LAYERS.index(table.layer))


def _placed(raw: RawRecord, layer: str | None, log: ProblemLog) -> tuple[str, RawRecord] | None:
    """(layer, record) with its geometry as that layer keeps it; None (logged) when it fits none."""
    spot = raw.spot
    geometry = None if raw.geometry is None else shapely.force_2d(raw.geometry)
    if geometry is not None and (geometry.is_empty or not _finite(geometry)):
        found = f"an empty {geometry.geom_type}" if geometry.is_empty else "infinite coordinates"
        log.error(spot.file, spot.where, "geometry", "a non-empty geometry", found)
        return None
    kind = GEOMETRY_KIND.get(geometry.geom_type) if geometry is not None else None
    target = layer or GUESS.get(kind or "")
    actual = geometry.geom_type if geometry is not None else None
    if target is None:
        log.error(spot.file, spot.where, "geometry", "a Point, LineString or Polygon", actual)
        return None
    wanted = LAYER_GEOMETRY[target]
    if kind != wanted and not (kind is None and wanted == POINT):
        expected = f"{wanted or 'no geometry'} (for the {target} layer)"
        log.error(spot.file, spot.where, "geometry", expected, actual)
        return None
    kept = _kept(raw, geometry, log)
    return (target, kept) if kept else None


def _finite(geometry: BaseGeometry) -> bool:
    return bool(np.isfinite(shapely.get_coordinates(geometry)).all())


def _kept(raw: RawRecord, geometry: BaseGeometry | None, log: ProblemLog) -> RawRecord | None:
    if geometry is None:
        return RawRecord(raw.spot, raw.cells, None)
    if geometry.geom_type == "Point":
        cells = {**raw.cells, "latitude": geometry.y, "longitude": geometry.x}
        return RawRecord(raw.spot, cells, None)
    if isinstance(geometry, MultiLineString):
        merged = shapely.line_merge(geometry)
        geometry = merged if isinstance(merged, LineString) else geometry
    elif not geometry.is_valid and geometry.geom_type in ("Polygon", "MultiPolygon"):
        repaired = _repaired(geometry, raw.spot, log)
        if repaired is None:
            return None
        geometry = repaired
    return RawRecord(raw.spot, raw.cells, geometry)


def _repaired(geometry: BaseGeometry, spot: Spot, log: ProblemLog) -> BaseGeometry | None:
    """The polygonal part of `make_valid(geometry)`, with a warning saying what was wrong."""
    reason = shapely.is_valid_reason(geometry)
    parts = [
        part
        for part in shapely.get_parts(shapely.make_valid(geometry))
        if part.geom_type in ("Polygon", "MultiPolygon")
    ]
    if not parts:
        log.error(spot.file, spot.where, "geometry", "a polygon with an area", reason)
        return None
    expected = "a valid polygon (repaired: only the polygonal part of make_valid is kept)"
    log.warn(spot.file, spot.where, "geometry", expected, reason)
    polygonal: BaseGeometry = shapely.unary_union(parts)
    return polygonal


READERS: dict[str, Reader] = {
    "csv": _read_csv,
    "xlsx": _read_workbook,
    "ods": _read_workbook,
    "geojson": _read_geojson,
    "kml": _read_kml,
    "gpx": _read_gpx,
    "gpkg": _read_gpkg,
    "zip": _read_zip,
}
