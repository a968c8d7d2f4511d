"""Route risk: how much of each route runs through whose ground, where it crosses, what is near.

Distances are metres in the UTM zone of the scenario's routes and zones (pyproj). The risk level
of a route is a documented rule over these figures (`RiskRules.describe`), never an opaque score.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import pyproj
import shapely
import shapely.ops
from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry

from geo import _memo, event_columns, timeline
from geo.records import Control, ControlZone, Scenario
from geo.timeline import ConvoyState

PRIORITY = (Control.BESIEGED, Control.CONTESTED, Control.OPPOSITION, Control.GOVERNMENT,
            Control.OTHER)  # fmt: skip
"""Where zones overlap, the ground counts as the first of these (besieged before the rest)."""
NONE = "none"
DANGER = (Control.BESIEGED, Control.CONTESTED)
MOVING = (ConvoyState.PLANNED, ConvoyState.NOT_DEPARTED, ConvoyState.UNDER_WAY)
SEGMENT_DEGREES = 0.01
"""Lines and outlines are followed every 0.01° (about 1 km) when projected, so that a straight
edge in longitude and latitude stays within millimetres of itself in metres."""
MIN_PIECE_M = 1.0
"""Stretches shorter than this (rounding at a boundary) are not counted as ground crossed."""


class Reason(str):
    """Why a route has its level, as English text (tables, data exports) that keeps its
    template and values, so that a map in another language can say it (`said`). The values
    `named` are names on the map (a zone's), which a map writes as its place-name choice."""

    template: str
    values: dict[str, str | tuple[str, ...]]
    named: tuple[str, ...]

    def __new__(
        cls, template: str, *, named: tuple[str, ...] = (), **values: str | tuple[str, ...]
    ) -> Reason:
        joined = {k: " and ".join(v) if isinstance(v, tuple) else v for k, v in values.items()}
        made = super().__new__(cls, template.format(**joined) if values else template)
        made.template, made.values, made.named = template, values, named
        return made


def said(reason: str, words: Callable[..., str], name: Callable[[str], str] | None = None) -> str:
    """A reason in the language of `words` (a geo.messages.Words): its template and each of
    its values from the catalogue, its names as `name` writes them; plain text as it is."""
    if not isinstance(reason, Reason):
        return reason
    join = f" {words('and')} "
    values = {
        k: join.join(map(words, v)) if isinstance(v, tuple) else v for k, v in reason.values.items()
    }
    for key in reason.named:
        value = reason.values.get(key)
        if name is not None and isinstance(value, str):
            values[key] = name(value)
    return words(reason.template, **values) if values else words(reason.template)


@dataclass(frozen=True)
class RiskRules:
    """The thresholds of the risk rule; every figure it uses is in the route's report."""

    buffer_km: float = 5.0
    days: int = 7
    high_events: int = 10
    medium_events: int = 3
    near_km: float = 2.0
    gap_km: float = 2.0
    """Unmapped ground this short between two zones of different control is their front line."""

    def describe(self) -> str:
        return (
            f"HIGH if the route runs through besieged or contested ground, or has "
            f"{self.high_events}+ events within {self.buffer_km:g} km in the last {self.days} "
            f"days, or crosses 2+ front lines; MEDIUM if it crosses a front line, or has "
            f"{self.medium_events}+ such events, or passes within {self.near_km:g} km of besieged "
            f"or contested ground; LOW otherwise. A front line is crossed where control changes "
            f"from one zone to another, directly or over at most {self.gap_km:g} km of unmapped "
            f"ground. A planned or under-way convoy on a route that "
            f"runs through besieged or contested ground, or has {self.high_events}+ events, is "
            f"an ALERT."
        )


@dataclass(frozen=True)
class Crossing:
    """A change of control along a route: where, how far along, from what to what."""

    latitude: float
    longitude: float
    along_km: float
    before: str
    after: str
    gap_km: float = 0.0
    """Unmapped ground between the two zones, for a front line crossed over a gap."""

    @property
    def front_line(self) -> bool:
        """Between two zones of different control (not entering or leaving unmapped ground)."""
        return NONE not in (self.before, self.after)


@dataclass(frozen=True)
class RouteRisk:
    """One convoy's route at a moment: the figures, the level, and the reasons for it."""

    convoy: str
    label: str
    state: str
    length_km: float
    by_control_km: dict[str, float]
    crossings: list[Crossing]
    events: int
    events_by_type: dict[str, int]
    fatalities: int
    nearest_danger: str | None
    nearest_danger_km: float | None
    level: str
    reasons: list[str]
    alert: bool
    pieces: list[tuple[str, Any]] = field(default_factory=list, repr=False, compare=False)
    """(control, lon/lat LineString) stretches, for the map."""
    buffer: Any = field(default=None, repr=False, compare=False)
    """The event buffer as a lon/lat polygon, for the map."""

    @property
    def front_line_crossings(self) -> int:
        return sum(crossing.front_line for crossing in self.crossings)

    def to_json(self) -> dict[str, Any]:
        return {
            "convoy": self.convoy, "label": self.label, "state": self.state,
            "length_km": round(self.length_km, 3),
            "by_control_km": {k: round(v, 3) for k, v in self.by_control_km.items()},
            "crossings": [
                {"latitude": round(c.latitude, 5), "longitude": round(c.longitude, 5),
                 "along_km": round(c.along_km, 3), "from": c.before, "to": c.after,
                 "front_line": c.front_line, "gap_km": round(c.gap_km, 3)}
                for c in self.crossings
            ],
            "front_line_crossings": self.front_line_crossings,
            "events": self.events, "events_by_type": self.events_by_type,
            "fatalities": self.fatalities, "nearest_danger": self.nearest_danger,
            "nearest_danger_km": None if self.nearest_danger_km is None
            else round(self.nearest_danger_km, 3),
            "level": self.level, "reasons": self.reasons, "alert": self.alert,
        }  # fmt: skip


def analyse(
    scenario: Scenario, at: datetime, *, rules: RiskRules | None = None, shapes: bool = False
) -> list[RouteRisk]:
    """Each convoy with a route, at `at`: ground by control, crossings, events, and the level.

    With `shapes`, each result also carries its stretches and buffer in lon/lat, for the map.
    """
    rules = rules or RiskRules()
    convoys = [c for c in scenario.convoys if timeline.route_of(scenario, c.id) is not None]
    if not convoys:
        return []
    frame = _Frame.of(scenario)
    zones = timeline.zones_at(scenario, at)
    ground = _ground(zones, frame)
    routes = [timeline.route_of(scenario, c.id) for c in convoys]
    lines = [frame.project(route) for route in routes]
    counts = _events_near(scenario, routes, at, rules, frame)
    danger = _Danger.of(zones, frame)
    found = []
    for convoy, line, (events, by_type, dead) in zip(convoys, lines, counts, strict=True):
        pieces = _pieces(line, ground)
        state = timeline.state_at(convoy, at)
        by_control = _lengths(pieces, line.length)
        through = any(by_control.get(c.value, 0.0) > 0 for c in DANGER)
        near = danger.nearest(line, through=through)
        crossings = _crossings(line, pieces, frame, rules.gap_km * 1000)
        level, reasons = _level(by_control, crossings, events, near, rules)
        crosses_danger = any(by_control.get(c.value, 0.0) > 0 for c in DANGER)
        alert = state in MOVING and (crosses_danger or events >= rules.high_events)
        found.append(RouteRisk(
            convoy=convoy.id, label=convoy.label, state=state.value,
            length_km=line.length / 1000, by_control_km=by_control,
            crossings=crossings, events=events, events_by_type=by_type,
            fatalities=dead, nearest_danger=near[0], nearest_danger_km=near[1],
            level=level, reasons=reasons, alert=alert,
            pieces=[(control, frame.unproject(piece)) for control, _, _, piece in pieces]
            if shapes else [],
            buffer=frame.unproject(line.buffer(rules.buffer_km * 1000, quad_segs=4))
            if shapes else None,
        ))  # fmt: skip
    return found


# --- a metric frame ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Frame:
    """Forward and back between lon/lat and the UTM zone of the scenario's middle."""

    forward: pyproj.Transformer
    back: pyproj.Transformer

    @classmethod
    def of(cls, scenario: Scenario) -> _Frame:
        return _memo.derived(scenario.routes, "utm-frame", lambda: cls._make(scenario))

    @classmethod
    def _make(cls, scenario: Scenario) -> _Frame:
        shapes = [r.geometry for r in scenario.routes] + [z.geometry for z in scenario.zones]
        west, south, east, north = shapely.total_bounds(np.array(shapes, dtype=object))
        info = pyproj.database.query_utm_crs_info(
            datum_name="WGS 84",
            area_of_interest=pyproj.aoi.AreaOfInterest(
                (west + east) / 2, (south + north) / 2, (west + east) / 2, (south + north) / 2
            ),
        )[0]
        utm = pyproj.CRS.from_epsg(int(info.code))
        return cls(
            pyproj.Transformer.from_crs(4326, utm, always_xy=True),
            pyproj.Transformer.from_crs(utm, 4326, always_xy=True),
        )

    def project(self, geometry: Any, *, follow: bool = True) -> Any:
        """In metres (edges followed every SEGMENT_DEGREES first, unless `follow` is off)."""
        if follow:
            geometry = shapely.segmentize(geometry, SEGMENT_DEGREES)
        return shapely.transform(geometry, self._forward_xy)

    def unproject(self, geometry: Any) -> Any:
        return shapely.transform(geometry, self._back_xy)

    def points(self, lons: Any, lats: Any) -> tuple[Any, Any]:
        return self.forward.transform(lons, lats)

    def _forward_xy(self, coords: Any) -> Any:
        x, y = self.forward.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])

    def _back_xy(self, coords: Any) -> Any:
        x, y = self.back.transform(coords[:, 0], coords[:, 1])
        return np.column_stack([x, y])


# --- ground by control -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Ground:
    """The zones of a moment, projected, each cut to the ground it alone holds (see PRIORITY)."""

    controls: list[str]
    areas: Any
    """A numpy array of (Multi)Polygons, one per zone."""
    edges: Any
    """Their boundaries."""
    tree: shapely.STRtree

    def under(self, line: LineString) -> list[int]:
        """The zones a route may run through (bounding boxes meet)."""
        return [int(i) for i in self.tree.query(line)]


def _ground(zones: list[ControlZone], frame: _Frame) -> _Ground:
    """Each zone's own ground: where zones overlap, the first control in PRIORITY holds it."""
    ordered = sorted(zones, key=lambda zone: PRIORITY.index(zone.control))
    claimed: BaseGeometry = shapely.Polygon()
    controls, areas = [], []
    for zone in ordered:
        shape = frame.project(zone.geometry)
        area = shapely.difference(shape, claimed) if not claimed.is_empty else shape
        if area.is_empty:
            continue
        controls.append(zone.control.value)
        areas.append(area)
        claimed = shapely.union(claimed, shape)
    array = np.array(areas, dtype=object)
    edges = shapely.boundary(array)
    shapely.prepare(edges)
    return _Ground(controls, array, edges, shapely.STRtree(array))


def _pieces(line: LineString, ground: _Ground) -> list[tuple[str, float, float, Any]]:
    """(control, start m, end m, stretch) along the route, in order, gaps as 'none'."""
    found = []
    candidates = ground.under(line)
    parts_of = shapely.intersection(line, ground.areas[candidates]) if candidates else []
    for index, shared in zip(candidates, parts_of, strict=True):
        control, edge = ground.controls[index], ground.edges[index]
        for part in shapely.get_parts(shapely.line_merge(shared)):
            if part.geom_type != "LineString" or part.length < MIN_PIECE_M:
                continue  # a touch at a boundary is not ground crossed
            middle = shapely.line_interpolate_point(part, 0.5, normalized=True)
            if shapely.dwithin(edge, middle, MIN_PIECE_M):
                continue  # running along the boundary is not running through the zone
            ends = shapely.line_locate_point(line, shapely.points(np.array(part.coords)[[0, -1]]))
            start, end = float(ends.min()), float(ends.max())
            found.append((control, start, end, part))
    found.sort(key=lambda piece: piece[1])
    filled: list[tuple[str, float, float, Any]] = []
    at = 0.0
    for control, start, end, part in found:
        if start - at >= MIN_PIECE_M:
            filled.append((NONE, at, start, shapely.ops.substring(line, at, start)))
        filled.append((control, start, end, part))
        at = max(at, end)
    if line.length - at >= MIN_PIECE_M:
        filled.append((NONE, at, line.length, shapely.ops.substring(line, at, line.length)))
    return filled


def _lengths(pieces: list[tuple[str, float, float, Any]], total: float) -> dict[str, float]:
    found = {control.value: 0.0 for control in PRIORITY} | {NONE: 0.0}
    for control, _, _, part in pieces:
        found[control] += part.length / 1000
    found[NONE] = max(total / 1000 - sum(v for k, v in found.items() if k != NONE), 0.0)
    return found


def _crossings(
    line: LineString, pieces: list[tuple[str, float, float, Any]], frame: _Frame, gap_m: float
) -> list[Crossing]:
    """Changes of control in order; zone, short unmapped gap, other zone: one front line."""
    found = []
    i = 0
    while i + 1 < len(pieces):
        before, _, end, _ = pieces[i]
        after, start, _, _ = pieces[i + 1]
        gap = 0.0
        if after == NONE and i + 2 < len(pieces) and before != NONE:
            beyond, beyond_start, _, _ = pieces[i + 2]
            if beyond not in (NONE, before) and beyond_start - end <= gap_m:
                after, gap, start = beyond, beyond_start - end, beyond_start
                i += 1
        i += 1
        if before == after:
            continue
        where = (end + start) / 2
        point = frame.unproject(line.interpolate(where))
        found.append(Crossing(point.y, point.x, where / 1000, before, after, gap / 1000))
    return found


@dataclass(frozen=True)
class _Danger:
    """Besieged and contested zones, indexed for 'how near is the nearest'."""

    zones: list[ControlZone]
    tree: shapely.STRtree | None

    @classmethod
    def of(cls, zones: list[ControlZone], frame: _Frame) -> _Danger:
        chosen = [zone for zone in zones if zone.control in DANGER]
        shapes = [frame.project(z.geometry, follow=False) for z in chosen]
        return cls(chosen, shapely.STRtree(np.array(shapes, dtype=object)) if chosen else None)

    def nearest(self, line: LineString, *, through: bool) -> tuple[str | None, float | None]:
        """The nearest zone's name and distance in km (0 when the route runs through one)."""
        if self.tree is None:
            return None, None
        if through:
            found = self.tree.query(line, predicate="intersects")
            if len(found):
                return self.zones[int(found[0])].name, 0.0
        found, distances = self.tree.query_nearest(line, return_distance=True, all_matches=False)
        return self.zones[int(found[0])].name, float(distances[0]) / 1000


# --- events near the routes ----------------------------------------------------------------


def _events_near(
    scenario: Scenario, lines: list[Any], at: datetime, rules: RiskRules, frame: _Frame
) -> list[tuple[int, dict[str, int], int]]:
    """Per route: events within the buffer over the last `days` days, by type, and fatalities.

    The routes are cut into their straight segments for the spatial index: a long route's
    bounding box holds half the country, a segment's only what is near it.
    """
    if not scenario.events:
        return [(0, {}, 0) for _ in lines]
    table = event_columns.columns(scenario)
    window = event_columns.selection(scenario, at, days=rules.days, types=None)
    tree = shapely.STRtree(_event_points(scenario, frame)[window])
    segments, owner = _segments([frame.project(line, follow=False) for line in lines])
    found, near = tree.query(segments, predicate="dwithin", distance=rules.buffer_km * 1000)
    total = len(table.kind)
    pairs = np.unique(owner[found].astype(np.int64) * total + window[near])  # route, event once
    routes, events = pairs // total, pairs % total
    count = np.bincount(routes, minlength=len(lines))
    dead = np.bincount(routes, weights=table.fatalities[events], minlength=len(lines))
    kinds = len(table.kinds)
    by_kind = np.bincount(routes * kinds + table.kind[events], minlength=len(lines) * kinds)
    by_kind = by_kind.reshape(len(lines), kinds)
    return [
        (int(count[i]),
         {table.kinds[k]: int(n) for k, n in enumerate(by_kind[i]) if n},
         int(dead[i]))
        for i in range(len(lines))
    ]  # fmt: skip


def _segments(lines: list[Any]) -> tuple[Any, Any]:
    """Every straight segment of the routes, and the route each belongs to."""
    coords, index = shapely.get_coordinates(np.array(lines, dtype=object), return_index=True)
    same = index[1:] == index[:-1]
    starts, ends = coords[:-1][same], coords[1:][same]
    return shapely.linestrings(np.stack([starts, ends], axis=1)), index[:-1][same]


def _event_points(scenario: Scenario, frame: _Frame) -> Any:
    def make() -> Any:
        table = event_columns.columns(scenario)
        x, y = frame.points(table.longitude, table.latitude)
        return shapely.points(np.column_stack([x, y]))

    return _memo.derived(scenario.events, f"event-points:{id(frame)}", make)


# --- the rule ------------------------------------------------------------------------------


def _level(
    by_control: dict[str, float],
    crossings: list[Crossing],
    events: int,
    near: tuple[str | None, float | None],
    rules: RiskRules,
) -> tuple[str, list[str]]:
    front = sum(crossing.front_line for crossing in crossings)
    through = [c.value for c in DANGER if by_control.get(c.value, 0.0) > 0]
    high: list[str] = []
    medium: list[str] = []
    if through:
        km = f"{sum(by_control[c] for c in through):.1f}"
        high.append(Reason("runs {km} km through {grounds} ground", km=km, grounds=tuple(through)))
    nearby = Reason(
        "{events} events within {km} km in {days} days",
        events=str(events), km=f"{rules.buffer_km:g}", days=str(rules.days),
    )  # fmt: skip
    if events >= rules.high_events:
        high.append(nearby)
    elif events >= rules.medium_events:
        medium.append(nearby)
    if front >= 2:
        high.append(Reason("crosses {front} front lines", front=str(front)))
    elif front == 1:
        medium.append(Reason("crosses a front line"))
    if near[1] is not None and near[1] <= rules.near_km and not through:
        medium.append(
            Reason(
                "passes {km} km from {place}",
                named=("place",),
                km=f"{near[1]:.1f}",
                place=str(near[0]),
            )
        )
    if high:
        return "high", high + medium
    return ("medium", medium) if medium else ("low", [])
