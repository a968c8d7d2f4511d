"""GeoPackages, and the Shapefiles a zip holds, read through GDAL (pyogrio) into EPSG:4326."""

from __future__ import annotations

import contextlib
import math
import sqlite3
import warnings
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import pyogrio.errors
import shapely
import shapely.errors
from shapely.geometry.base import BaseGeometry

from geo._schema import RawRecord
from geo.errors import ProblemLog
from geo.readers.base import LAYERS, Table, row_spot, tables
from geo.readers.safezip import ZipLimits

SUFFIXES = {".gpkg": "gpkg"}
"""The names this module reads, and the format each is (a zipped Shapefile: see `zipped`)."""
OGR_ERRORS = (
    pyogrio.errors.DataSourceError,
    pyogrio.errors.DataLayerError,
    pyogrio.errors.FieldError,
    pyogrio.errors.FeatureError,
    pyogrio.errors.GeometryError,
    pyogrio.errors.CRSError,
)


def read(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    """Every layer of a GeoPackage with geometry, or named as one of LAYERS, as tables
    ("file.gpkg:layer" in messages); `limits` is not used."""
    try:
        with _gdal_warnings(file, log):
            listing = pyogrio.list_layers(path)
    except OGR_ERRORS as error:
        log.error(file, "", "", "a readable GeoPackage", str(error))
        return []
    tables: list[Table] = []
    for layer_name, geometry_type in listing:
        label = f"{file}:{layer_name}"
        own = layer or layer_named(layer_name)
        if own is None and geometry_type is None:
            expected = f"a table with geometry, or one named {', '.join(LAYERS)}"
            log.warn(label, "", "", expected, "a table without geometry (not read)")
            continue
        tables += read_layer(path, layer_name, label, own, "a CRS", log)
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


def layer_named(name: str) -> str | None:
    """The layer a GeoPackage table or Shapefile is named for (any case), if it is one."""
    return name.lower() if name.lower() in LAYERS else None


def read_layer(
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
        spot = row_spot(file, f"feature #{number}", cells)
        if fid in unreadable:  # GDAL reads a corrupt blob as no geometry: say so, keep it out
            expected = "a geometry GDAL can read (the row would be placed by its name instead)"
            log.error(file, spot.where, "geometry", expected, "a corrupt geometry blob")
            continue
        pairs.append((layer_name, RawRecord(spot, cells, geometry)))
    return tables(pairs, layer, log)


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
