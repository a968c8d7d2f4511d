"""The layered evacuation map: zones, routes, convoys, places and figures at a moment (folium)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import folium
import folium.plugins
import numpy as np
import numpy.typing as npt
import shapely
from branca.element import Element, MacroElement
from folium.elements import JSCSSMixin
from jinja2 import Template
from shapely.geometry import Point, mapping

from geo import (
    _memo,
    analysis,
    basemap,
    bulk,
    event_columns,
    gazetteer,
    place_labels,
    timeline,
    viewport,
)
from geo._script import ScriptElement, script_json, shared_canvas
from geo.analysis import RiskRules
from geo.assets import make_tree_offline
from geo.bulk import EventPoints
from geo.lean_routes import LeanRoutes, PackedLegs, pack_legs, spans
from geo.map_furniture import FURNITURE_CSS, ClearPopups, Locator, Panel, PlaceLabels
from geo.place_labels import LabelLanguage
from geo.records import (
    CONVOY_COUNTS,
    Confidence,
    Control,
    ControlZone,
    Convoy,
    ConvoyStatus,
    Figure,
    FigureKind,
    Place,
    PlaceKind,
    Route,
    Scenario,
)
from geo.safe_html import CARD_CSS, FONTS, card, esc, times
from geo.timeline import ConvoyAt, ConvoyState, count_text
from geo.viewport import ViewRequest

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

# Okabe–Ito colours: told apart with every common colour-vision deficiency.
ZONE_COLOURS = {
    Control.GOVERNMENT: "#0072B2",
    Control.OPPOSITION: "#E69F00",
    Control.BESIEGED: "#D55E00",
    Control.CONTESTED: "#CC79A7",
    Control.OTHER: "#999999",
}
STATE_COLOURS = {
    ConvoyState.ARRIVED: "#1a1a1a",
    ConvoyState.UNDER_WAY: "#009E73",
    ConvoyState.NOT_DEPARTED: "#56B4E9",
    ConvoyState.PLANNED: "#56B4E9",
    ConvoyState.HALTED: "#7a7a7a",
    ConvoyState.CANCELLED: "#7a7a7a",
}
FIGURE_COLOURS = {
    FigureKind.TRAPPED: "#D55E00",
    FigureKind.KILLED: "#000000",
    FigureKind.WOUNDED: "#CC79A7",
    FigureKind.EVACUATED: "#009E73",
    FigureKind.TO_BE_EVACUATED: "#56B4E9",
    FigureKind.DISPLACED: "#E69F00",
    FigureKind.OTHER: "#999999",
}
DRAW_ORDER = [  # later states are drawn on top of earlier ones where routes share a road
    ConvoyState.PLANNED,
    ConvoyState.NOT_DEPARTED,
    ConvoyState.CANCELLED,
    ConvoyState.HALTED,
    ConvoyState.ARRIVED,
    ConvoyState.UNDER_WAY,
]
APPROXIMATE_DASH = "8 6"
PLANNED_DASH = "2 7"
HATCH_ID = "corridor-hatch"
APPROXIMATE_NOTE = "Approximate: placed by reading the source, not surveyed."


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


def build_map(
    scenario: Scenario,
    view: MapView,
    *,
    height: str = "100%",
    asset_url: str | None = None,
    still: bool = False,
    frame: ViewRequest | None = None,
    keep_view: str | None = None,
    exported: bool = False,
) -> folium.Map:
    """The map of the scenario as `view` asks: every overlay its own toggle; nothing from a CDN.

    Leaflet, its plugins and the base map are inlined, or with `asset_url` loaded from there
    (where geo.assets.publish put them). A `still` map is for a picture: it never moves, so
    it has no animation and its canvas draws nothing past the edges. `frame` is the view to
    open on (by default the story at the moment, `story_frame`); with `keep_view` (a key of
    the browser tab's session storage) the map keeps its user's view after that, however
    often it is drawn again, until a request with a new token comes. An `exported` map has a
    north arrow and a locator inset (Syria with the map's extent), as printed maps do.
    """
    records = shown(scenario, view)
    frame = frame or story_frame(scenario, view, records)
    (south, west), (north, east) = frame.bounds or viewport.everything(scenario)
    m = folium.Map(
        location=[(south + north) / 2, (west + east) / 2],
        zoom_start=9,
        tiles=None,
        control_scale=True,
        max_zoom=18,
        min_zoom=4,
        height=height,
    )
    m.options.update(max_zoom=18, min_zoom=4)  # folium passes these to its own tiles only
    # The base is drawn, not tiled: half zoom levels (quarter ones in a picture) frame a story
    # more closely, and the optional OpenStreetMap tiles are scaled between their levels.
    m.options.update(zoom_snap=0.5)
    if still:  # a picture must not catch a zoom or a pan half-way through its animation
        m.options.update(zoom_animation=False, fade_animation=False, zoom_snap=0.25)
    if view.base == "osm":
        folium.TileLayer(
            "OpenStreetMap", name=BASES["osm"], control=False, max_zoom=18, attr=_OSM_CREDIT
        ).add_to(m)
    root: Any = m.get_root()
    root.header.add_child(Element(f"<style>{CARD_CSS}{_MAP_CSS}{FURNITURE_CSS}</style>"))
    OfflineBase(view.labels).add_to(m)
    groups = _overlays(scenario, view, records, still=still)
    for group in groups.values():
        group.add_to(m)
    _selection(scenario, view).add_to(m)
    folium.LayerControl(collapsed=True, position="topright").add_to(m)
    folium.plugins.Fullscreen(position="topleft").add_to(m)
    folium.plugins.MeasureControl(
        position="topleft", primary_length_unit="kilometers", secondary_length_unit="miles"
    ).add_to(m)
    _Hatch().add_to(m)
    Panel("topleft", "corridor-title", _title_html(scenario, view), first=True).add_to(m)
    legend = legend_html(scenario, view, records, foldable=not still)
    Panel("bottomright", "corridor-legend", legend, foldable=not still).add_to(m)
    if exported:
        Panel("topright", "corridor-north", NORTH_ARROW).add_to(m)
        Locator().add_to(m)
    _LayerSync(groups).add_to(m)
    PlaceLabels().add_to(m)
    if not still:
        ClearPopups().add_to(m)
    viewport.ViewKeeper(frame, store=None if still else keep_view).add_to(m)
    make_tree_offline(m, asset_url)
    return m


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
SIMPLIFY_DEGREES = 0.004
"""Tolerance of the lean routes' simplification (about 400 m: a pixel at zoom 8)."""


def _overlays(
    scenario: Scenario, view: MapView, records: Shown, *, still: bool
) -> dict[str, folium.FeatureGroup]:
    """One feature group per overlay, each filled by one element of compact JSON."""
    items: dict[str, list[Item]] = {key: [] for key in ALL_LAYERS}
    for zone in records.zones:
        items[ZONE_LAYERS[zone.control]].append(_zone(zone, scenario.timezone))
    lean = len(records.convoys) > DETAIL_LIMIT
    for convoy in records.convoys if not lean else ():
        for leg in timeline.legs_of(scenario, convoy.convoy.id):
            items["routes"] += _route(leg, convoy, scenario)
    if lean:
        items["convoys"] = [_lean_marker(convoy, tip=not still) for convoy in records.moving]
    else:
        items["convoys"] = [_convoy_marker(convoy, scenario) for convoy in records.moving]
    arabic = arabic_names(scenario) if view.labels is not LabelLanguage.ENGLISH else {}
    items["places"] = [_place(p, arabic.get(p.id, ""), view.labels) for p in records.places]
    for figure in records.figures:
        items["figures"] += _figure(figure, scenario)
    if "risk" in view.layers:
        for risk in risks(scenario, view, shapes=True).values():
            items["risk"] += _risk(risk)
    groups = {}
    for key in ALL_LAYERS:
        group = folium.FeatureGroup(name=LAYER_LABELS[key], show=key in view.layers)
        if key == "events":
            data = bulk.payload(scenario, records.events, still=still)
            EventPoints(data, still=still).add_to(group)
        elif key == "routes" and lean:
            _lean_routes(scenario, records).add_to(group)
        else:
            canvas = lean and key in ("routes", "convoys")
            Items(items[key], canvas=canvas, still=still).add_to(group)
        groups[key] = group
    return groups


Item = dict[str, Any]
"""One Leaflet layer for the Items script: kind t (line, ant, circle, icon, geojson), latlngs
ll or GeoJSON g, options o, icon i, and escaped tooltip tip and popup pop."""


def _item(kind: str, where: Any, options: dict[str, Any], tip: str = "", pop: str = "") -> Item:
    item: Item = {"t": kind, ("g" if kind == "geojson" else "ll"): where, "o": options}
    if tip:
        item["tip"] = tip
    if pop:
        item["pop"] = pop
    return item


def _round(locations: Iterable[tuple[float, float]]) -> list[list[float]]:
    return [[round(lat, 5), round(lon, 5)] for lat, lon in locations]


# --- zones -------------------------------------------------------------------------------


def _zone(zone: ControlZone, tz: str) -> Item:
    colour = ZONE_COLOURS[zone.control]
    approximate = zone.precision.value == "approximate"
    style = {
        "color": colour,
        "weight": 2,
        "opacity": 0.9,
        "fillColor": f"url(#{HATCH_ID})" if zone.control is Control.BESIEGED else colour,
        "fillOpacity": 0.55 if zone.control is Control.BESIEGED else 0.18,
        "dashArray": APPROXIMATE_DASH if approximate else None,
    }
    facts = [
        ("Control", zone.control.value),
        ("Held by", zone.holder),
        ("Valid from", times(zone.valid_from, tz)),
        ("Valid to", times(zone.valid_to, tz) or "until further notice"),
        ("Precision", zone.precision.value),
        ("Source", ", ".join(zone.source)),
    ]
    popup = card(zone.name, facts, note=APPROXIMATE_NOTE if approximate else "", quote=zone.quote)
    feature = {"type": "Feature", "properties": {}, "geometry": mapping(zone.geometry)}
    tip = esc(f"{zone.name} ({zone.control.value})")
    return _item("geojson", feature, style, tip, popup)


# --- convoys and routes ------------------------------------------------------------------


def convoy_card(item: ConvoyAt, scenario: Scenario) -> str:
    """Popup HTML for a convoy: state at the moment, counts with qualifiers, times, source."""
    convoy, tz = item.convoy, scenario.timezone
    names = {place.id: place.name for place in scenario.places}
    counts = [(label.capitalize(), count_text(getattr(convoy, label))) for label in CONVOY_COUNTS]
    facts = [
        ("At this moment", item.state.value),
        ("Latest reported status", convoy.status.value.replace("_", " ")),
        ("From", names.get(convoy.origin, "not stated")),
        ("Via", ", ".join(names[p] for p in convoy.via)),
        ("To", names[convoy.destination]),
        ("Departs", times(convoy.depart, tz)),
        ("Arrives", times(convoy.arrive, tz)),
        ("Times", convoy.time_precision.value),
        *counts,
        ("Organisation", convoy.organisation),
        ("Confidence", convoy.confidence.value),
        ("Source", ", ".join(convoy.source)),
    ]
    return card(convoy.label, facts, note=state_note(item), quote=convoy.quote)


def state_note(item: ConvoyAt) -> str:
    """Why the state at the moment differs from the latest reported status, when it does."""
    status = item.convoy.status.value.replace("_", " ")
    if item.state.value == status:
        return ""
    return (
        f"At the moment shown it was {item.state.value}, by its reported times; the latest "
        f"report on it says {status}."
    )


def _route(leg: Route, item: ConvoyAt, scenario: Scenario) -> list[Item]:
    state = item.state
    colour = STATE_COLOURS[state]
    approximate = leg.precision.value == "approximate"
    locations = [(lat, lon) for lon, lat, *_ in leg.geometry.coords]
    note = f"Route leg {leg.leg}: {leg.precision.value} line" + (
        " — drawn from the report's wording, not a surveyed road." if approximate else "."
    )
    popup = convoy_card(item, scenario) + f'<p class="corridor-note">{esc(note)}</p>'
    tip = esc(f"{item.convoy.label} — {state.value}")
    if state is ConvoyState.UNDER_WAY:
        options = {"color": colour, "weight": 5, "delay": 1200, "dashArray": [12, 18],
                   "pulseColor": "#ffffff"}  # fmt: skip
        line = _item("ant", _round(locations), options, tip, popup)
    else:
        dash = PLANNED_DASH if state in (ConvoyState.NOT_DEPARTED, ConvoyState.PLANNED) else None
        dash = dash or (APPROXIMATE_DASH if approximate else None)
        options = {"color": colour, "weight": 4, "opacity": 0.9, "dashArray": dash}
        line = _item("line", _round(locations), options, tip, popup)
    items = [line, *_arrows(locations, colour)]
    if state in (ConvoyState.CANCELLED, ConvoyState.HALTED):
        middle = locations[len(locations) // 2]
        items.append(_icon(middle, _CROSS_SVG, 18, esc(f"{item.convoy.label}: {state.value}")))
    return items


def _icon(location: tuple[float, float], svg: str, size: int, tip: str = "", pop: str = "") -> Item:
    half = size // 2
    icon = {"html": svg, "iconSize": [size, size], "iconAnchor": [half, half],
            "className": "corridor-symbol"}  # fmt: skip
    item = _item("icon", _round([location])[0], {"interactive": bool(tip or pop)}, tip, pop)
    item["i"] = icon
    return item


def _arrows(locations: list[tuple[float, float]], colour: str) -> list[Item]:
    """An arrowhead in the middle of the longest segment: which way the convoy went."""
    pairs = list(itertools.pairwise(locations))
    if not pairs:
        return []
    start, end = max(pairs, key=lambda pair: math.dist(pair[0], pair[1]))
    middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    angle = _bearing(start, end)
    svg = (
        '<svg width="16" height="16" viewBox="-8 -8 16 16" '
        f'style="transform:rotate({angle:.0f}deg)">'
        f'<path d="M0,-7 L6,6 L0,3 L-6,6 Z" fill="{colour}" stroke="#fff" stroke-width="1"/></svg>'
    )
    return [_icon(middle, svg, 16)]


def _bearing(start: tuple[float, float], end: tuple[float, float]) -> float:
    """Compass bearing from start to end (lat, lon), in degrees clockwise from north."""
    lat1, lat2 = math.radians(start[0]), math.radians(end[0])
    dlon = math.radians(end[1] - start[1])
    x = math.sin(dlon) * math.cos(lat2)
    y = math.cos(lat1) * math.sin(lat2) - math.sin(lat1) * math.cos(lat2) * math.cos(dlon)
    return (math.degrees(math.atan2(x, y)) + 360) % 360


def _convoy_marker(item: ConvoyAt, scenario: Scenario) -> Item:
    assert item.position is not None
    share = f"{(item.progress or 0) * 100:.0f}% of the route"
    tip = esc(f"{item.convoy.label} — under way, about {share}")
    location = (item.position.y, item.position.x)
    return _icon(location, _CONVOY_SVG, 26, tip, convoy_card(item, scenario))


def risks(
    scenario: Scenario, view: MapView, *, shapes: bool = False
) -> dict[str, analysis.RouteRisk]:
    """Each convoy's route risk at the view's moment (remembered per scenario, moment, rule)."""
    rules = view.risk_rules or RiskRules()
    key = f"risk:{view.at.isoformat()}:{rules}:{shapes}"
    found = _memo.derived(
        scenario.convoys,
        key,
        lambda: analysis.analyse(scenario, view.at, rules=rules, shapes=shapes),
    )
    return {risk.convoy: risk for risk in found}


def alerts(scenario: Scenario, view: MapView) -> dict[str, analysis.RouteRisk] | None:
    """The route risks an export carries: when the risk layer is on, or the map is small."""
    if "risk" in view.layers:
        return risks(scenario, view, shapes=True)  # the same results the map layer draws
    if len(scenario.convoys) <= DETAIL_LIMIT:
        return risks(scenario, view)
    return None


RISK_COLOURS = {**{control.value: colour for control, colour in ZONE_COLOURS.items()},
                analysis.NONE: "#6b6b6b"}  # fmt: skip


def _risk(risk: analysis.RouteRisk) -> list[Item]:
    """A route's stretches coloured by the ground they cross, its crossings and its buffer."""
    ground = [(k.replace("_", " "), f"{v:.2f} km") for k, v in risk.by_control_km.items() if v > 0]
    facts = [
        ("Level", risk.level.upper() + (" — ALERT" if risk.alert else "")),
        ("At this moment", risk.state),
        ("Length", f"{risk.length_km:.2f} km"),
        *ground,
        ("Front lines crossed", str(risk.front_line_crossings)),
        ("Events nearby", f"{risk.events} ({_kinds(risk.events_by_type)})"),
        ("Fatalities reported", str(risk.fatalities)),
        ("Nearest besieged/contested", f"{risk.nearest_danger} ({risk.nearest_danger_km:.1f} km)"
         if risk.nearest_danger else ""),
        ("Because", "; ".join(risk.reasons) or "no rule fired"),
    ]  # fmt: skip
    popup = card(f"Route risk: {risk.label}", facts)
    items: list[Item] = []
    if risk.buffer is not None:
        outline = {"type": "Feature", "properties": {}, "geometry": mapping(risk.buffer)}
        style = {"color": "#444444", "weight": 1, "dashArray": "3 4", "fillOpacity": 0.04}
        items.append(_item("geojson", outline, style, esc(f"{risk.label}: events buffer"), popup))
    for control, piece in risk.pieces:
        locations = [(lat, lon) for lon, lat, *_ in piece.coords]
        style = {"color": RISK_COLOURS[control], "weight": 7, "opacity": 0.75}
        tip = esc(f"{risk.label}: {control} ground")
        items.append(_item("line", _round(locations), style, tip, popup))
    for crossing in risk.crossings:
        kind = "Front line" if crossing.front_line else "Boundary"
        tip = esc(
            f"{kind}: {crossing.before} → {crossing.after} ({crossing.along_km:.1f} km along)"
        )
        style = {"radius": 6 if crossing.front_line else 4, "color": "#000000", "weight": 2,
                 "fillColor": "#ffffff", "fillOpacity": 1}  # fmt: skip
        items.append(
            _item("circle", _round([(crossing.latitude, crossing.longitude)])[0], style, tip)
        )
    return items


TRACK_COLOURS = {
    "before departure": "#56B4E9",
    "moving": "#009E73",
    "stopped": "#E69F00",
    "off route": "#D55E00",
    "arrived": "#1a1a1a",
}


def tracks_group(states: dict[str, Any], reports: list[Any], labels: dict[str, str]) -> Any:
    """Live positions: each convoy's reported track and its latest report, coloured by state.

    A layer of its own, for streamlit-folium's `feature_group_to_add`: it changes every few
    seconds while the rest of the map does not, so the map is not drawn again.
    """
    group = folium.FeatureGroup(name="Live positions")
    items: list[Item] = []
    by_convoy: dict[str, list[Any]] = {}
    for report in reports:
        by_convoy.setdefault(report.convoy, []).append(report)
    for convoy_id, state in states.items():
        latest = state.latest
        if latest is None:
            continue
        colour = TRACK_COLOURS.get(str(state.state), "#999999")
        trail = [
            (p.latitude, p.longitude) for p in by_convoy.get(convoy_id, []) if p.time <= state.at
        ]
        if len(trail) > 1:
            style = {"color": colour, "weight": 2, "opacity": 0.8, "dashArray": "1 4"}
            items.append(_item("line", _round(trail), style))
        facts = [
            ("State", str(state.state)),
            ("Last report", f"{latest.time:%d %b %H:%M} UTC, {state.age_minutes:.0f} min before"),
            ("Done", f"{state.done_m / 1000:.1f} km ({state.progress * 100:.0f}%)"
             if state.progress is not None else ""),
            ("Left", f"{state.left_m / 1000:.1f} km" if state.left_m is not None else ""),
            ("Off the route", "" if state.off_route_m is None else f"{state.off_route_m:.0f} m"),
            ("Speed", f"{state.speed_kmh:.0f} km/h" if state.speed_kmh is not None else ""),
            ("Arrival expected", f"{state.eta:%H:%M} UTC" if state.eta is not None else ""),
            ("Note", latest.note),
        ]  # fmt: skip
        label = labels.get(convoy_id, convoy_id)
        style = {"radius": 8, "color": "#ffffff", "weight": 2, "fillColor": colour,
                 "fillOpacity": 1}  # fmt: skip
        where = _round([(latest.latitude, latest.longitude)])[0]
        tip = esc(f"{label}: {state.state}")
        items.append(_item("circle", where, style, tip, card(f"Live: {label}", facts)))
    Items(items).add_to(group)
    return group


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {count}" for kind, count in counts.items()) or "none"


def lean_weight(convoys: int) -> float:
    """Line width in pixels for an overview of this many convoys: 3 up to 1,000, then thinner,
    down to 1 from 9,000 (3 px lines made one solid mass of 10,000 routes over Syria, and
    took Chromium 0.2 s longer to draw)."""
    return round(max(1.0, min(3.0, 3.0 * math.sqrt(1000 / max(convoys, 1)))), 2)


def _lean_routes(scenario: Scenario, records: Shown) -> LeanRoutes:
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
        points = _leg_points(scenario)
        ordered: list[Route] = []
        of_convoy: dict[str, tuple[int, int]] = {}
        for convoy, legs in timeline.legs_by_convoy(scenario).items():
            of_convoy[convoy] = (len(ordered), len(ordered) + len(legs))
            ordered += legs
        approximate = np.array([leg.precision.value == "approximate" for leg in ordered], bool)
        return _LeanLegs(pack_legs([points[leg.id] for leg in ordered]), of_convoy, approximate)

    return _memo.derived(scenario.routes, "lean-legs", made)


def _leg_points(scenario: Scenario) -> dict[str, npt.NDArray[np.int32]]:
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


def _lean_marker(item: ConvoyAt, *, tip: bool) -> Item:
    """A convoy's position as a dot; its `tip` names it (2,000 names cost a picture 10 ms)."""
    assert item.position is not None
    where = [round(item.position.y, 5), round(item.position.x, 5)]
    if not tip:
        return _item("circle", where, _LEAN_MARKER)
    share = f"{(item.progress or 0) * 100:.0f}% of the route"
    return _item(
        "circle", where, _LEAN_MARKER, esc(f"{item.convoy.label} — under way, about {share}")
    )


_LEAN_MARKER = {"radius": 5, "color": "#ffffff", "weight": 1.5, "fillColor": "#009E73",
                "fillOpacity": 1}  # fmt: skip


# --- places and figures ------------------------------------------------------------------


def arabic_names(scenario: Scenario) -> dict[str, str]:
    """The Arabic name of each of the scenario's places that has one (found once per scenario)."""
    places = scenario.places
    return _memo.derived(
        places, "arabic-names", lambda: place_labels.arabic_names(places, gazetteer.default())
    )


def _place(place: Place, arabic: str = "", language: LabelLanguage = LabelLanguage.ENGLISH) -> Item:
    approximate = place.precision.value != "exact"
    facts = [
        ("Kind", place.kind.value),
        ("Arabic", arabic),
        ("Also written", ", ".join(place.aliases)),
        ("Governorate", place.admin1),
        ("Coordinates", f"{place.latitude:.4f}, {place.longitude:.4f}"),
        ("Precision", place.precision.value),
        ("Source", ", ".join(place.source)),
    ]
    note = APPROXIMATE_NOTE if place.precision.value == "approximate" else ""
    svg = _PLACE_SVG.get(place.kind.value, _PLACE_SVG["point"])
    if approximate:
        svg = _dotted(svg)
    title = place_labels.label(place.name, arabic, language)
    popup = card(title, facts, note=note, quote=place.quote)
    tip = esc(f"{title} ({place.kind.value})")
    item = _icon((place.latitude, place.longitude), svg, 14, tip, popup)
    rank = _LABEL_RANK.get(place.kind.value, len(_LABEL_RANK))
    text = _label_html(label_text(place.name), label_text(arabic), language)
    label = f'<span class="corridor-label" data-rank="{rank}">{text}</span>'
    item["i"].update(html=svg + label, className="corridor-symbol corridor-place")
    return item


def _label_html(english: str, arabic: str, language: LabelLanguage) -> str:
    """A place's printed name: Arabic set right to left; with both, Arabic under English."""
    if language is LabelLanguage.ENGLISH or not arabic:
        return esc(english)
    right_to_left = f'<span lang="ar" dir="rtl">{esc(arabic)}</span>'
    if language is LabelLanguage.ARABIC:
        return right_to_left
    return f"{esc(english)}<br>{right_to_left}"


_LABEL_RANK = {kind: rank for rank, kind in enumerate(
    ["city", "district", "crossing", "town", "village", "point", "region"]
)}  # fmt: skip
"""Which names are placed first where they would meet (cities before villages)."""


def label_text(name: str, *, limit: int = 30) -> str:
    """A place's name as printed beside it: without its bracketed note, at most `limit` long."""
    short = name.split(" (")[0].strip() or name
    if len(short) <= limit:
        return short
    cut = short[:limit].rsplit(" ", 1)[0]
    return f"{cut}…"


def _dotted(svg: str) -> str:
    return svg.replace('stroke-dasharray="0"', 'stroke-dasharray="2 2"')


def figure_radius(value: int) -> float:
    """Proportional symbol: area grows with the count (3 px at zero, 45 px at most)."""
    return min(3.0 + 2.2 * math.sqrt(value / 1000), 45.0)


def _figure(figure: Figure, scenario: Scenario) -> list[Item]:
    place = scenario.place(figure.place)
    colour = FIGURE_COLOURS[figure.kind]
    facts = [
        ("Kind", figure.kind.value.replace("_", " ")),
        ("Count", count_text(figure.count)),
        ("Who", figure.what),
        ("Place", place.name),
        ("Reported", times(figure.reported, scenario.timezone)),
        ("Said by", figure.attribution),
        ("Source", ", ".join(figure.source)),
    ]
    label = f"{figure.kind.value.replace('_', ' ')}: {count_text(figure.count)} {figure.what}"
    popup = card(label, facts, quote=figure.quote)
    high = figure.count.high
    values = [high, figure.count.low] if figure.count.is_range else [high]
    where = _round([(place.latitude, place.longitude)])[0]
    return [
        _item("circle", where, {
            "radius": round(figure_radius(value), 1), "color": colour, "weight": 1.5,
            "fillColor": colour, "fillOpacity": 0.15 if value == high else 0.3,
            "dashArray": "4 3" if figure.count.is_range and value == high else None,
        }, esc(label), popup)
        for value in values
    ]  # fmt: skip


def _selection(scenario: Scenario, view: MapView) -> folium.FeatureGroup:
    """A halo under the selected convoy's route (not in the layer control)."""
    group = folium.FeatureGroup(name="Selected convoy", control=False)
    line = timeline.route_of(scenario, view.selected) if view.selected else None
    if line is not None:
        locations = _round((lat, lon) for lon, lat, *_ in line.coords)
        halo = {"color": "#F0E442", "weight": 12, "opacity": 0.8, "interactive": False}
        Items([_item("line", locations, halo)]).add_to(group)
    return group


# --- legend, title -----------------------------------------------------------------------


def legend_html(
    scenario: Scenario, view: MapView, records: Shown | None = None, *, foldable: bool = False
) -> str:
    """The legend of what is switched on and present at the moment, with the map's symbols.

    A `foldable` legend's heading is a button that folds it (see map_furniture.Panel).
    """
    records = records or shown(scenario, view)
    rows: list[str] = []
    controls = {zone.control for zone in records.zones}
    for control, key in ZONE_LAYERS.items():
        if key in view.layers and control in controls:
            hatch = control is Control.BESIEGED
            fill = "url(#corridor-legend-hatch)" if hatch else ZONE_COLOURS[control]
            rows.append(_legend_row(_swatch(ZONE_COLOURS[control], fill), LAYER_LABELS[key]))
    states = {item.state for item in records.convoys}
    lean = len(records.convoys) > DETAIL_LIMIT
    if "routes" in view.layers and states:
        for group, label in _ROUTE_LEGEND:
            if states & set(group):
                dash = PLANNED_DASH if ConvoyState.NOT_DEPARTED in group and not lean else ""
                rows.append(_legend_row(_line(STATE_COLOURS[group[0]], dash), label))
        if lean:
            count = len(records.convoys)
            note = f"Overview of {count:,} convoys: lines {lean_weight(count):g} px wide, "
            note += "approximate ones thinner and faded"
            rows.append(_legend_row(_line("#1a1a1a", "", opacity=0.45), note))
        else:
            rows.append(_legend_row(_line("#1a1a1a", APPROXIMATE_DASH), "Dashed: approximate line"))
    if "convoys" in view.layers and records.moving:
        small = _CONVOY_SVG.replace('width="26" height="26"', 'width="16" height="16"')
        rows.append(_legend_row(small, "Convoy under way (position interpolated)"))
    if "places" in view.layers and records.places:
        kinds = {place.kind.value for place in records.places}
        shown_kinds = [(_PLACE_SVG[k], label) for k, label in _PLACE_LEGEND.items() if k in kinds]
        shown_kinds.append((_dotted(_PLACE_SVG["town"]), "approximate"))
        rows.append(_legend_group("Places:", shown_kinds))
    if "risk" in view.layers:
        for ground, colour in RISK_COLOURS.items():
            rows.append(_legend_row(_line(colour, ""), f"Route through {ground} ground"))
        rows.append(_legend_row(_circle("#000000"), "Front line crossed"))
    if "events" in view.layers and len(records.events):
        table = event_columns.columns(scenario)
        for kind in sorted(set(table.kind[records.events].tolist())):
            name = table.kinds[kind]
            colour = bulk.EVENT_COLOURS.get(name, bulk.OTHER_COLOUR)
            rows.append(_legend_row(_circle(colour), f"Event: {name}"))
        rows.append(_legend_row(_cluster(), "Events grouped (click to zoom in)"))
    if "figures" in view.layers:
        for kind in dict.fromkeys(figure.kind for figure in records.figures):
            label = f"Reported {kind.value.replace('_', ' ')} (area ∝ count)"
            rows.append(_legend_row(_circle(FIGURE_COLOURS[kind]), label))
    rows.append(f'<div class="corridor-credit">{esc(basemap.ATTRIBUTION)}</div>')
    heading = (
        '<button type="button" class="corridor-fold" aria-expanded="true">Legend</button>'
        if foldable
        else '<div class="corridor-legend-title">Legend</div>'
    )
    return f'{heading}<div class="corridor-legend-body">{"".join(rows)}</div>'


_PLACE_LEGEND = {
    "city": "city",
    "town": "town",
    "village": "village",
    "district": "district",
    "crossing": "crossing",
    "region": "province (label point)",
    "point": "other (a point for an area)",
}


_ROUTE_LEGEND = (
    ((ConvoyState.ARRIVED,), "Route, arrived"),
    ((ConvoyState.UNDER_WAY,), "Route, under way (moving dashes)"),
    ((ConvoyState.NOT_DEPARTED, ConvoyState.PLANNED), "Route, not yet departed or planned"),
    ((ConvoyState.CANCELLED, ConvoyState.HALTED), "Route, cancelled or halted (✕)"),
)


def _legend_group(title: str, members: list[tuple[str, str]]) -> str:
    """Several small symbols with their names on one wrapping row (the kinds of place)."""
    cells = "".join(
        f'<span class="corridor-legend-cell">{symbol}{esc(label)}</span>'
        for symbol, label in members
    )
    return f'<div class="corridor-legend-group">{esc(title)} {cells}</div>'


def _legend_row(symbol: str, label: str) -> str:
    return f'<div class="corridor-legend-row"><span>{symbol}</span>{esc(label)}</div>'


def _swatch(stroke: str, fill: str) -> str:
    return (
        '<svg width="18" height="12"><defs>'
        '<pattern id="corridor-legend-hatch" width="5" height="5" '
        'patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" '
        'fill="#fbe3d6"/><line x1="0" y1="0" x2="0" y2="5" stroke="#D55E00" stroke-width="2.5"/>'
        f'</pattern></defs><rect x="1" y="1" width="16" height="10" fill="{fill}" '
        f'fill-opacity="0.6" stroke="{stroke}" stroke-width="1.5"/></svg>'
    )


def _line(colour: str, dash: str, *, opacity: float = 1.0) -> str:
    return (
        f'<svg width="22" height="10"><line x1="1" y1="5" x2="21" y2="5" stroke="{colour}" '
        f'stroke-width="3" stroke-dasharray="{dash or "0"}" stroke-opacity="{opacity:g}"/></svg>'
    )


def _cluster() -> str:
    return (
        '<svg width="16" height="16"><circle cx="8" cy="8" r="7" fill="#fff" stroke="#555" '
        'stroke-width="1.5"/><text x="8" y="11" font-size="8" text-anchor="middle">n</text></svg>'
    )


def _circle(colour: str) -> str:
    return (
        f'<svg width="14" height="14"><circle cx="7" cy="7" r="5.5" fill="{colour}" '
        f'fill-opacity="0.25" stroke="{colour}" stroke-width="1.5"/></svg>'
    )


def _title_html(scenario: Scenario, view: MapView) -> str:
    return (
        f'<div class="corridor-title-main">{esc(scenario.title)}</div>'
        f'<div class="corridor-title-sub">As of {esc(times(view.at, scenario.timezone))}</div>'
    )


# --- page elements (Leaflet controls and small scripts) ------------------------------------


class Items(ScriptElement):
    """Many Leaflet layers from one compact JSON list, added to the parent feature group.

    One element per overlay instead of one folium object per feature: the map builds fast and
    its script stays small. Tooltips and popups are already-escaped HTML passed as JSON strings.
    With `canvas`, vector layers are drawn on the map's shared canvas (thousands stay fluid;
    the parent must be a group on the map), with `still` one that never pans.
    """

    def __init__(self, items: list[Item], *, canvas: bool = False, still: bool = False) -> None:
        super().__init__()
        self._name = "Items"
        self.items = items
        self.canvas = canvas
        self.still = still

    def make_script(self) -> str:
        renderer = "undefined"
        if self.canvas:
            group: Any = self._parent
            renderer = shared_canvas(group._parent.get_name(), still=self.still)
        script = _ITEMS_SCRIPT.replace("GROUP", self.parent_name)
        script = script.replace("RENDERER", renderer)
        items = self.items
        if self.still:  # nobody can hover or click a picture
            items = [{k: v for k, v in item.items() if k not in ("tip", "pop")} for item in items]
        return script.replace("ITEMS", script_json(items))


_ITEMS_SCRIPT = """
(function(group, items) {
    var renderer = RENDERER;
    items.forEach(function(it) {
        var layer;
        if (renderer && it.t !== 'icon') { it.o.renderer = renderer; }
        if (it.t === 'line') { layer = L.polyline(it.ll, it.o); }
        else if (it.t === 'ant') { layer = L.polyline.antPath(it.ll, it.o); }
        else if (it.t === 'circle') { layer = L.circleMarker(it.ll, it.o); }
        else if (it.t === 'geojson') { layer = L.geoJSON(it.g, {style: it.o}); }
        else { layer = L.marker(it.ll, {icon: L.divIcon(it.i), interactive: it.o.interactive}); }
        if (it.tip) { layer.bindTooltip(it.tip, {sticky: true}); }
        if (it.pop) { layer.bindPopup(it.pop, {maxWidth: 380}); }
        layer.addTo(group);
    });
})(GROUP, ITEMS);
"""


class _Hatch(MacroElement):
    """The SVG stripe pattern that besieged areas are filled with."""

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        (function(map) {
            function ensureHatch() {
                var svg = map.getPanes().overlayPane.querySelector('svg');
                if (!svg || svg.querySelector('#{{ this.pattern }}')) { return; }
                var ns = 'http://www.w3.org/2000/svg';
                var defs = document.createElementNS(ns, 'defs');
                defs.innerHTML = '<pattern id="{{ this.pattern }}" width="8" height="8" '
                    + 'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
                    + '<rect width="8" height="8" fill="#fbe3d6"/>'
                    + '<line x1="0" y1="0" x2="0" y2="8" stroke="#D55E00" stroke-width="3"/>'
                    + '</pattern>';
                svg.insertBefore(defs, svg.firstChild);
            }
            map.on('layeradd', ensureHatch);
            map.whenReady(ensureHatch);
        })({{ this._parent.get_name() }});
        {% endmacro %}
        """
    )

    def __init__(self) -> None:
        super().__init__()
        self._name = "Hatch"
        self.pattern = HATCH_ID


class OfflineBase(JSCSSMixin, MacroElement):
    """Natural Earth outlines and GeoNames town labels, in panes beneath any tile layer.

    The data comes in a script of its own (geo.basemap.script, an asset like Leaflet), so the
    map's own script stays small.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        (function(map, data) {
            map.createPane('corridor-base').style.zIndex = 150;
            map.createPane('corridor-base-labels').style.zIndex = 160;
            map.getPane('corridor-base').style.pointerEvents = 'none';
            map.getPane('corridor-base-labels').style.pointerEvents = 'none';
            var renderer = L.svg({pane: 'corridor-base'});
            var common = {pane: 'corridor-base', renderer: renderer, interactive: false};
            L.geoJSON(data.countries, Object.assign({style: function(f) {
                return {color: '#8c8c8c', weight: 1, fillOpacity: 1,
                        fillColor: f.properties.iso_a3 === 'SYR' ? '#fbfaf6' : '#ebe8e1'};
            }}, common)).addTo(map);
            L.geoJSON(data.governorates, Object.assign({style: {
                color: '#a6a6a6', weight: 0.8, dashArray: '3 3', fill: false}}, common)).addTo(map);
            var language = {{ this.language|tojson }};
            function named(town) {  // [lat, lon, English, Arabic] (both escaped)
                var arabic = town[3] ? '<span lang="ar" dir="rtl">' + town[3] + '</span>' : '';
                if (language === 'en' || !arabic) { return town[2]; }
                return language === 'ar' ? arabic : town[2] + '<br>' + arabic;
            }
            data.towns.forEach(function(town) {
                L.marker([town[0], town[1]], {pane: 'corridor-base-labels', interactive: false,
                    keyboard: false, icon: L.divIcon({className: 'corridor-town', html: named(town),
                    iconSize: null})}).addTo(map);
            });
            map.attributionControl.addAttribution({{ this.credit|tojson }});
        })({{ this._parent.get_name() }}, window.{{ this.data_global }});
        {% endmacro %}
        """
    )

    def __init__(self, language: LabelLanguage = LabelLanguage.ENGLISH) -> None:
        super().__init__()
        self._name = "OfflineBase"
        self.language = language.value
        self.data_global = basemap.GLOBAL
        self.credit = esc(basemap.ATTRIBUTION)


class _LayerSync(MacroElement):
    """Tells streamlit-folium which overlays are on, so an untick in the map reaches Python.

    streamlit-folium sends `selected_layers` on every overlay change; it fills it for WMS layers
    only, so this adds Corridor's overlays (url 'corridor'). In a standalone page it does nothing.
    """

    _template = Template(
        """
        {% macro script(this, kwargs) %}
        (function(map, layers) {
            function publish() {
                var shared = window.__GLOBAL_DATA__;
                var on = Object.keys(layers).filter(function(k) {
                    return map.hasLayer(layers[k]);
                });
                map.getContainer().setAttribute('data-corridor-layers', on.join(' '));
                if (!shared || !shared.selected_layers) { return; }
                Object.keys(shared.selected_layers).forEach(function(k) {
                    if (k.indexOf('corridor:') === 0) { delete shared.selected_layers[k]; }
                });
                on.forEach(function(k) {
                    shared.selected_layers['corridor:' + k] = {name: k, url: 'corridor'};
                });
            }
            map.on('overlayadd overlayremove', publish);
            publish();
        })({{ this._parent.get_name() }}, {
            {%- for key, group in this.groups.items() %}
            {{ key|tojson }}: {{ group.get_name() }}{{ "," if not loop.last }}
            {%- endfor %}
        });
        {% endmacro %}
        """
    )

    def __init__(self, groups: dict[str, folium.FeatureGroup]) -> None:
        super().__init__()
        self._name = "LayerSync"
        self.groups = groups


def convoy_near(
    scenario: Scenario,
    view: MapView,
    latitude: float,
    longitude: float,
    *,
    within_km: float = 3.0,
    among: Iterable[str] | None = None,
) -> str | None:
    """The visible convoy (of `among`) whose marker or route is nearest a point, in `within_km`."""
    clicked = Point(longitude, latitude)
    best: tuple[float, str] | None = None
    wanted = None if among is None else set(among)
    for convoy in visible_convoys(scenario, view):
        if wanted is not None and convoy.id not in wanted:
            continue
        item = timeline.convoy_at(scenario, convoy, view.at)
        shapes = [leg.geometry for leg in timeline.legs_of(scenario, convoy.id)]
        if item.position is not None:
            shapes.append(item.position)
        for shape in shapes:
            degrees = shape.distance(clicked)
            if best is None or degrees < best[0]:
                best = (degrees, convoy.id)
    if best is None or best[0] * 111.0 > within_km:
        return None
    return best[1]


def convoy_clicked(
    scenario: Scenario,
    view: MapView,
    latitude: float,
    longitude: float,
    tooltip: str | None,
    zoom: int | None,
) -> str | None:
    """The convoy a click on the map picked, or None when it picked something else.

    A route, a convoy marker and a halted convoy's cross name their convoy in their tooltip
    (`<label> — …`, `<label>: …`); a click on a zone, a place or a figure names no convoy and
    selects none. Where routes carry no tooltip (thousands drawn lean) the nearest convoy within
    about 12 screen pixels is taken.
    """
    if tooltip:
        named = [c.id for c in visible_convoys(scenario, view) if _names_convoy(tooltip, c.label)]
        if len(named) <= 1:
            return named[0] if named else None
        near = convoy_near(scenario, view, latitude, longitude, within_km=math.inf, among=named)
        return near
    metres_per_pixel = 156_543.03 * math.cos(math.radians(latitude)) / 2 ** (zoom or 9)
    return convoy_near(scenario, view, latitude, longitude, within_km=12 * metres_per_pixel / 1000)


def _names_convoy(tooltip: str, label: str) -> bool:
    return tooltip.strip() == label or tooltip.startswith((f"{label} — ", f"{label}: "))


def selected_layers(returned: Iterable[Any] | None) -> frozenset[str] | None:
    """The overlays switched on in the map, from st_folium's `selected_layers`; None if unknown."""
    if returned is None:
        return None
    names = [item.get("name") for item in returned if isinstance(item, dict)]
    picked = [item for item in returned if isinstance(item, dict) and item.get("url") == "corridor"]
    if not picked and names:
        return None
    return frozenset(str(item["name"]) for item in picked if item.get("name") in LAYER_LABELS)


NORTH_ARROW = (
    '<svg width="26" height="38" viewBox="0 0 26 38"><path d="M13,2 L22,26 L13,20 L4,26 Z" '
    'fill="#222"/><text x="13" y="37" text-anchor="middle" font-size="11" '
    'font-family="sans-serif">N</text></svg>'
)
"""Leaflet maps here are always north up."""
_OSM_CREDIT = (
    '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'
)
_CONVOY_SVG = (
    '<svg width="26" height="26" viewBox="0 0 26 26"><circle cx="13" cy="13" r="11" fill="#009E73" '
    'stroke="#fff" stroke-width="2"/><rect x="7" y="8" width="12" height="8" rx="1.5" fill="#fff"/>'
    '<circle cx="9.5" cy="17.5" r="1.6" fill="#fff"/>'
    '<circle cx="16.5" cy="17.5" r="1.6" fill="#fff"/></svg>'
)
_CROSS_SVG = (
    '<svg width="18" height="18" viewBox="0 0 18 18"><circle cx="9" cy="9" r="8" fill="#fff" '
    'stroke="#7a7a7a" stroke-width="1.5"/><path d="M5,5 L13,13 M13,5 L5,13" stroke="#7a7a7a" '
    'stroke-width="2.2"/></svg>'
)


def _shape(body: str) -> str:
    return f'<svg width="14" height="14" viewBox="0 0 14 14">{body}</svg>'


_STROKE = 'stroke="#222" stroke-width="1.5" stroke-dasharray="0"'
_PLACE_SVG = {
    "city": _shape(f'<rect x="2" y="2" width="10" height="10" fill="#fff" {_STROKE}/>'),
    "town": _shape(f'<circle cx="7" cy="7" r="5" fill="#fff" {_STROKE}/>'),
    "village": _shape(f'<circle cx="7" cy="7" r="3.5" fill="#fff" {_STROKE}/>'),
    "district": _shape(f'<path d="M7,1 L13,7 L7,13 L1,7 Z" fill="#fff" {_STROKE}/>'),
    "crossing": _shape(
        f'<circle cx="7" cy="7" r="5.5" fill="#fff" {_STROKE}/>'
        '<path d="M4,7 L10,7" stroke="#222" stroke-width="2"/>'
    ),
    "region": _shape(f'<path d="M7,1 L13,12 L1,12 Z" fill="#fff" {_STROKE}/>'),
    "point": _shape(f'<circle cx="7" cy="7" r="2.5" fill="#222" {_STROKE}/>'),
}
_MAP_CSS = """
div.leaflet-container{background:#d4e4ee;font:12px/1.3 FONTS}
.corridor-town{font:11px/1 FONTS;color:#555;white-space:nowrap;
  text-shadow:0 0 2px #fff,0 0 2px #fff}
.corridor-arrow,.corridor-place,.corridor-convoy,.corridor-symbol{background:none;border:none}
.corridor-cluster{background:rgba(255,255,255,.9);border:1.5px solid #555;border-radius:50%;
  display:flex;align-items:center;justify-content:center;font:600 11px/1 FONTS}
""".replace("FONTS", FONTS)
