"""Live tracking: position reports turned into where each convoy is, and whether it should be.

Reports are read by `geo.positions`. `track_states` measures each convoy's reports against its
planned route (`timeline.route_of`) in metres: the route and the reports are projected to the
UTM zone of the route's centre, and linear referencing gives the distance done along the route,
the distance left and how far off the line the convoy is. The thresholds are in `Rules`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

import numpy as np
import pyproj
import shapely
from shapely.geometry import LineString

from geo import _memo, timeline
from geo.errors import ProblemLog
from geo.position_table import PositionTable, moment, nanoseconds
from geo.records import Convoy, Position, Scenario

__all__ = [
    "Movement",
    "Position",
    "Rules",
    "TrackState",
    "track_states",
]

SLOWEST_KMH = 0.5
"""At or below this speed along the route no ETA is given: the convoy is not closing in."""


class Movement(StrEnum):
    """What a convoy's reports say it is doing; the values of `TrackState.state`."""

    NO_REPORTS = "no reports"
    BEFORE_DEPARTURE = "before departure"
    MOVING = "moving"
    STOPPED = "stopped"
    OFF_ROUTE = "off route"
    ARRIVED = "arrived"


@dataclass(frozen=True)
class Rules:
    """The thresholds that turn reports into a state; every one can be set."""

    stopped_minutes: float = 20.0
    """No progress along the route for this long makes a convoy "stopped"."""
    stopped_progress_m: float = 200.0
    """No progress means every report over `stopped_minutes` is within this many metres, along
    the route, of the latest one (without a route: within this many metres of it)."""
    off_route_m: float = 1_000.0
    """Farther than this from the planned route makes a convoy "off route"."""
    speed_window_minutes: float = 30.0
    """The observed speed is the progress gained over the reports of this window, up to the
    latest one."""
    arrived_m: float = 300.0
    """Fewer metres than this left to go (and on the route) makes a convoy "arrived"…"""
    arrived_share: float = 0.99
    """… and so does having done this share of the route or more."""

    def __post_init__(self) -> None:
        for name in ("stopped_minutes", "stopped_progress_m", "off_route_m",
                     "speed_window_minutes", "arrived_m"):  # fmt: skip
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"Rules.{name} must be more than 0, got {value!r}")
        if not 0 < self.arrived_share <= 1:
            raise ValueError(f"Rules.arrived_share must be in (0, 1], got {self.arrived_share!r}")


@dataclass(frozen=True)
class TrackState:
    """A convoy at a moment, as its reports up to that moment tell it."""

    convoy: str
    at: datetime
    latest: Position | None
    """The latest report at or before `at`; None when there is none."""
    age_minutes: float | None
    """How old the latest report is at `at`."""
    done_m: float | None
    """Metres done along the planned route, at the latest report."""
    left_m: float | None
    progress: float | None
    """Share of the planned route done, 0-1; None before departure or without a route."""
    off_route_m: float | None
    """Metres between the latest report and the planned route."""
    speed_kmh: float | None
    """Progress along the route per hour over `Rules.speed_window_minutes` (negative when going
    back), or else the latest report's own speed."""
    eta: datetime | None
    """The latest report's time plus the distance left at `speed_kmh`; None once arrived or
    when the convoy is not closing in."""
    state: str
    """One of `Movement`: "no reports", "before departure", "moving", "stopped", "off route",
    "arrived" (off route wins over stopped when both hold)."""
    flags: tuple[str, ...]
    """What is wrong, in this order: "stopped", "off route" (a convoy that has arrived is not
    flagged as stopped)."""


# Reading files -----------------------------------------------------------------------------


def track_states(
    scenario: Scenario,
    positions: Iterable[Position],
    at: datetime,
    *,
    rules: Rules = Rules(),
    log: ProblemLog | None = None,
) -> dict[str, TrackState]:
    """Each of the scenario's convoys at `at`, from its reports up to `at`, by convoy id.

    Reports after `at` are not seen. A report before the convoy's departure gives "before
    departure", and does not count as progress or as a stop. Reports for a convoy the scenario
    does not have are left out, and named in `log` when one is given.
    """
    if at.utcoffset() is None:
        raise ValueError(f"track_states needs a moment with a UTC offset, got {at!r}")
    table = PositionTable.of(positions)
    if log is not None:
        _report_unknown(scenario, table.counts(), log)
    return {convoy.id: _state_of(scenario, convoy, table, at, rules) for convoy in scenario.convoys}


def _report_unknown(scenario: Scenario, counts: dict[str, int], log: ProblemLog) -> None:
    known = {convoy.id for convoy in scenario.convoys}
    for convoy_id, count in counts.items():
        if convoy_id not in known:
            noun = "report" if count == 1 else "reports"
            expected = f"the id of a convoy of scenario {scenario.id!r}"
            log.error("position reports", f"{count} {noun}", "convoy", expected, convoy_id)


@dataclass(frozen=True)
class _Track:
    """A convoy's reports from its departure up to the moment, oldest first, as arrays."""

    seconds: np.ndarray
    longitude: np.ndarray
    latitude: np.ndarray


def _state_of(
    scenario: Scenario,
    convoy: Convoy,
    table: PositionTable,
    at: datetime,
    rules: Rules,
) -> TrackState:
    seen = table.rows_until(convoy.id, at)
    if not len(seen):
        return _bare(convoy.id, at, None, Movement.NO_REPORTS)
    latest = table[int(seen[-1])]
    if convoy.depart is not None and latest.time < convoy.depart:
        return _bare(convoy.id, at, latest, Movement.BEFORE_DEPARTURE)
    first = 0
    if convoy.depart is not None:
        first = int(np.searchsorted(table.ns[seen], nanoseconds(convoy.depart), side="left"))
    departed = seen[first:]
    track = _Track(
        (table.ns[departed] // 1000) / 1e6,  # (as datetime.timestamp gives them: whole µs)
        table.longitude[departed],
        table.latitude[departed],
    )
    route = _projected_route(scenario, convoy.id)
    if route is None:
        return _unrouted(convoy.id, at, latest, track, rules)
    return _routed(convoy.id, at, latest, track, route, rules)


def _age(at: datetime, latest: Position) -> float:
    return (at - latest.time).total_seconds() / 60


def _bare(convoy_id: str, at: datetime, latest: Position | None, state: Movement) -> TrackState:
    """A state with no measures: no reports, or only reports from before departure."""
    age = _age(at, latest) if latest else None
    return TrackState(convoy_id, at, latest, age, None, None, None, None, None, None, state, ())


def _window(seconds: np.ndarray, minutes: float) -> int:
    """The index of the first report within `minutes` before the last one."""
    return int(np.searchsorted(seconds, seconds[-1] - minutes * 60, side="left"))


def _anchor(seconds: np.ndarray, minutes: float) -> int | None:
    """The index of the last report at least `minutes` before the last one; None if none is."""
    index = int(np.searchsorted(seconds, seconds[-1] - minutes * 60, side="right")) - 1
    return index if index >= 0 else None


def _routed(
    convoy_id: str, at: datetime, latest: Position, track: _Track, route: _Route, rules: Rules
) -> TrackState:
    window = _window(track.seconds, rules.speed_window_minutes)
    anchor = _anchor(track.seconds, rules.stopped_minutes)
    first = min(window, len(track.seconds) - 1 if anchor is None else anchor)
    x, y = route.to_metres.transform(track.longitude[first:], track.latitude[first:])
    points = shapely.points(np.asarray(x), np.asarray(y))
    done = shapely.line_locate_point(route.line, points)
    done_m, off_m = float(done[-1]), float(shapely.distance(route.line, points[-1]))
    left_m, progress = max(route.length - done_m, 0.0), done_m / route.length
    speed = _speed(track.seconds[window:], done[window - first :], latest)
    stopped = anchor is not None and bool(
        (np.abs(done[anchor - first :] - done_m) < rules.stopped_progress_m).all()
    )
    off_route = off_m > rules.off_route_m
    arrived = not off_route and (left_m < rules.arrived_m or progress >= rules.arrived_share)
    flags = _flags(stopped=stopped and not arrived, off_route=off_route)
    state = Movement.ARRIVED if arrived else _worst(flags)
    eta = None
    if not arrived and speed is not None and speed > SLOWEST_KMH:
        eta = latest.time + timedelta(hours=left_m / 1000 / speed)
    age = _age(at, latest)
    measures = (done_m, left_m, progress, off_m, speed, eta)
    return TrackState(convoy_id, at, latest, age, *measures, state=state, flags=flags)


def _flags(*, stopped: bool, off_route: bool) -> tuple[str, ...]:
    raised = ((Movement.STOPPED, stopped), (Movement.OFF_ROUTE, off_route))
    return tuple(str(flag) for flag, up in raised if up)


def _worst(flags: tuple[str, ...]) -> Movement:
    """The state the flags give: off route before stopped, and moving when none is raised."""
    for state in (Movement.OFF_ROUTE, Movement.STOPPED):
        if state in flags:
            return state
    return Movement.MOVING


def _speed(seconds: np.ndarray, done: np.ndarray, latest: Position) -> float | None:
    """km/h along the route over the window's reports; the report's own speed if they span none."""
    span = float(seconds[-1] - seconds[0])
    if span <= 0:
        return latest.speed_kmh
    return float(done[-1] - done[0]) / span * 3.6


def _unrouted(
    convoy_id: str, at: datetime, latest: Position, track: _Track, rules: Rules
) -> TrackState:
    """Without a route: the latest report, its age and speed, and whether the convoy stands."""
    anchor = _anchor(track.seconds, rules.stopped_minutes)
    stopped = False
    if anchor is not None:
        to_metres = _to_metres(_utm_epsg(latest.longitude, latest.latitude))
        x, y = to_metres.transform(track.longitude[anchor:], track.latitude[anchor:])
        moved = np.hypot(np.asarray(x) - x[-1], np.asarray(y) - y[-1])
        stopped = bool((moved < rules.stopped_progress_m).all())
    flags = _flags(stopped=stopped, off_route=False)
    measures = (None, None, None, None, latest.speed_kmh, None)
    age = _age(at, latest)
    return TrackState(convoy_id, at, latest, age, *measures, state=_worst(flags), flags=flags)


# Routes in metres --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Route:
    """A planned route in the metres of a UTM zone, and the transformer into that zone."""

    line: LineString
    length: float
    to_metres: pyproj.Transformer


def _projected_route(scenario: Scenario, convoy_id: str) -> _Route | None:
    """The convoy's route in metres, made once per scenario and convoy; None without a route."""
    made: dict[str, _Route | None] = _memo.derived(scenario.routes, "tracking", dict)
    if convoy_id not in made:
        made[convoy_id] = _in_metres(timeline.route_of(scenario, convoy_id))
    return made[convoy_id]


def _in_metres(line: LineString | None) -> _Route | None:
    if line is None or line.is_empty:
        return None
    centre = line.centroid
    to_metres = _to_metres(_utm_epsg(centre.x, centre.y))
    projected = shapely.transform(line, lambda xy: np.column_stack(to_metres.transform(*xy.T)))
    shapely.prepare(projected)
    length = float(projected.length)
    return _Route(projected, length, to_metres) if length > 0 else None


def _utm_epsg(longitude: float, latitude: float) -> int:
    """The EPSG code of the WGS 84 UTM zone holding this point (north 326xx, south 327xx)."""
    zone = math.floor((longitude + 180) / 6) % 60 + 1
    return (32600 if latitude >= 0 else 32700) + zone


@functools.lru_cache(maxsize=16)
def _to_metres(epsg: int) -> pyproj.Transformer:
    return pyproj.Transformer.from_crs(4326, epsg, always_xy=True)


REPLAY_AFTER = timedelta(days=1)
"""Reports older than this are a past track: it is replayed as of its last report."""


def as_of(scenario: Scenario, reports: Sequence[Position], now: datetime) -> tuple[datetime, bool]:
    """The moment live states are worked out for, and whether that is a replay: now, or the
    latest report's time when every report is more than a day old (an old track)."""
    newest = PositionTable.of(reports).latest_ns()
    latest = scenario.start if newest is None else moment(newest)
    if latest < now - REPLAY_AFTER:
        return latest, True
    return now, False
