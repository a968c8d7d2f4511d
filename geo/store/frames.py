"""Records to layer rows and back: the frames a store writes and the cells it reads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import pyarrow
import pyarrow.compute as pc
import shapely

from geo import _fields as f
from geo import _schema as s
from geo import event_table
from geo.builder import meta_fields
from geo.event_table import EventTable
from geo.records import Scenario
from geo.store.layout import (
    CRS,
    LAYERS,
    POINT_KINDS,
    SCENARIO_ID,
    SCENARIOS_LAYER,
    Layer,
    slices,
)


def point_cells(geometry: shapely.Geometry) -> tuple[object, object]:
    """A point feature's longitude and latitude; for another shape (a line, an empty point,
    several points: drawn so in QGIS), what it is, which the coordinates' check then refuses
    with the feature's id."""
    if isinstance(geometry, shapely.Point) and not geometry.is_empty:
        return geometry.x, geometry.y
    shape = f"an empty {geometry.geom_type}" if geometry.is_empty else f"a {geometry.geom_type}"
    said = f"the feature's shape: {shape}, not a point"
    return said, said


def row_cells(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as plain Python values: missing values None, timestamps timezone-aware datetimes.

    Made a column at a time (a value at a time cost 100,000 events 1.5 s).
    """
    columns = [column for column in frame.columns if column != "geometry"]
    values = [_plain_column(frame[column]) for column in columns]
    return [dict(zip(columns, row, strict=True)) for row in zip(*values, strict=True)]


def _plain_column(column: pd.Series) -> list[Any]:
    """A column's values as plain Python values (see `row_cells`)."""
    if isinstance(column.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(column):
        moments = column if column.dt.tz is not None else column.dt.tz_localize(UTC)
        made = moments.dt.to_pydatetime().tolist()  # (at once: one by one took 1.9 s a million)
        return [None if moment is pd.NaT else moment for moment in made]
    plain: list[Any] = column.astype(object).where(column.notna(), None).tolist()
    if column.dtype == object:  # a column of mixed values may hold timestamps
        plain = [_moment(value) if isinstance(value, pd.Timestamp) else value for value in plain]
    return plain


def _moment(value: pd.Timestamp) -> datetime:
    """A timestamp as an aware datetime (UTC when it has no zone)."""
    moment = value.to_pydatetime()
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def scenario_tables(scenario: Scenario) -> dict[str, pd.DataFrame]:
    """A scenario's rows of every scenario table (its metadata row included), by layer name."""
    tables = {SCENARIOS_LAYER: _meta_frame(scenario)}
    for layer in LAYERS:
        records = (
            scenario.sources if layer.kind is s.SOURCES else getattr(scenario, layer.kind.name)
        )
        tables[layer.kind.name] = records_frame(records, layer, scenario.id)
    return tables


def _meta_frame(scenario: Scenario) -> pd.DataFrame:
    """The scenarios layer's one row for a scenario (imported now)."""
    row: dict[str, object] = {SCENARIO_ID: scenario.id}
    row.update(
        {spec.name: getattr(scenario, spec.name) for spec in meta_fields() if spec.name != "id"}
    )
    row["countries"] = ";".join(scenario.countries)  # (a cell holds text: "SD;TD")
    row["imported_at"] = datetime.now(UTC)
    return typed_frame(pd.DataFrame([row]), MOMENTS[SCENARIOS_LAYER])


def records_frame(records: Sequence[Any], layer: Layer, scenario_id: str) -> pd.DataFrame:
    """A layer's rows made from records (a GeoDataFrame when the layer has shapes)."""
    if isinstance(records, EventTable):
        return event_frame(records, scenario_id)
    fields = layer.kind.fields(s.Known())
    names = [SCENARIO_ID, *(spec.name for spec in fields)]
    cells = [s.to_cells(record, layer.kind) for record in records]
    columns = {name: [row[name] for row in cells] for name in names[1:]}  # (column by column:
    columns = {SCENARIO_ID: [scenario_id] * len(cells), **columns}  # rows of dicts took 2x)
    empty = None if cells else object  # (no rows: text fields, as a list of rows would make)
    frame = typed_frame(pd.DataFrame(columns, columns=names, dtype=empty), moment_columns(fields))
    if layer.geometry_type is None:
        return frame
    if layer.kind in POINT_KINDS:  # made at once: one by one cost 2 s per 100,000
        longitudes = np.fromiter((r.longitude for r in records), float, len(records))
        points = shapely.points(longitudes, np.fromiter((r.latitude for r in records), float))
        geometry = gpd.GeoSeries(points, crs=CRS)
    else:
        geometry = gpd.GeoSeries([record.geometry for record in records], crs=CRS)
    spatial: pd.DataFrame = gpd.GeoDataFrame(frame, geometry=geometry, crs=CRS)
    return spatial


def event_frame(events: EventTable, scenario_id: str, *, for_arrow: bool = False) -> pd.DataFrame:
    """The events layer's rows taken from the table's columns, as `records_frame` makes them from
    records (sources joined by ';', days as dates, missing precisions None); `for_arrow`: kept
    in Arrow's types, days as ISO text, as `_write` hands them to GDAL (a million events made
    into Python values cost 5 s)."""
    if for_arrow:
        return _arrow_event_frame(events, scenario_id)
    columns: dict[str, Any] = {SCENARIO_ID: [scenario_id] * len(events)}
    for name in event_table.SCHEMA.names:
        column = events.cell_column(name)
        if name in ("geo_precision", "time_precision", "date", "source"):
            columns[name] = pd.Series(column.to_pylist(), dtype=object)
        else:
            columns[name] = column.to_pandas()
    names = [SCENARIO_ID, *s.field_names(s.EVENTS)]
    frame = typed_frame(pd.DataFrame(columns, columns=names), set())
    points = shapely.points(columns["longitude"].to_numpy(), columns["latitude"].to_numpy())
    spatial: pd.DataFrame = gpd.GeoDataFrame(frame, geometry=gpd.GeoSeries(points, crs=CRS))
    return spatial


def _arrow_event_frame(events: EventTable, scenario_id: str) -> pd.DataFrame:
    """`event_frame` in Arrow's types: days as ISO text, whole numbers nullable."""
    columns = {
        SCENARIO_ID: pyarrow.repeat(pyarrow.scalar(scenario_id, pyarrow.string()), len(events))
    }
    for name in s.field_names(s.EVENTS):
        column = events.cell_column(name)
        columns[name] = pc.cast(column, pyarrow.string()) if name == "date" else column
    frame = pyarrow.table(columns).to_pandas(types_mapper={pyarrow.int64(): pd.Int64Dtype()}.get)
    latitudes, longitudes = (events.column(name).to_numpy() for name in ("latitude", "longitude"))
    points = gpd.GeoSeries(shapely.points(longitudes, latitudes), crs=CRS)
    spatial: pd.DataFrame = gpd.GeoDataFrame(frame, geometry=points, crs=CRS)
    return spatial


def event_batches(
    events: EventTable, scenario_id: str, fields: Sequence[str]
) -> Iterator[pyarrow.RecordBatch]:
    """The events layer's rows as `event_frame(for_arrow=True)` hands them to GDAL, made
    BATCH_ROWS at a time straight from the columns: `fields` in that order, then the point as
    WKB in `geometry` (a million events as one GeoDataFrame took 390 MB more)."""
    for part in slices(len(events)):
        chunk = EventTable(events.table.slice(part.start, part.stop - part.start))
        columns = {
            SCENARIO_ID: pyarrow.repeat(pyarrow.scalar(scenario_id, pyarrow.string()), len(chunk))
        }
        for name in s.field_names(s.EVENTS):
            column = chunk.cell_column(name)
            columns[name] = pc.cast(column, pyarrow.string()) if name == "date" else column
        latitudes, longitudes = (chunk.column(n).to_numpy() for n in ("latitude", "longitude"))
        points = shapely.to_wkb(shapely.points(longitudes, latitudes))
        arrays = [columns[name] for name in fields] + [pyarrow.array(points, pyarrow.binary())]
        yield pyarrow.record_batch(arrays, names=[*fields, "geometry"])


def moment_columns(fields: list[f.Field]) -> set[str]:
    """The names of the fields that hold moments (times with a zone)."""
    return {spec.name for spec in fields if spec.parse is f.moment}


def typed_frame(frame: pd.DataFrame, moments: set[str]) -> pd.DataFrame:
    """The frame with its `moments` as UTC times to the millisecond and missing text None."""
    for column in frame.columns:
        if column in moments:
            frame[column] = pd.to_datetime(frame[column], utc=True).astype("datetime64[ms, UTC]")
        elif frame[column].dtype == object or str(frame[column].dtype) == "str":
            frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame


def as_stored(put: Mapping[str, Sequence[Any]]) -> bool:
    """Whether the records put hold their times as the file does (to the millisecond)."""
    for layer in LAYERS:
        moments = [spec.key for spec in layer.kind.fields(s.Known()) if spec.parse is f.moment]
        for record in put.get(layer.kind.name, ()) if moments else ():
            for key in moments:
                value = getattr(record, key)
                if isinstance(value, datetime) and value.microsecond % 1000:
                    return False
    return True


MOMENTS = {
    SCENARIOS_LAYER: {"start", "end", "imported_at"},
    **{layer.kind.name: moment_columns(layer.kind.fields(s.Known())) for layer in LAYERS},
}
"""Each scenario table's time columns."""
