"""The map drawn lean for thousands of convoys: simplified legs on one canvas, dots for convoys."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import shapely

from geo import _memo, timeline
from geo.mapview.elements import Item, leaflet_item
from geo.mapview.route_canvas import LeanRoutes, PackedLegs, pack_legs, spans
from geo.mapview.symbols import STATE_COLOURS
from geo.mapview.view import Shown
from geo.records import Route, Scenario
from geo.safe_html import esc
from geo.timeline import ConvoyAt, ConvoyState

SIMPLIFY_DEGREES = 0.004
"""Tolerance of the lean routes' simplification (about 400 m: a pixel at zoom 8)."""


def lean_weight(convoys: int) -> float:
    """Line width in pixels for an overview of this many convoys: 3 up to 1,000, then thinner,
    down to 1 from 9,000 (3 px lines made one solid mass of 10,000 routes over Syria, and
    took Chromium 0.2 s longer to draw)."""
    return round(max(1.0, min(3.0, 3.0 * math.sqrt(1000 / max(convoys, 1)))), 2)


def lean_routes(scenario: Scenario, records: Shown) -> LeanRoutes:
    """Every leg for a map of thousands: simplified, on one canvas of their own.

    A canvas strokes dashed lines slowly (in Chromium, 10,000 dashed legs took 1.5 s more to
    draw than solid ones), so here approximate legs are drawn thin and faded instead of dashed,
    and planned ones by their colour alone; the legend says so. Lines thin as they crowd
    (`lean_weight`), so the overview shows where convoys went most.
    """
    weight = lean_weight(len(records.convoys))
    legs = _lean_legs(scenario)
    first, last, states = [], [], []
    for item in records.convoys:
        leg_range = legs.of_convoy.get(item.convoy.id)
        if leg_range is not None:
            first.append(leg_range[0])
            last.append(leg_range[1])
            states.append(_STATE_NUMBER[item.state])
    counts = np.subtract(last, first, dtype=np.intp)
    chosen = spans(first, counts)
    state = np.repeat(np.array(states, dtype=np.intp), counts)
    faded = legs.approximate[chosen] & ~_PLANNED[state]
    kinds, first_seen, style = np.unique(state * 2 + faded, return_index=True, return_inverse=True)
    order = np.argsort(first_seen)  # styles in the order the convoys come (DRAW_ORDER)
    styles = []
    for kind in kinds[order].tolist():
        dim = bool(kind % 2)
        styles.append({"color": STATE_COLOURS[_STATES[kind // 2]],
                       "weight": round(weight * 2 / 3, 2) if dim else weight,
                       "opacity": 0.45 if dim else 0.85})  # fmt: skip
    return LeanRoutes(styles, legs.packed, chosen, np.argsort(order)[style])


_STATES = list(ConvoyState)
_STATE_NUMBER = {state: number for number, state in enumerate(_STATES)}
_PLANNED = np.array([s in (ConvoyState.NOT_DEPARTED, ConvoyState.PLANNED) for s in _STATES])


@dataclass(frozen=True)
class _LeanLegs:
    """Every leg of a scenario packed for the page, made once per scenario."""

    packed: PackedLegs
    of_convoy: dict[str, tuple[int, int]]
    """Each convoy's legs: from, to (excluded), in leg order."""
    approximate: npt.NDArray[np.bool_]


def _lean_legs(scenario: Scenario) -> _LeanLegs:
    def made() -> _LeanLegs:
        points = leg_points(scenario)
        ordered: list[Route] = []
        of_convoy: dict[str, tuple[int, int]] = {}
        for convoy, legs in timeline.legs_by_convoy(scenario).items():
            of_convoy[convoy] = (len(ordered), len(ordered) + len(legs))
            ordered += legs
        approximate = np.array([leg.precision.value == "approximate" for leg in ordered], bool)
        return _LeanLegs(pack_legs([points[leg.id] for leg in ordered]), of_convoy, approximate)

    return _memo.derived(scenario.routes, "lean-legs", made)


def leg_points(scenario: Scenario) -> dict[str, npt.NDArray[np.int32]]:
    """Every leg's simplified [lat, lon] points in 1e-5 degrees, by route id (made once)."""

    def all_legs() -> dict[str, npt.NDArray[np.int32]]:
        lines = shapely.simplify(
            np.array([r.geometry for r in scenario.routes]),
            SIMPLIFY_DEGREES,
            preserve_topology=False,
        )
        found = {}
        for route, line in zip(scenario.routes, lines, strict=True):
            whole = np.round(shapely.get_coordinates(line)[:, ::-1] * 1e5)
            found[route.id] = whole.astype(np.int32)
        return found

    return _memo.derived(scenario.routes, "leg-points", all_legs)


def lean_marker(item: ConvoyAt, *, tip: bool) -> Item:
    """A convoy's position as a dot; its `tip` names it (2,000 names cost a picture 10 ms)."""
    assert item.position is not None
    where = [round(item.position.y, 5), round(item.position.x, 5)]
    if not tip:
        return leaflet_item("circle", where, _LEAN_MARKER)
    share = f"{(item.progress or 0) * 100:.0f}% of the route"
    return leaflet_item(
        "circle", where, _LEAN_MARKER, esc(f"{item.convoy.label} — under way, about {share}")
    )


_LEAN_MARKER = {"radius": 5, "color": "#ffffff", "weight": 1.5, "fillColor": "#009E73",
                "fillOpacity": 1}  # fmt: skip
