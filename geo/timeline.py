"""The scenario at a moment: which zones hold, where each convoy is, what has been reported."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

import numpy as np
import shapely
from shapely.geometry import LineString, Point

from geo import _memo
from geo.records import (
    ControlZone,
    Convoy,
    ConvoyStatus,
    Count,
    Figure,
    FigureKind,
    Route,
    Scenario,
)


class ConvoyState(StrEnum):
    """What a convoy is doing at a given moment."""

    NOT_DEPARTED = "not departed"
    UNDER_WAY = "under way"
    ARRIVED = "arrived"
    HALTED = "halted"
    CANCELLED = "cancelled"
    PLANNED = "planned"


@dataclass(frozen=True)
class ConvoyAt:
    """A convoy at a moment: its state, and its position when that can be worked out."""

    convoy: Convoy
    state: ConvoyState
    position: Point | None
    progress: float | None
    """Share of the route done (0–1), interpolated between departure and arrival."""


def zones_at(scenario: Scenario, at: datetime) -> list[ControlZone]:
    """The control zones valid at `at` (valid_from <= at < valid_to)."""
    return [
        zone
        for zone in scenario.zones
        if zone.valid_from <= at and (zone.valid_to is None or at < zone.valid_to)
    ]


def figures_at(scenario: Scenario, at: datetime) -> list[Figure]:
    """The figures reported by `at`."""
    return [figure for figure in scenario.figures if figure.reported <= at]


def route_of(scenario: Scenario, convoy_id: str) -> LineString | None:
    """The convoy's legs joined in order into one line, or None when it has no route."""
    return _memo.derived(scenario.routes, "joined", lambda: _joined(scenario)).get(convoy_id)


def legs_of(scenario: Scenario, convoy_id: str) -> list[Route]:
    """The convoy's route legs in order (looked up in an index made once per scenario)."""
    return list(legs_by_convoy(scenario).get(convoy_id, ()))


def legs_by_convoy(scenario: Scenario) -> dict[str, list[Route]]:
    """Every convoy's route legs in order, by convoy id (made once per scenario: read only)."""

    def index() -> dict[str, list[Route]]:
        found: dict[str, list[Route]] = {}
        for route in scenario.routes:
            found.setdefault(route.convoy, []).append(route)
        for legs in found.values():
            legs.sort(key=lambda route: route.leg)
        return found

    return _memo.derived(scenario.routes, "legs", index)


def _joined(scenario: Scenario) -> dict[str, LineString]:
    lines = {}
    for convoy_id, legs in legs_by_convoy(scenario).items():
        coordinates: list[tuple[float, ...]] = []
        for leg in legs:
            points = list(leg.geometry.coords)
            coordinates += points[1:] if coordinates and coordinates[-1] == points[0] else points
        lines[convoy_id] = LineString(coordinates)
    return lines


def state_at(convoy: Convoy, at: datetime) -> ConvoyState:
    """The convoy's state at `at`, from its times and its last reported status."""
    status = convoy.status
    if convoy.depart is None:
        return ConvoyState(status.value.replace("_", " "))
    if at < convoy.depart:
        return ConvoyState.NOT_DEPARTED
    if status is ConvoyStatus.CANCELLED:
        return ConvoyState.CANCELLED
    if status is ConvoyStatus.HALTED:
        return ConvoyState.HALTED
    if convoy.arrive is not None and at >= convoy.arrive and status is ConvoyStatus.ARRIVED:
        return ConvoyState.ARRIVED
    return ConvoyState.UNDER_WAY


def convoy_at(scenario: Scenario, convoy: Convoy, at: datetime) -> ConvoyAt:
    """The convoy's state and, while under way with both times known, its interpolated position."""
    return convoys_at(scenario, [convoy], at)[0]


def convoys_at(scenario: Scenario, convoys: Iterable[Convoy], at: datetime) -> list[ConvoyAt]:
    """`convoy_at` for many convoys: their positions interpolated in one vectorised call."""
    joined = _memo.derived(scenario.routes, "joined", lambda: _joined(scenario))
    found = []
    for convoy in convoys:
        state = state_at(convoy, at)
        line = joined.get(convoy.id)
        found.append((convoy, state, line, None if line is None else _progress(convoy, at, state)))
    placed = [(line, progress) for _, _, line, progress in found if progress is not None]
    lines = np.array([line for line, _ in placed], dtype=object)
    shares = np.array([progress for _, progress in placed], dtype=np.float64)
    points = iter(shapely.line_interpolate_point(lines, shares, normalized=True).tolist())
    return [
        ConvoyAt(convoy, state, None if progress is None else next(points), progress)
        for convoy, state, _, progress in found
    ]


def _progress(convoy: Convoy, at: datetime, state: ConvoyState) -> float | None:
    if state is ConvoyState.NOT_DEPARTED:
        return 0.0
    if state is ConvoyState.ARRIVED:
        return 1.0
    if state is ConvoyState.UNDER_WAY and convoy.depart and convoy.arrive:
        share = (at - convoy.depart) / (convoy.arrive - convoy.depart)
        return min(max(share, 0.0), 1.0)
    return None


@dataclass(frozen=True)
class Headline:
    """The figures a reader wants first, at a moment."""

    at: datetime
    evacuated: list[Figure]
    trapped: list[Figure]
    convoys: dict[ConvoyState, int]


def headline(scenario: Scenario, at: datetime) -> Headline:
    """Latest reported evacuation and trapped figures, and convoys by state, at `at`."""
    reported = figures_at(scenario, at)
    states: dict[ConvoyState, int] = {}
    for convoy in scenario.convoys:  # states only: no position is needed to count them
        state = state_at(convoy, at)
        states[state] = states.get(state, 0) + 1
    return Headline(
        at=at,
        evacuated=[f for f in reported if f.kind is FigureKind.EVACUATED],
        trapped=[f for f in reported if f.kind is FigureKind.TRAPPED],
        convoys=states,
    )


def steps(scenario: Scenario, minutes: int = 15) -> list[datetime]:
    """Moments from the scenario's start to its end, every `minutes` minutes."""
    step = timedelta(minutes=minutes)
    moments, moment = [], scenario.start
    while moment <= scenario.end:
        moments.append(moment)
        moment += step
    return moments


def count_text(count: Count | None, say: Callable[[str], str] = str) -> str:
    """'about 3,000', '1,500–5,000', '' for unknown; `say` gives the qualifier in the reader's
    language ("نحو 3,000")."""
    if count is None:
        return ""
    number = f"{count.low:,}" if not count.is_range else f"{count.low:,}–{count.high:,}"
    return f"{say(str(count.qualifier))} {number}" if count.qualifier else number


def opening_moment(scenario: Scenario) -> datetime:
    """A moment worth opening on: halfway through the first convoy with both times known."""
    trips = [(c.depart, c.arrive) for c in scenario.convoys if c.depart and c.arrive]
    if not trips:
        return scenario.start
    depart, arrive = min(trips)
    return depart + (arrive - depart) / 2


def opening_step(scenario: Scenario, minutes: int = 15) -> datetime:
    """The step of `steps` nearest `opening_moment`: where the dashboard and exports open."""
    return nearest_step(steps(scenario, minutes), opening_moment(scenario))


def nearest_step(moments: list[datetime], at: datetime) -> datetime:
    """The step closest to `at` (the slider only offers steps)."""
    return min(moments, key=lambda moment: abs(moment - at))


def next_step(moments: list[datetime], at: datetime) -> datetime | None:
    """The step after `at` when playing (from the first when `at` is none of them); None at
    the end, where playing stops."""
    position = moments.index(at) if at in moments else 0
    return moments[position + 1] if position + 1 < len(moments) else None
