"""The map's legend and title: what is switched on and present at the moment, with its symbols."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from geo import event_columns
from geo.mapview import event_points
from geo.mapview.layers import headed_to
from geo.mapview.lean import lean_weight
from geo.mapview.symbols import (
    APPROXIMATE_DASH,
    CONVOY_SVG,
    FIGURE_COLOURS,
    PLACE_SVG,
    PLANNED_DASH,
    RISK_COLOURS,
    STATE_COLOURS,
    ZONE_COLOURS,
    dotted,
    inbound_svg,
)
from geo.mapview.view import DETAIL_LIMIT, LAYER_LABELS, ZONE_LAYERS, MapView, Shown, shown
from geo.messages import Words
from geo.records import Control, Scenario
from geo.safe_html import esc, times
from geo.timeline import ConvoyState


def legend_html(
    scenario: Scenario, view: MapView, records: Shown | None = None, *, foldable: bool = False
) -> str:
    """The legend of what is switched on and present at the moment, with the map's symbols.

    A `foldable` legend's heading is a button that folds it (see furniture.Panel).
    """
    records = records or shown(scenario, view)
    words = Words(view.language)
    rows: list[str] = []
    controls = {zone.control for zone in records.zones}
    zones: list[tuple[str, str]] = []
    for control, key in ZONE_LAYERS.items():
        if key in view.layers and control in controls:
            hatch = control is Control.BESIEGED
            fill = "url(#corridor-legend-hatch)" if hatch else ZONE_COLOURS[control]
            zones.append((_swatch(ZONE_COLOURS[control], fill), words(LAYER_LABELS[key])))
    if zones:
        rows.append(_legend_group("", zones))
    states = {item.state for item in records.convoys}
    lean = len(records.convoys) > DETAIL_LIMIT
    routes: list[tuple[str, str]] = []
    if "routes" in view.layers and states:
        for group, label in ROUTE_LEGEND:
            if states & set(group):
                dash = PLANNED_DASH if ConvoyState.NOT_DEPARTED in group and not lean else ""
                routes.append((_line(STATE_COLOURS[group[0]], dash), words(label)))
        if lean:
            count = len(records.convoys)
            note = words(
                "Overview of {count} convoys: lines {width} px wide, approximate ones thinner "
                "and faded",
                count=f"{count:,}",
                width=f"{lean_weight(count):g}",
            )
            routes.append((_line("#1a1a1a", "", opacity=0.45), note))
        else:
            routes.append((_line("#1a1a1a", APPROXIMATE_DASH), words("dashed: approximate")))
        if not lean and any(headed_to(scenario, item) for item in records.convoys):
            ring = inbound_svg("#1a1a1a", size=14)
            routes.append((ring, words("destination, origin not reported")))
    if "convoys" in view.layers and records.moving:
        small = CONVOY_SVG.replace('width="26" height="26"', 'width="14" height="14"')
        routes.append((small, words("convoy, position interpolated")))
    if routes:
        rows.append(_legend_group("", routes))
    if "places" in view.layers and records.places:
        kinds = {place.kind.value for place in records.places}
        shown_kinds = [
            (PLACE_SVG[k], words(label)) for k, label in PLACE_LEGEND.items() if k in kinds
        ]
        shown_kinds.append((dotted(PLACE_SVG["town"]), words("approximate")))
        rows.append(_legend_group(words("Places:"), shown_kinds))
    if "risk" in view.layers:
        grounds = [(_line(colour, ""), words(ground)) for ground, colour in RISK_COLOURS.items()]
        grounds.append((_circle("#000000"), words("front line crossed")))
        rows.append(_legend_group(words("Route through ground:"), grounds))
    if "events" in view.layers and len(records.events):
        table = event_columns.columns(scenario)
        kinds_seen: list[tuple[str, str]] = []
        for kind in sorted(set(table.kind[records.events].tolist())):
            name = table.kinds[kind]
            colour = event_points.EVENT_COLOURS.get(name, event_points.OTHER_COLOUR)
            kinds_seen.append((_circle(colour), name))
        kinds_seen.append((_cluster(), words("grouped (click to zoom in)")))
        rows.append(_legend_group(words("Events:"), kinds_seen))
    if "figures" in view.layers and records.figures:
        figure_kinds = [
            (_circle(FIGURE_COLOURS[kind]), words(kind.value.replace("_", " ")))
            for kind in dict.fromkeys(figure.kind for figure in records.figures)
        ]
        rows.append(_legend_group(words("Reported (area ∝ count):"), figure_kinds))
    rows += [_note(note) for note in figures_note(scenario, view, records)]
    # (outside the body: a folded legend still says the map has no zone at this moment)
    absent = "".join(_note(note) for note in zones_notes(scenario, view, records))
    # (the base map's credit is the map's attribution line, not a row here)
    title = esc(words("Legend"))
    heading = (
        f'<button type="button" class="corridor-fold" aria-expanded="true">{title}</button>'
        if foldable
        else f'<div class="corridor-legend-title">{title}</div>'
    )
    body = f'<div class="corridor-legend-body">{"".join(rows)}</div>'
    return f'<div dir="{words.dir}">{heading}{absent}{body}</div>'


def zones_notes(scenario: Scenario, view: MapView, records: Shown) -> list[str]:
    """'Government-held and Besieged zones: none at this moment (valid 15 Dec 2016 00:00 to
    16 Dec 00:00 EET)', for the zone layers switched on that have no zone at the moment."""
    words = Words(view.language)
    present = {zone.control for zone in records.zones}
    missing: dict[str, list[str]] = {}  # the labels of the zone layers missing, by when valid
    for control, key in ZONE_LAYERS.items():
        zones = [z for z in scenario.zones if z.control is control]
        if key in view.layers and zones and control not in present:
            valid = _valid(zones, scenario.timezone, words)
            missing.setdefault(valid, []).append(words(LAYER_LABELS[key]))
    return [
        words("{layers} zones: none at this moment ({valid})", layers=_listed(labels, words),
              valid=valid)
        for valid, labels in missing.items()
    ]  # fmt: skip


def figures_note(scenario: Scenario, view: MapView, records: Shown) -> list[str]:
    """'Reported figures: none yet (the first at 15 Dec 17:00 EET)', when none is yet (the
    year named when it is not the moment's)."""
    if "figures" not in view.layers or not scenario.figures or records.figures:
        return []
    words = Words(view.language)
    first = min(figure.reported for figure in scenario.figures)
    first_text = _local(first, scenario.timezone, year=first.year != view.at.year)
    return [words("Reported figures: none yet (the first at {first})", first=first_text)]


def _note(text: str) -> str:
    return f'<div class="corridor-legend-absent" role="note">{esc(text)}</div>'


def _listed(labels: list[str], words: Words) -> str:
    """'A', 'A and B', 'A, B and C'."""
    if len(labels) == 1:
        return labels[0]
    return words("{some} and {last}", some=", ".join(labels[:-1]), last=labels[-1])


def _valid(zones: list[Any], zone: str, words: Words) -> str:
    """'valid 15 Dec 2016 00:00 to 16 Dec 00:00 EET' or 'valid from 15 Dec 2016 00:00 EET'."""
    start = min(item.valid_from for item in zones)
    ends = [item.valid_to for item in zones]
    if None in ends:
        return words("valid from {start}", start=_local(start, zone))
    end = max(e for e in ends if e is not None)
    begins = f"{start.astimezone(ZoneInfo(zone)):%d %b %Y %H:%M}"
    return words("valid {start} to {end}", start=begins, end=_local(end, zone, year=False))


def _local(moment: datetime, zone: str, *, year: bool = True) -> str:
    """'15 Dec 2016 17:00 EET': the scenario's local time and the zone's abbreviation."""
    local = moment.astimezone(ZoneInfo(zone))
    return f"{local:%d %b %Y %H:%M %Z}" if year else f"{local:%d %b %H:%M %Z}"


PLACE_LEGEND = {
    "city": "city",
    "town": "town",
    "village": "village",
    "district": "district",
    "crossing": "crossing",
    "region": "province",
    "point": "area (a point)",
}


ROUTE_LEGEND = (
    ((ConvoyState.ARRIVED,), "arrived"),
    ((ConvoyState.UNDER_WAY,), "under way"),
    ((ConvoyState.NOT_DEPARTED, ConvoyState.PLANNED), "not yet left or planned"),
    ((ConvoyState.CANCELLED, ConvoyState.HALTED), "cancelled or halted (✕)"),
)


def _legend_group(title: str, members: list[tuple[str, str]]) -> str:
    """Small symbols with their names on one wrapping line after a title ('Places:'), so that
    the legend stays a few lines high (issue 43: it covered a ninth of the dashboard's map)."""
    cells = "".join(
        f'<span class="corridor-legend-cell">{symbol}{esc(label)}</span>'
        for symbol, label in members
    )
    heading = f'<span class="corridor-legend-key">{esc(title)}</span> ' if title else ""
    return f'<div class="corridor-legend-group">{heading}{cells}</div>'


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


def title_html(scenario: Scenario, view: MapView) -> str:
    words = Words(view.language)
    moment = words("As of {time}", time=times(view.at, scenario.timezone))
    return (
        f'<div dir="{words.dir}"><div class="corridor-title-main" dir="auto">'
        f'{esc(scenario.title)}</div><div class="corridor-title-sub">{esc(moment)}</div></div>'
    )
