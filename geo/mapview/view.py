"""What a map shows: the view's moment, overlays and filters, and the records each overlay draws."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
import shapely

from geo import event_columns, timeline
from geo.analysis import RiskRules
from geo.mapview import viewport
from geo.mapview.place_labels import LabelLanguage
from geo.mapview.viewport import ViewRequest
from geo.records import (
    Confidence,
    Control,
    ControlZone,
    Convoy,
    ConvoyStatus,
    Figure,
    Place,
    PlaceKind,
    Scenario,
)
from geo.timeline import ConvoyAt, ConvoyState

ZONE_LAYERS = {
    Control.GOVERNMENT: "zones-government",
    Control.OPPOSITION: "zones-opposition",
    Control.BESIEGED: "zones-besieged",
    Control.CONTESTED: "zones-contested",
    Control.OTHER: "zones-other",
}
LAYER_LABELS = {
    "zones-government": "Government-held",
    "zones-opposition": "Opposition-held",
    "zones-besieged": "Besieged",
    "zones-contested": "Contested",
    "zones-other": "Other control",
    "routes": "Convoy routes",
    "convoys": "Convoys (where they are)",
    "places": "Places",
    "figures": "Reported figures",
    "events": "Conflict events (imported)",
    "risk": "Route risk (ground crossed, front lines, 5 km buffer)",
}
ALL_LAYERS = tuple(LAYER_LABELS)
DEFAULT_LAYERS = tuple(key for key in ALL_LAYERS if key != "risk")
"""What a map shows unless asked otherwise: route risk is an analysis, switched on by choice."""
BASES = {"offline": "Offline base only", "osm": "OpenStreetMap (online) over the offline base"}

DRAW_ORDER = [  # later states are drawn on top of earlier ones where routes share a road
    ConvoyState.PLANNED,
    ConvoyState.NOT_DEPARTED,
    ConvoyState.CANCELLED,
    ConvoyState.HALTED,
    ConvoyState.ARRIVED,
    ConvoyState.UNDER_WAY,
]


@dataclass(frozen=True)
class MapView:
    """What the map shows: the moment, the layers switched on, the base, the filters."""

    at: datetime
    layers: frozenset[str] = frozenset(DEFAULT_LAYERS)
    base: str = "offline"
    statuses: frozenset[ConvoyStatus] | None = None
    organisations: frozenset[str] | None = None
    confidences: frozenset[Confidence] | None = None
    selected: str | None = None
    event_types: frozenset[str] | None = None
    event_days: int | None = None
    """Events of the last `event_days` days up to the moment (None: every earlier event)."""
    risk_rules: RiskRules | None = None
    """The route risk rule's thresholds (None: the defaults)."""
    labels: LabelLanguage = LabelLanguage.ENGLISH
    """The language of the place names printed on the map (English, Arabic or both)."""
    language: str = "en"
    """The interface language of the map's title, legend, layer names and popups (see
    geo.messages.LANGUAGES)."""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


def visible_convoys(scenario: Scenario, view: MapView) -> list[Convoy]:
    """The convoys that pass the view's filters (status, organisation, confidence)."""
    return [
        convoy
        for convoy in scenario.convoys
        if (view.statuses is None or convoy.status in view.statuses)
        and (view.organisations is None or (convoy.organisation or "") in view.organisations)
        and (view.confidences is None or convoy.confidence in view.confidences)
    ]


def story_frame(scenario: Scenario, view: MapView, records: Shown | None = None) -> ViewRequest:
    """The view a map opens on: the story at the view's moment, clear of the controls."""
    records = records or shown(scenario, view)
    bounds = viewport.story(scenario, records.convoys, records.zones)
    return ViewRequest.fit(bounds, token="story")


def convoy_frame(
    scenario: Scenario, convoy_id: str, at: datetime, *, popup: str = ""
) -> ViewRequest | None:
    """The view that shows one convoy: its route and where it is at `at` (None: no geometry).

    `popup`: the tooltip of the convoy's marker or route that was clicked, reopened there.
    """
    line = timeline.route_of(scenario, convoy_id)
    convoy = next((c for c in scenario.convoys if c.id == convoy_id), None)
    if line is None or convoy is None:
        return None
    position = timeline.convoy_at(scenario, convoy, at).position
    shapes = [line] if position is None else [line, position]
    bounds = viewport.around(shapely.GeometryCollection(shapes))
    return ViewRequest.fit(bounds, max_zoom=viewport.CONVOY_MAX_ZOOM, popup=popup)


@dataclass(frozen=True)
class Shown:
    """The records each overlay draws at the view's moment, after the filters.

    The map and every data export read this one selection, so they always agree.
    """

    zones: list[ControlZone]
    convoys: list[ConvoyAt]
    """Visible convoys with their state at the moment, in drawing order."""
    moving: list[ConvoyAt]
    """Convoys under way whose position is known (the 'convoys' overlay)."""
    places: list[Place]
    figures: list[Figure]
    events: npt.NDArray[np.intp]
    """Indexes into scenario.events: those of the moment's window and chosen types."""


def shown(scenario: Scenario, view: MapView) -> Shown:
    """Every record the map has at `view.at` (hidden overlays included; see `layer_of`)."""
    convoys = timeline.convoys_at(scenario, visible_convoys(scenario, view), view.at)
    convoys.sort(key=lambda item: DRAW_ORDER.index(item.state))
    return Shown(
        zones=timeline.zones_at(scenario, view.at),
        convoys=convoys,
        moving=[c for c in convoys if c.position is not None and c.state is ConvoyState.UNDER_WAY],
        places=[p for p in scenario.places if p.kind is not PlaceKind.COUNTRY],
        figures=sorted(timeline.figures_at(scenario, view.at), key=lambda f: -f.count.high),
        events=event_columns.selection(
            scenario, view.at, days=view.event_days, types=view.event_types
        ),
    )


DETAIL_LIMIT = 500
"""Above this many convoys shown, routes and positions are drawn lean: simplified, on a canvas,
without popup, arrowhead or animation, routes without tooltip (the browser stays fluid)."""
