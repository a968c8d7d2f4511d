"""The map's overlays: zones, routes, convoys, places, figures, route risk and live tracks."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import folium
from branca.element import MacroElement
from shapely.geometry import mapping

from geo import _memo, analysis, timeline
from geo.analysis import RiskRules, said
from geo.geocoding import gazetteer
from geo.mapview import event_points, place_labels
from geo.mapview.elements import Item, Items, leaflet_item, rounded
from geo.mapview.event_points import EventPoints
from geo.mapview.lean import lean_marker, lean_routes
from geo.mapview.place_labels import LabelLanguage
from geo.mapview.symbols import (
    APPROXIMATE_DASH,
    APPROXIMATE_NOTE,
    CONVOY_SVG,
    CROSS_SVG,
    FIGURE_COLOURS,
    HATCH_ID,
    PLACE_SVG,
    PLANNED_DASH,
    RISK_COLOURS,
    STATE_COLOURS,
    TRACK_COLOURS,
    ZONE_COLOURS,
    dotted,
    inbound_svg,
)
from geo.mapview.view import (
    ALL_LAYERS,
    DETAIL_LIMIT,
    LAYER_LABELS,
    ZONE_LAYERS,
    MapView,
    Shown,
)
from geo.messages import Words
from geo.position_table import PositionTable
from geo.records import (
    CONVOY_COUNTS,
    Control,
    ControlZone,
    Figure,
    Place,
    Position,
    Route,
    Scenario,
)
from geo.safe_html import card, esc, times
from geo.timeline import ConvoyAt, ConvoyState, count_text

ENGLISH = Words("en")


def overlay_groups(view: MapView) -> dict[str, folium.FeatureGroup]:
    """One empty feature group per overlay, in the layer control, switched on as `view` asks."""
    words = Words(view.language)
    return {
        key: folium.FeatureGroup(name=words(LAYER_LABELS[key]), show=key in view.layers)
        for key in ALL_LAYERS
    }


def overlay_fills(
    scenario: Scenario,
    view: MapView,
    records: Shown,
    *,
    still: bool,
    served: event_points.Served | None = None,
) -> dict[str, MacroElement]:
    """What each overlay draws at the moment, one element of compact JSON each (many events of
    a `served` map: a file beside it, see geo.mapview.event_points.layer_data)."""
    words = Words(view.language)
    items: dict[str, list[Item]] = {key: [] for key in ALL_LAYERS}
    for zone in records.zones:
        items[ZONE_LAYERS[zone.control]].append(_zone(zone, scenario, words))
    lean = len(records.convoys) > DETAIL_LIMIT
    for convoy in records.convoys if not lean else ():
        legs = timeline.legs_of(scenario, convoy.convoy.id)
        for leg in legs:
            items["routes"] += _route(leg, convoy, scenario, words)
        if not legs and headed_to(scenario, convoy):
            items["routes"] += _headed_to(convoy, scenario, words)
    if lean:
        items["convoys"] = [lean_marker(convoy, tip=not still) for convoy in records.moving]
    else:
        items["convoys"] = [_convoy_marker(c, scenario, words) for c in records.moving]
    arabic = arabic_names(scenario) if view.labels is not LabelLanguage.ENGLISH else {}
    titles = source_titles(scenario)
    items["places"] = [
        _place(p, arabic.get(p.id, ""), view.labels, titles, words) for p in records.places
    ]
    for figure in records.figures:
        items["figures"] += _figure(figure, scenario, words)
    if "risk" in view.layers:
        zones = zone_names(scenario, view.labels, arabic)
        for risk in risks(scenario, view, shapes=True).values():
            items["risk"] += _risk(risk, words, lambda name: zones.get(name, name))
    fills: dict[str, MacroElement] = {}
    for key in ALL_LAYERS:
        if key == "events":
            data = event_points.layer_data(scenario, records.events, still=still, served=served)
            fills[key] = EventPoints(data, still=still)
        elif key == "routes" and lean:
            fills[key] = lean_routes(scenario, records)
        else:
            canvas = lean and key in ("routes", "convoys")
            fills[key] = Items(items[key], canvas=canvas, still=still)
    return fills


# --- zones -------------------------------------------------------------------------------


def source_titles(scenario: Scenario) -> dict[str, str]:
    """Each source's id → the title a reader knows it by (a popup names sources, not ids)."""
    return _memo.derived(
        scenario.sources, "titles", lambda: {s.id: s.title or s.id for s in scenario.sources}
    )


def _cited(ids: tuple[str, ...], titles: dict[str, str]) -> str:
    """'Wire report: thousands leave east Aleppo …; GeoNames gazetteer' for source ids."""
    return "; ".join(titles.get(source, source) for source in ids)


def _zone(zone: ControlZone, scenario: Scenario, words: Words) -> Item:
    tz = scenario.timezone
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
        (words("Control"), words(zone.control.value)),
        (words("Held by"), zone.holder),
        (words("Valid from"), times(zone.valid_from, tz)),
        (words("Valid to"), times(zone.valid_to, tz) or words("until further notice")),
        (words("Precision"), words(zone.precision.value)),
        (words("Source"), _cited(zone.source, source_titles(scenario))),
    ]
    note = words(APPROXIMATE_NOTE) if approximate else ""
    popup = card(zone.name, facts, note=note, quote=zone.quote, direction=words.dir)
    feature = {"type": "Feature", "properties": {}, "geometry": mapping(zone.geometry)}
    tip = esc(f"{zone.name} ({words(zone.control.value)})")
    return leaflet_item("geojson", feature, style, tip, popup)


# --- convoys and routes ------------------------------------------------------------------


def _note(text: str, words: Words) -> str:
    """A note under a popup's card, in the card's direction."""
    return f'<p class="corridor-note" dir="{words.dir}">{esc(text)}</p>'


def convoy_card(item: ConvoyAt, scenario: Scenario, words: Words = ENGLISH) -> str:
    """Popup HTML for a convoy: state at the moment, counts with qualifiers, times, source."""
    convoy, tz = item.convoy, scenario.timezone
    names = {place.id: place.name for place in scenario.places}
    counts = [
        (words(label.capitalize()), count_text(getattr(convoy, label), words))
        for label in CONVOY_COUNTS
    ]
    facts = [
        (words("At this moment"), words(item.state.value)),
        (words("Latest reported status"), words(convoy.status.value.replace("_", " "))),
        (words("From"), names.get(convoy.origin, words("not stated"))),
        (words("Via"), ", ".join(names[p] for p in convoy.via)),
        (words("To"), names[convoy.destination]),
        (words("Departs"), times(convoy.depart, tz)),
        (words("Arrives"), times(convoy.arrive, tz)),
        (words("Times"), words(convoy.time_precision.value)),
        *counts,
        (words("Organisation"), convoy.organisation),
        (words("Confidence"), words(convoy.confidence.value)),
        (words("Source"), _cited(convoy.source, source_titles(scenario))),
    ]
    note = state_note(item, words)
    return card(convoy.label, facts, note=note, quote=convoy.quote, direction=words.dir)


def state_note(item: ConvoyAt, words: Words = ENGLISH) -> str:
    """Why the state at the moment differs from the latest reported status, when it does."""
    status = item.convoy.status.value.replace("_", " ")
    if item.state.value == status:
        return ""
    return words(
        "At the moment shown it was {state}, by its reported times; the latest report on it "
        "says {status}.",
        state=words(item.state.value),
        status=words(status),
    )


def _route(leg: Route, item: ConvoyAt, scenario: Scenario, words: Words) -> list[Item]:
    state = item.state
    colour = STATE_COLOURS[state]
    approximate = leg.precision.value == "approximate"
    locations = [(lat, lon) for lon, lat, *_ in leg.geometry.coords]
    precision = words(leg.precision.value)
    note = (
        words("Route leg {leg}: {precision} line — drawn from the report's wording, not a "
              "surveyed road.", leg=leg.leg, precision=precision)
        if approximate
        else words("Route leg {leg}: {precision} line.", leg=leg.leg, precision=precision)
    )  # fmt: skip
    popup = convoy_card(item, scenario, words) + _note(note, words)
    tip = esc(f"{item.convoy.label} — {words(state.value)}")
    if state is ConvoyState.UNDER_WAY:
        options = {"color": colour, "weight": 5, "delay": 1200, "dashArray": [12, 18],
                   "pulseColor": "#ffffff"}  # fmt: skip
        line = leaflet_item("ant", rounded(locations), options, tip, popup)
    else:
        dash = PLANNED_DASH if state in (ConvoyState.NOT_DEPARTED, ConvoyState.PLANNED) else None
        dash = dash or (APPROXIMATE_DASH if approximate else None)
        options = {"color": colour, "weight": 4, "opacity": 0.9, "dashArray": dash}
        line = leaflet_item("line", rounded(locations), options, tip, popup)
    items = [line, *_arrows(locations, colour)]
    if state in (ConvoyState.CANCELLED, ConvoyState.HALTED):
        middle = locations[len(locations) // 2]
        cross = esc(f"{item.convoy.label}: {words(state.value)}")
        items.append(_icon(middle, CROSS_SVG, 18, cross))
    return items


HEADING = {ConvoyState.UNDER_WAY, ConvoyState.NOT_DEPARTED, ConvoyState.PLANNED,
           ConvoyState.ARRIVED}  # fmt: skip
"""States in which a convoy of no known origin is drawn at its destination (not a cancelled
or halted one: it never got there)."""
HEADED_TO_NOTE = (
    "No route is drawn: the report says where this convoy was headed, not where it came "
    "from. The dashed ring marks its destination."
)


def headed_to(scenario: Scenario, item: ConvoyAt) -> bool:
    """Whether the convoy is drawn at its destination alone: no route, no origin, not given up."""
    return (
        not item.convoy.origin
        and item.state in HEADING
        and not timeline.legs_of(scenario, item.convoy.id)
    )


def _headed_to(item: ConvoyAt, scenario: Scenario, words: Words) -> list[Item]:
    """A convoy with a destination and no route ("nearly 30 vehicles were headed to Fuaa and
    Kafraya"): a ring of arrows on its destination, so half a story is not left off the map."""
    try:
        place = scenario.place(item.convoy.destination)
    except KeyError:
        return []  # (a destination named but not placed: nothing to draw it at)
    state = item.state
    state_text = words(state.value.replace("_", " "))
    tip = esc(f"{item.convoy.label} — " + words("{state}, origin not reported", state=state_text))
    popup = convoy_card(item, scenario, words) + _note(words(HEADED_TO_NOTE), words)
    return [_icon((place.latitude, place.longitude), inbound_svg(STATE_COLOURS[state]), 34,
                  tip, popup)]  # fmt: skip


def _icon(location: tuple[float, float], svg: str, size: int, tip: str = "", pop: str = "") -> Item:
    half = size // 2
    icon = {"html": svg, "iconSize": [size, size], "iconAnchor": [half, half],
            "className": "corridor-symbol"}  # fmt: skip
    item = leaflet_item("icon", rounded([location])[0], {"interactive": bool(tip or pop)}, tip, pop)
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


def _convoy_marker(item: ConvoyAt, scenario: Scenario, words: Words) -> Item:
    assert item.position is not None
    share = f"{(item.progress or 0) * 100:.0f}%"
    where = words("under way, about {share} of the route", share=share)
    tip = esc(f"{item.convoy.label} — {where}")
    location = (item.position.y, item.position.x)
    return _icon(location, CONVOY_SVG, 26, tip, convoy_card(item, scenario, words))


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


def zone_names(
    scenario: Scenario, language: LabelLanguage, arabic: dict[str, str]
) -> dict[str, str]:
    """Each zone's name as the place-name choice writes it (its place's Arabic name, or both;
    a zone without one keeps its own), by its name; `arabic`: the places' (arabic_names)."""
    if language is LabelLanguage.ENGLISH:
        return {}
    return {
        zone.name: place_labels.label(
            zone.name, place_labels.zone_arabic(zone, scenario.places, arabic), language
        )
        for zone in scenario.zones
    }


def _risk(risk: analysis.RouteRisk, words: Words, name: Callable[[str], str] = str) -> list[Item]:
    """A route's stretches coloured by the ground they cross, its crossings and its buffer;
    `name` writes a zone's name as the place-name choice does (zone_names)."""
    ground = [
        (words(k.replace("_", " ")), f"{v:.2f} km") for k, v in risk.by_control_km.items() if v > 0
    ]
    level = words(risk.level).upper() + (" — " + words("ALERT") if risk.alert else "")
    facts = [
        (words("Level"), level),
        (words("At this moment"), words(risk.state)),
        (words("Length"), f"{risk.length_km:.2f} km"),
        *ground,
        (words("Front lines crossed"), str(risk.front_line_crossings)),
        (words("Events nearby"), f"{risk.events} ({_kinds(risk.events_by_type)})"),
        (words("Fatalities reported"), str(risk.fatalities)),
        (words("Nearest besieged/contested"),
         f"{name(risk.nearest_danger)} ({risk.nearest_danger_km:.1f} km)"
         if risk.nearest_danger else ""),
        (words("Because"),
         "; ".join(said(r, words, name) for r in risk.reasons) or words("no rule fired")),
    ]  # fmt: skip
    title = words("Route risk: {label}", label=risk.label)
    popup = card(title, facts, direction=words.dir)
    items: list[Item] = []
    if risk.buffer is not None:
        outline = {"type": "Feature", "properties": {}, "geometry": mapping(risk.buffer)}
        style = {"color": "#444444", "weight": 1, "dashArray": "3 4", "fillOpacity": 0.04}
        items.append(
            leaflet_item("geojson", outline, style, esc(f"{risk.label}: events buffer"), popup)
        )
    for control, piece in risk.pieces:
        locations = [(lat, lon) for lon, lat, *_ in piece.coords]
        style = {"color": RISK_COLOURS[control], "weight": 7, "opacity": 0.75}
        tip = esc(f"{risk.label}: {control} ground")
        items.append(leaflet_item("line", rounded(locations), style, tip, popup))
    for crossing in risk.crossings:
        kind = "Front line" if crossing.front_line else "Boundary"
        tip = esc(
            f"{kind}: {crossing.before} → {crossing.after} ({crossing.along_km:.1f} km along)"
        )
        style = {"radius": 6 if crossing.front_line else 4, "color": "#000000", "weight": 2,
                 "fillColor": "#ffffff", "fillOpacity": 1}  # fmt: skip
        items.append(
            leaflet_item(
                "circle", rounded([(crossing.latitude, crossing.longitude)])[0], style, tip
            )
        )
    return items


def tracks_group(
    states: dict[str, Any], reports: Sequence[Position], labels: dict[str, str]
) -> Any:
    """Live positions: each convoy's reported track and its latest report, coloured by state.

    A layer of its own, for streamlit-folium's `feature_group_to_add`: it changes every few
    seconds while the rest of the map does not, so the map is not drawn again.
    """
    group = folium.FeatureGroup(name="Live positions")
    items: list[Item] = []
    table = PositionTable.of(reports)
    for convoy_id, state in states.items():
        latest = state.latest
        if latest is None:
            continue
        colour = TRACK_COLOURS.get(str(state.state), "#999999")
        rows = table.rows_until(convoy_id, state.at)
        latitudes, longitudes = table.latitude[rows].tolist(), table.longitude[rows].tolist()
        trail = list(zip(latitudes, longitudes, strict=True))
        if len(trail) > 1:
            style = {"color": colour, "weight": 2, "opacity": 0.8, "dashArray": "1 4"}
            items.append(leaflet_item("line", rounded(trail), style))
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
        where = rounded([(latest.latitude, latest.longitude)])[0]
        tip = esc(f"{label}: {state.state}")
        items.append(leaflet_item("circle", where, style, tip, card(f"Live: {label}", facts)))
    Items(items).add_to(group)
    return group


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {count}" for kind, count in counts.items()) or "none"


# --- places and figures ------------------------------------------------------------------


def arabic_names(scenario: Scenario) -> dict[str, str]:
    """The Arabic name of each of the scenario's places that has one (found once per scenario)."""
    places = scenario.places
    return _memo.derived(
        places, "arabic-names", lambda: place_labels.arabic_names(places, gazetteer.default())
    )


def _place(
    place: Place,
    arabic: str = "",
    language: LabelLanguage = LabelLanguage.ENGLISH,
    titles: dict[str, str] | None = None,
    words: Words = ENGLISH,
) -> Item:
    approximate = place.precision.value != "exact"
    facts = [
        (words("Kind"), words(place.kind.value)),
        (words("Arabic"), arabic),
        (words("Also written"), ", ".join(place.aliases)),
        (words("Governorate"), place.admin1),
        (words("Coordinates"), f"{place.latitude:.4f}, {place.longitude:.4f}"),
        (words("Precision"), words(place.precision.value)),
        (words("Source"), _cited(place.source, titles or {})),
    ]
    note = words(APPROXIMATE_NOTE) if place.precision.value == "approximate" else ""
    svg = PLACE_SVG.get(place.kind.value, PLACE_SVG["point"])
    if approximate:
        svg = dotted(svg)
    title = place_labels.label(place.name, arabic, language)
    popup = card(title, facts, note=note, quote=place.quote, direction=words.dir)
    tip = esc(f"{title} ({words(place.kind.value)})")
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


def figure_radius(value: int) -> float:
    """Proportional symbol: area grows with the count (3 px at zero, 45 px at most)."""
    return min(3.0 + 2.2 * math.sqrt(value / 1000), 45.0)


def _figure(figure: Figure, scenario: Scenario, words: Words) -> list[Item]:
    place = scenario.place(figure.place)
    colour = FIGURE_COLOURS[figure.kind]
    kind = words(figure.kind.value.replace("_", " "))
    facts = [
        (words("Kind"), kind),
        (words("Count"), count_text(figure.count, words)),
        (words("Who"), figure.what),
        (words("Place"), place.name),
        (words("Reported"), times(figure.reported, scenario.timezone)),
        (words("Said by"), figure.attribution),
        (words("Source"), _cited(figure.source, source_titles(scenario))),
    ]
    label = f"{kind}: {count_text(figure.count, words)} {figure.what}"
    popup = card(label, facts, quote=figure.quote, direction=words.dir)
    high = figure.count.high
    values = [high, figure.count.low] if figure.count.is_range else [high]
    where = rounded([(place.latitude, place.longitude)])[0]
    return [
        leaflet_item("circle", where, {
            "radius": round(figure_radius(value), 1), "color": colour, "weight": 1.5,
            "fillColor": colour, "fillOpacity": 0.15 if value == high else 0.3,
            "dashArray": "4 3" if figure.count.is_range and value == high else None,
        }, esc(label), popup)
        for value in values
    ]  # fmt: skip


def selection(scenario: Scenario, view: MapView) -> folium.FeatureGroup:
    """A halo under the selected convoy's route (not in the layer control)."""
    group = folium.FeatureGroup(name="Selected convoy", control=False)
    line = timeline.route_of(scenario, view.selected) if view.selected else None
    if line is not None:
        locations = rounded((lat, lon) for lon, lat, *_ in line.coords)
        halo = {"color": "#F0E442", "weight": 12, "opacity": 0.8, "interactive": False}
        Items([leaflet_item("line", locations, halo)]).add_to(group)
    return group
