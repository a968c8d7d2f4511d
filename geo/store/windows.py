"""A workspace's large layers (events, positions) read by time window and map extent."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import geopandas as gpd
import pandas as pd

from geo import _schema as s
from geo.errors import WorkspaceError
from geo.store.base import Workspace
from geo.store.layout import CRS, POSITION_FIELDS, POSITIONS_LAYER, SCENARIO_ID, TIME_FIELDS, Window

Extent = tuple[float, float, float, float]
"""West, south, east, north, in degrees (as `geo.store.layout.Window` takes it)."""
FIELDS = {
    "events": [SCENARIO_ID, *s.field_names(s.EVENTS)],
    POSITIONS_LAYER: list(POSITION_FIELDS),
}
"""Each large layer's fields, as the workspace writes them."""


def rows_in(
    workspace: Workspace,
    layer: str,
    scenario_id: str,
    *,
    start: date | datetime | None = None,
    end: date | datetime | None = None,
    extent: Extent | None = None,
    columns: Sequence[str] | None = None,
    geometry: bool = True,
) -> pd.DataFrame:
    """The scenario's rows of `layer` from `start` to `end` (both included; a date means the
    whole day) whose point lies in `extent`, with `columns` (all when None) and the geometry
    (unless `geometry` is False), oldest first.

    Only those rows are read, through the GeoPackage's R-tree and its (scenario, time) index.
    Times are UTC; an events date comes as midnight of its day (datetime64). A layer the
    workspace does not hold yet gives no rows.

    Chosen by measurement (`bench/events_store.py`: a workspace of 1,000,000 events read
    through this function, this project's machine): a week over the whole country in 22 ms, a
    month around Aleppo in 139 ms, a city's view of one day in 29 ms; GeoParquet read by DuckDB
    answered each in 30-38 ms and was written 9x faster into a sixth of the space, but a
    Parquet file is rewritten whole for each edit, undo and weekly revision, and would be a
    second file beside the one QGIS opens.
    """
    field = TIME_FIELDS.get(layer)
    if field is None:
        expected = f"one of the layers {', '.join(TIME_FIELDS)}"
        raise WorkspaceError(f"{workspace.label}: expected {expected}, got {layer!r}")
    if not workspace.exists() or layer not in workspace.layer_names():
        names = list(dict.fromkeys([*(columns or FIELDS[layer]), field]))
        empty: pd.DataFrame = gpd.GeoDataFrame(columns=[*names, "geometry"], geometry="geometry",
                                               crs=CRS)  # fmt: skip
        if not geometry:
            empty = pd.DataFrame(empty.drop(columns="geometry"))
        return _typed(empty, layer, start, end, columns)
    low, high = _bounds(layer, start, end)
    wanted = None if columns is None else list(dict.fromkeys([*columns, field]))
    window = Window(layer, scenario_id, field, low, high, extent, wanted, geometry)
    return _typed(workspace.rows_in_window(window), layer, start, end, columns)


def _typed(
    frame: pd.DataFrame,
    layer: str,
    start: date | datetime | None,
    end: date | datetime | None,
    columns: Sequence[str] | None,
) -> pd.DataFrame:
    """Times as datetime64 (ms; UTC for positions) whether or not rows were found, the exact
    window kept (the file is asked for whole seconds), oldest first, and only `columns`."""
    field = TIME_FIELDS[layer]
    if layer == "events":
        frame[field] = pd.to_datetime(frame[field], format="ISO8601").astype("datetime64[ms]")
    else:
        moments = pd.to_datetime(frame[field], utc=True).astype("datetime64[ms, UTC]")
        frame[field] = moments
        inside = pd.Series(True, index=frame.index)
        if start is not None:
            inside &= moments >= pd.Timestamp(_utc(start))
        if isinstance(end, datetime):
            inside &= moments <= pd.Timestamp(_utc(end))
        frame = frame[inside]
    frame = frame.sort_values(field, kind="stable").reset_index(drop=True)
    if columns is not None and field not in columns:
        frame = frame.drop(columns=field)
    return frame


def _bounds(
    layer: str, start: date | datetime | None, end: date | datetime | None
) -> tuple[str | None, str | None]:
    """A window as the file's text compares: from the first day (or second) in it to the first
    after it. Dates are 'YYYY-MM-DD'; times are UTC to the second, which sorts before the same
    second's '…Z' and '….123Z'."""
    if layer == "events":
        first = _day(start) if start is not None else None
        after = _day(end) + timedelta(days=1) if end is not None else None
        return _text(first), _text(after)
    low = _utc(start).replace(microsecond=0) if start is not None else None
    high = None
    if isinstance(end, datetime):
        high = _utc(end).replace(microsecond=0) + timedelta(seconds=1)
    elif end is not None:
        high = _utc(end) + timedelta(days=1)
    return _text(low), _text(high)


def _day(moment: date | datetime) -> date:
    """An event's day is a calendar day where it happened: a moment gives the day of its own
    clock (15 December 00:00 +02:00 is the 15th), not of UTC."""
    return moment.date() if isinstance(moment, datetime) else moment


def _text(moment: date | None) -> str | None:
    if moment is None:
        return None
    if isinstance(moment, datetime):
        return moment.replace(tzinfo=None).isoformat(timespec="seconds")
    return moment.isoformat()


def _utc(moment: date | datetime) -> datetime:
    if not isinstance(moment, datetime):
        return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
