"""Live tracking: position reports turned into where each convoy is, and whether it should be.

Reports come as files (`read_positions`: CSV, GPX or GeoJSON) or as lines appended to a CSV
file that a radio operator or a GPS gateway keeps writing (`Follower`). `track_states` measures
each convoy's reports against its planned route (`timeline.route_of`) in metres: the route and
the reports are projected to the UTM zone of the route's centre, and linear referencing gives
the distance done along the route, the distance left and how far off the line the convoy is.
The thresholds are in `Rules`.

The formats, one report each:

- CSV: columns convoy, time, latitude, longitude, and optionally speed_kmh and note, one report
  per line (a note may not hold a line break). Latitude and longitude may be spelled as
  `geo.readers` accepts them (lat, lon, lng…).
- GPX: every track point (<trkpt>) of a track whose <name> is the convoy id; its <time> is
  the time of the report and its <desc>, if any, the note. Waypoints and routes are not read.
- GeoJSON: Point features with the properties convoy and time (speed_kmh and note optional).

Times are ISO 8601 with a UTC offset and are kept in UTC. Every bad row is named in the
`ProblemLog` (file, row or feature, field, what was expected, what came); the good rows are
kept.
"""

from __future__ import annotations

import csv
import functools
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from operator import attrgetter
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree.ElementTree import Element

import numpy as np
import pyproj
import shapely
from shapely.geometry import LineString

from geo import _fields as f
from geo import _memo, timeline
from geo._fields import Field, Spot
from geo.errors import ProblemLog
from geo.readers import LATITUDE_ALIASES, LONGITUDE_ALIASES, SUFFIXES, _xml_root, read_file
from geo.records import Convoy, Position, Scenario

__all__ = [
    "FIELDS",
    "Follower",
    "Movement",
    "Position",
    "Rules",
    "TrackState",
    "read_positions",
    "track_states",
]

FIELDS = (
    Field("convoy", f.identifier),
    Field("time", f.moment),
    Field("latitude", f.number(-90, 90)),
    Field("longitude", f.number(-180, 180)),
    Field("speed_kmh", f.number(0, 500), required=False),
    Field("note", f.text, required=False),
)
"""The fields of one report, in every format."""

FORMATS_HINT = "a CSV, GPX or GeoJSON file of position reports"
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


def read_positions(path: Path | str, *, log: ProblemLog, name: str | None = None) -> list[Position]:
    """Every good report in a CSV, GPX or GeoJSON file; each bad row or feature goes to `log`.

    Parameters
    ----------
    path
        The file; an upload may be a temporary file with any name.
    log
        Collects every problem, each naming the file, the row or feature, the field, what
        was expected and what came.
    name
        The file's name as the user knows it, used in messages and to tell the format
        (default: the path's name).
    """
    path = Path(path)
    label = name or path.name
    suffix = PurePosixPath(label).suffix.lower()
    kind = SUFFIXES.get(suffix)
    before = len(log)
    if kind == "csv":
        found = Follower(path, name=label).read_all(log)
    elif kind == "gpx":
        found = _gpx_positions(path, label, log)
    elif kind == "geojson":
        found = _geojson_positions(path, label, log)
    else:
        log.error(label, "", "", f"{FORMATS_HINT} (.csv, .gpx, .geojson)", suffix or label)
        return []
    if not found and len(log) == before:
        log.warn(label, "", "", "at least one position report", "none")
    return found


def _position(cells: dict[str, Any], spot: Spot, log: ProblemLog) -> Position | None:
    values = f.parse_fields(cells, FIELDS, spot, log)
    if values is None:
        return None
    return Position(
        values["convoy"],
        values["time"],
        values["latitude"],
        values["longitude"],
        values.get("speed_kmh"),
        values.get("note", ""),
    )


def _gpx_positions(path: Path, file: str, log: ProblemLog) -> list[Position]:
    root = _xml_root(path, file, "gpx", log)
    if root is None:
        return []
    for tag, noun in (("wpt", "waypoint"), ("rte", "route")):
        if count := len(root.findall(tag)):
            found = f"{count} {noun}{'s' if count > 1 else ''} (not read)"
            log.warn(file, "", "", "track points (<trkpt>) only", found)
    return [
        position
        for number, track in enumerate(root.iterfind("trk"), start=1)
        for position in _track_positions(track, Spot(file, f"track #{number}"), log)
    ]


def _track_positions(track: Element, spot: Spot, log: ProblemLog) -> list[Position]:
    convoy = _text(track, "name")
    try:
        f.identifier(convoy)
    except f.FieldError as error:
        log.error(
            spot.file, spot.where, "name", f"the convoy id as the track's name: {error}", convoy
        )
        return []
    found = []
    for number, point in enumerate(track.iterfind("trkseg/trkpt"), start=1):
        cells = {
            "convoy": convoy,
            "time": _text(point, "time"),
            "latitude": point.get("lat"),
            "longitude": point.get("lon"),
            "note": _text(point, "desc"),
        }
        where = f"{spot.where} {convoy!r}, point #{number}"
        found.append(_position(cells, Spot(spot.file, where), log))
    return [position for position in found if position]


def _text(element: Element, tag: str) -> str:
    child = element.find(tag)
    return (child.text or "").strip() if child is not None else ""


def _geojson_positions(path: Path, file: str, log: ProblemLog) -> list[Position]:
    found = []
    for table in read_file(path, log=log, name=file):
        for raw in table.rows:
            if table.layer != "places":  # a point becomes a "places" row with coordinate cells
                kind = raw.geometry.geom_type if raw.geometry is not None else None
                log.error(raw.spot.file, raw.spot.where, "geometry", "a Point (one report)", kind)
                continue
            found.append(_position(raw.cells, raw.spot, log))
    return [position for position in found if position]


# Following a growing file ------------------------------------------------------------------


class Follower:
    """A CSV file of reports that grows: each call reads only the lines appended since the last.

    The first line is the header. A last line without its line break yet is being written: it
    is kept until the next call completes it. A file that became shorter than what was read,
    or was replaced by another file (rotated), is read again from its start; one truncated and
    then written past its old length between two calls cannot be told from one appended to.
    """

    def __init__(self, path: Path | str, *, name: str | None = None) -> None:
        self.path = Path(path)
        self.name = name or self.path.name
        self._identity: tuple[int, int] | None = None
        self._restart()

    def _restart(self) -> None:
        self._offset = 0
        self._pending = b""
        self._line = 0
        self._keys: list[str | None] | None = None

    def new_positions(self, log: ProblemLog) -> list[Position]:
        """The reports of the lines completed since the last call; bad rows go to `log`."""
        return self._read(log, final=False)

    def read_all(self, log: ProblemLog) -> list[Position]:
        """Like `new_positions`, but the last line counts even without a line break."""
        return self._read(log, final=True)

    def _read(self, log: ProblemLog, *, final: bool) -> list[Position]:
        try:
            with self.path.open("rb") as handle:
                status = os.fstat(handle.fileno())
                identity = (status.st_dev, status.st_ino)
                if identity != self._identity or status.st_size < self._offset:
                    self._restart()
                    self._identity = identity
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError as error:
            log.error(self.name, "", "", "a readable UTF-8 CSV file", str(error))
            return []
        self._offset += len(chunk)
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()  # b"" after a line break; else a line still being written
        if final and self._pending:
            lines.append(self._pending)
            self._pending = b""
        found = [self._row(line, log) for line in lines]
        return [position for position in found if position]

    def _row(self, line: bytes, log: ProblemLog) -> Position | None:
        self._line += 1
        where = f"row {self._line}"
        try:
            text = line.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as error:
            log.error(self.name, where, "", "a line of UTF-8 text", str(error))
            return None
        if self._line == 1:
            text = text.removeprefix("\ufeff")
        if not text.strip():
            return None  # a blank line holds nothing
        try:
            cells = next(csv.reader([text]))
        except csv.Error as error:
            log.error(self.name, where, "", "well-formed CSV, one report per line", str(error))
            return None
        if self._keys is None:
            self._keys = _header(cells, self.name, log)
            return None
        if len(cells) != len(self._keys):
            expected = f"{len(self._keys)} cells, one per column of the header"
            log.error(self.name, where, "", expected, f"{len(cells)} cells")
            return None
        row = {key: cell for key, cell in zip(self._keys, cells, strict=True) if key}
        return _position(row, Spot(self.name, where), log)


class Feed:
    """A watched file's reports so far, for one scenario, and those not yet kept elsewhere.

    `poll` reads the lines appended since the last call and adds their reports to `reports`
    and `unsaved` in one step, so that a caller interrupted between two of its own statements
    (a Streamlit rerun, say) never loses what the file gave. A report already held (the same
    convoy, time and place: a rotated file read again from its start) is not added twice.
    """

    def __init__(self, path: Path | str, scenario_id: str, kept: Iterable[Position] = ()) -> None:
        self.follower = Follower(path)
        self.scenario_id = scenario_id
        self._held = set(kept)
        self.reports: list[Position] = sorted(self._held, key=attrgetter("time"))
        self.unsaved: list[Position] = []

    @property
    def path(self) -> Path:
        return self.follower.path

    def poll(self, log: ProblemLog) -> list[Position]:
        """The reports new since the last call; bad rows go to `log`."""
        read = self.follower.new_positions(log)
        fresh = [p for p in dict.fromkeys(read) if p not in self._held]
        if fresh:
            self.reports = sorted([*self.reports, *fresh], key=attrgetter("time"))
            self.unsaved = [*self.unsaved, *fresh]
            self._held.update(fresh)
        return fresh

    def saved(self, count: int) -> None:
        """The first `count` unsaved reports are now kept."""
        self.unsaved = self.unsaved[count:]


def _header(cells: Sequence[str], file: str, log: ProblemLog) -> list[str | None]:
    """The field each column holds (None for one not read); missing and unknown ones logged."""
    names = [cell.strip() for cell in cells]
    keys: list[str | None] = [name or None for name in names]
    for target, aliases in (("latitude", LATITUDE_ALIASES), ("longitude", LONGITUDE_ALIASES)):
        if target not in keys:
            spelled = [i for i, key in enumerate(keys) if key and key.lower() in aliases]
            if spelled:
                keys[spelled[0]] = target
    for number, key in enumerate(keys):
        if key is not None and key in keys[:number]:
            log.error(file, "header", key, "each column once", "a second column so named")
            keys[number] = None
    f.check_columns([key for key in keys if key], FIELDS, file, log)
    return keys


# States ------------------------------------------------------------------------------------


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
    grouped: dict[str, list[Position]] = {}
    for position in positions:
        grouped.setdefault(position.convoy, []).append(position)
    if log is not None:
        _report_unknown(scenario, grouped, log)
    return {
        convoy.id: _state_of(scenario, convoy, grouped.get(convoy.id, []), at, rules)
        for convoy in scenario.convoys
    }


def _report_unknown(
    scenario: Scenario, grouped: dict[str, list[Position]], log: ProblemLog
) -> None:
    known = {convoy.id for convoy in scenario.convoys}
    for convoy_id, reports in grouped.items():
        if convoy_id not in known:
            noun = "report" if len(reports) == 1 else "reports"
            expected = f"the id of a convoy of scenario {scenario.id!r}"
            log.error("position reports", f"{len(reports)} {noun}", "convoy", expected, convoy_id)


@dataclass(frozen=True)
class _Track:
    """A convoy's reports from its departure up to the moment, oldest first, as arrays."""

    seconds: np.ndarray
    longitude: np.ndarray
    latitude: np.ndarray


def _state_of(
    scenario: Scenario, convoy: Convoy, reports: list[Position], at: datetime, rules: Rules
) -> TrackState:
    seen = sorted((report for report in reports if report.time <= at), key=_time)
    if not seen:
        return _bare(convoy.id, at, None, Movement.NO_REPORTS)
    latest = seen[-1]
    if convoy.depart is not None and latest.time < convoy.depart:
        return _bare(convoy.id, at, latest, Movement.BEFORE_DEPARTURE)
    departed = [r for r in seen if convoy.depart is None or r.time >= convoy.depart]
    track = _Track(
        np.array([report.time.timestamp() for report in departed]),
        np.array([report.longitude for report in departed]),
        np.array([report.latitude for report in departed]),
    )
    route = _projected_route(scenario, convoy.id)
    if route is None:
        return _unrouted(convoy.id, at, latest, track, rules)
    return _routed(convoy.id, at, latest, track, route, rules)


def _time(position: Position) -> datetime:
    return position.time


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
    latest = max((report.time for report in reports), default=scenario.start)
    if latest < now - REPLAY_AFTER:
        return latest, True
    return now, False
