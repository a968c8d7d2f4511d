"""The map's legend and title: what is switched on and present at the moment, with its symbols."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from geo import basemap, bulk, event_columns
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
from geo.records import Control, Scenario
from geo.safe_html import esc, times
from geo.timeline import ConvoyState


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
        if not lean and any(headed_to(scenario, item) for item in records.convoys):
            ring = inbound_svg("#1a1a1a", size=18)
            rows.append(_legend_row(ring, "Headed to a place, origin not reported"))
    if "convoys" in view.layers and records.moving:
        small = CONVOY_SVG.replace('width="26" height="26"', 'width="16" height="16"')
        rows.append(_legend_row(small, "Convoy under way (position interpolated)"))
    if "places" in view.layers and records.places:
        kinds = {place.kind.value for place in records.places}
        shown_kinds = [(PLACE_SVG[k], label) for k, label in _PLACE_LEGEND.items() if k in kinds]
        shown_kinds.append((dotted(PLACE_SVG["town"]), "approximate"))
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
    rows += [_note(note) for note in figures_note(scenario, view, records)]
    # (outside the body: a folded legend still says the map has no zone at this moment)
    absent = "".join(_note(note) for note in zones_notes(scenario, view, records))
    rows.append(f'<div class="corridor-credit">{esc(basemap.ATTRIBUTION)}</div>')
    heading = (
        '<button type="button" class="corridor-fold" aria-expanded="true">Legend</button>'
        if foldable
        else '<div class="corridor-legend-title">Legend</div>'
    )
    return f'{heading}{absent}<div class="corridor-legend-body">{"".join(rows)}</div>'


def zones_notes(scenario: Scenario, view: MapView, records: Shown) -> list[str]:
    """'Government-held and Besieged zones: none at this moment (valid 15 Dec 2016 00:00 to
    16 Dec 00:00 EET)', for the zone layers switched on that have no zone at the moment."""
    present = {zone.control for zone in records.zones}
    missing: dict[str, list[str]] = {}  # the labels of the zone layers missing, by when valid
    for control, key in ZONE_LAYERS.items():
        zones = [z for z in scenario.zones if z.control is control]
        if key in view.layers and zones and control not in present:
            missing.setdefault(_valid(zones, scenario.timezone), []).append(LAYER_LABELS[key])
    return [
        f"{_listed(labels)} zones: none at this moment ({valid})"
        for valid, labels in missing.items()
    ]


def figures_note(scenario: Scenario, view: MapView, records: Shown) -> list[str]:
    """'Reported figures: none yet (the first, 15 Dec 2016 17:00 EET)', when none is yet."""
    if "figures" not in view.layers or not scenario.figures or records.figures:
        return []
    first = min(figure.reported for figure in scenario.figures)
    return [f"Reported figures: none yet (the first, {_local(first, scenario.timezone)})"]


def _note(text: str) -> str:
    return f'<div class="corridor-legend-absent" role="note">{esc(text)}</div>'


def _listed(labels: list[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


def _valid(zones: list[Any], zone: str) -> str:
    """'valid 15 Dec 2016 00:00 to 16 Dec 00:00 EET' or 'valid from 15 Dec 2016 00:00 EET'."""
    start = min(item.valid_from for item in zones)
    ends = [item.valid_to for item in zones]
    if None in ends:
        return f"valid from {_local(start, zone)}"
    end = max(e for e in ends if e is not None)
    begins = start.astimezone(ZoneInfo(zone))
    return f"valid {begins:%d %b %Y %H:%M} to {_local(end, zone, year=False)}"


def _local(moment: datetime, zone: str, *, year: bool = True) -> str:
    """'15 Dec 2016 17:00 EET': the scenario's local time and the zone's abbreviation."""
    local = moment.astimezone(ZoneInfo(zone))
    return f"{local:%d %b %Y %H:%M %Z}" if year else f"{local:%d %b %H:%M %Z}"


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


def title_html(scenario: Scenario, view: MapView) -> str:
    return (
        f'<div class="corridor-title-main">{esc(scenario.title)}</div>'
        f'<div class="corridor-title-sub">As of {esc(times(view.at, scenario.timezone))}</div>'
    )
