"""The map's symbology: colours, dashes, symbols and styles, shared by its layers and legend."""

from __future__ import annotations

from geo import analysis
from geo.records import Control, FigureKind
from geo.safe_html import FONTS
from geo.timeline import ConvoyState

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
APPROXIMATE_DASH = "8 6"
PLANNED_DASH = "2 7"
HATCH_ID = "corridor-hatch"
APPROXIMATE_NOTE = "Approximate: placed by reading the source, not surveyed."

RISK_COLOURS = {**{control.value: colour for control, colour in ZONE_COLOURS.items()},
                analysis.NONE: "#6b6b6b"}  # fmt: skip

TRACK_COLOURS = {
    "before departure": "#56B4E9",
    "moving": "#009E73",
    "stopped": "#E69F00",
    "off route": "#D55E00",
    "arrived": "#1a1a1a",
}


def dotted(svg: str) -> str:
    return svg.replace('stroke-dasharray="0"', 'stroke-dasharray="2 2"')


NORTH_ARROW = (
    '<svg width="26" height="38" viewBox="0 0 26 38"><path d="M13,2 L22,26 L13,20 L4,26 Z" '
    'fill="#222"/><text x="13" y="37" text-anchor="middle" font-size="11" '
    'font-family="sans-serif">N</text></svg>'
)
"""Leaflet maps here are always north up."""
OSM_CREDIT = (
    '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'
)
CONVOY_SVG = (
    '<svg width="26" height="26" viewBox="0 0 26 26"><circle cx="13" cy="13" r="11" fill="#009E73" '
    'stroke="#fff" stroke-width="2"/><rect x="7" y="8" width="12" height="8" rx="1.5" fill="#fff"/>'
    '<circle cx="9.5" cy="17.5" r="1.6" fill="#fff"/>'
    '<circle cx="16.5" cy="17.5" r="1.6" fill="#fff"/></svg>'
)


def inbound_svg(colour: str, *, size: int = 34) -> str:
    """A convoy headed to a place whose origin no report gives: a dashed ring round the
    place with four arrowheads pointing in (`size` px; drawn on a 34-unit grid)."""
    heads = "".join(
        f'<path d="M17,2 L21,8 L13,8 Z" fill="{colour}" stroke="#fff" stroke-width="0.8" '
        f'transform="rotate({angle} 17 17)"/>'
        for angle in (0, 90, 180, 270)
    )
    return (
        f'<svg width="{size}" height="{size}" viewBox="0 0 34 34"><circle cx="17" cy="17" r="11" '
        f'fill="none" stroke="{colour}" stroke-width="2.5" stroke-dasharray="4 3"/>{heads}</svg>'
    )


CROSS_SVG = (
    '<svg width="18" height="18" viewBox="0 0 18 18"><circle cx="9" cy="9" r="8" fill="#fff" '
    'stroke="#7a7a7a" stroke-width="1.5"/><path d="M5,5 L13,13 M13,5 L5,13" stroke="#7a7a7a" '
    'stroke-width="2.2"/></svg>'
)


def _shape(body: str) -> str:
    return f'<svg width="14" height="14" viewBox="0 0 14 14">{body}</svg>'


_STROKE = 'stroke="#222" stroke-width="1.5" stroke-dasharray="0"'
PLACE_SVG = {
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
MAP_CSS = """
div.leaflet-container{background:#d4e4ee;font:12px/1.3 FONTS}
.corridor-town{font:11px/1 FONTS;color:#555;white-space:nowrap;
  text-shadow:0 0 2px #fff,0 0 2px #fff}
.corridor-arrow,.corridor-place,.corridor-convoy,.corridor-symbol{background:none;border:none}
.corridor-cluster{background:rgba(255,255,255,.9);border:1.5px solid #555;border-radius:50%;
  display:flex;align-items:center;justify-content:center;font:600 11px/1 FONTS}
""".replace("FONTS", FONTS)
