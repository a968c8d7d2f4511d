"""A scenario's events as columns (numpy arrays), made once per scenario, and the events of a
time window and types picked from them: what the map, the analysis and the exports read."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from geo import _memo
from geo.event_table import EventTable
from geo.records import Scenario

EPOCH = date(1970, 1, 1)


@dataclass(frozen=True)
class EventColumns:
    """Every event of a scenario as columns: what the map filters and sends."""

    latitude: npt.NDArray[np.float64]
    longitude: npt.NDArray[np.float64]
    day: npt.NDArray[np.int32]
    """Days since 1970-01-01."""
    kind: npt.NDArray[np.int16]
    """Index into `kinds`."""
    fatalities: npt.NDArray[np.int32]
    place: npt.NDArray[np.int32]
    """Index into `places`."""
    kinds: list[str]
    places: list[str]


def columns(scenario: Scenario) -> EventColumns:
    """The scenario's events as columns, made once per scenario."""
    return _memo.derived(scenario.events, "event-columns", lambda: _columns(scenario))


def _columns(scenario: Scenario) -> EventColumns:
    events = scenario.events
    if isinstance(events, EventTable):
        return _from_table(events)
    kinds = sorted({event.event_type for event in events})
    places = sorted({event.location for event in events})
    kind_of = {name: i for i, name in enumerate(kinds)}
    place_of = {name: i for i, name in enumerate(places)}
    return EventColumns(
        latitude=np.array([e.latitude for e in events], dtype=np.float64),
        longitude=np.array([e.longitude for e in events], dtype=np.float64),
        day=np.array([(e.date - EPOCH).days for e in events], dtype=np.int32),
        kind=np.array([kind_of[e.event_type] for e in events], dtype=np.int16),
        fatalities=np.array([e.fatalities for e in events], dtype=np.int32),
        place=np.array([place_of[e.location] for e in events], dtype=np.int32),
        kinds=kinds,
        places=places,
    )


def _from_table(events: EventTable) -> EventColumns:
    """The same columns taken from the table's own (no Event is made)."""
    kinds = sorted(pc.unique(events.column("event_type")).to_pylist())
    places = sorted(pc.unique(events.column("location")).to_pylist())
    days = pc.cast(events.column("date"), pa.int32())  # (days since 1970-01-01)
    return EventColumns(
        latitude=events.column("latitude").to_numpy(),
        longitude=events.column("longitude").to_numpy(),
        day=days.to_numpy(zero_copy_only=False).astype(np.int32),
        kind=_positions(events.column("event_type"), kinds).astype(np.int16),
        fatalities=events.column("fatalities").to_numpy().astype(np.int32),
        place=_positions(events.column("location"), places).astype(np.int32),
        kinds=kinds,
        places=places,
    )


def _positions(column: pa.Array, names: list[str]) -> npt.NDArray[np.int64]:
    found: npt.NDArray[np.int64] = pc.index_in(
        column, value_set=pa.array(names, pa.string())
    ).to_numpy(zero_copy_only=False)
    return found


def selection(
    scenario: Scenario, at: Any, *, days: int | None, types: frozenset[str] | None
) -> npt.NDArray[np.intp]:
    """Indexes of the events on or before `at`'s day (UTC), of the last `days` days and `types`."""
    table = columns(scenario)
    last = (at.astimezone(UTC).date() - EPOCH).days
    keep = table.day <= last
    if days:
        keep &= table.day > last - days
    if types is not None:
        wanted = [i for i, name in enumerate(table.kinds) if name in types]
        keep &= np.isin(table.kind, wanted)
    return np.flatnonzero(keep)
