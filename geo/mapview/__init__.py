"""The layered evacuation map: zones, routes, convoys, places and figures at a moment (folium).

`build_map` assembles it from the package's rooms: `view` (what is shown), `layers` (the
overlays), `elements` (the page scripts), `legend`, `symbols` (colours and symbols) and
`returned` (what streamlit-folium sends back).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import folium
import folium.plugins
from branca.element import Element

from geo.home import scenario_homes
from geo.mapview import basemap, viewport
from geo.mapview.assets import make_tree_offline
from geo.mapview.elements import Hatch, Items, LayerSync, OfflineBase
from geo.mapview.event_points import Served
from geo.mapview.furniture import FURNITURE_CSS, ClearPopups, Locator, Panel, PlaceLabels
from geo.mapview.layers import (
    alerts,
    arabic_names,
    convoy_card,
    figure_radius,
    label_text,
    overlay_fills,
    overlay_groups,
    risks,
    selection,
    state_note,
    tracks_group,
)
from geo.mapview.lean import SIMPLIFY_DEGREES, lean_weight
from geo.mapview.legend import legend_html, title_html
from geo.mapview.moment import Released, moment_layer
from geo.mapview.returned import convoy_clicked, convoy_near, reported_view, selected_layers
from geo.mapview.symbols import (
    APPROXIMATE_DASH,
    FIGURE_COLOURS,
    MAP_CSS,
    NORTH_ARROW,
    OSM_CREDIT,
    PLANNED_DASH,
    STATE_COLOURS,
    ZONE_COLOURS,
)
from geo.mapview.view import (
    ALL_LAYERS,
    BASES,
    DEFAULT_LAYERS,
    DETAIL_LIMIT,
    LAYER_LABELS,
    ZONE_LAYERS,
    MapView,
    Shown,
    convoy_frame,
    shown,
    story_frame,
    visible_convoys,
)
from geo.mapview.viewport import ViewRequest
from geo.records import Scenario
from geo.safe_html import CARD_CSS

__all__ = [
    "ALL_LAYERS",
    "APPROXIMATE_DASH",
    "BASES",
    "DEFAULT_LAYERS",
    "DETAIL_LIMIT",
    "FIGURE_COLOURS",
    "LAYER_LABELS",
    "PLANNED_DASH",
    "SIMPLIFY_DEGREES",
    "STATE_COLOURS",
    "ZONE_COLOURS",
    "ZONE_LAYERS",
    "Items",
    "LiveMap",
    "MapView",
    "OfflineBase",
    "Shown",
    "alerts",
    "arabic_names",
    "build_live_map",
    "build_map",
    "convoy_card",
    "convoy_clicked",
    "convoy_frame",
    "convoy_near",
    "figure_radius",
    "label_text",
    "lean_weight",
    "legend_html",
    "reported_view",
    "risks",
    "selected_layers",
    "shown",
    "state_note",
    "story_frame",
    "tracks_group",
    "visible_convoys",
]


def build_map(
    scenario: Scenario,
    view: MapView,
    *,
    height: str = "100%",
    asset_url: str | None = None,
    served: Served | None = None,
    still: bool = False,
    frame: ViewRequest | None = None,
    keep_view: str | None = None,
    exported: bool = False,
) -> folium.Map:
    """The map of the scenario as `view` asks: every overlay its own toggle; nothing from a CDN.

    Leaflet, its plugins and the base map are inlined, or with `asset_url` loaded from there
    (where geo.mapview.assets.publish put them); a `served` map (the dashboard's) fetches many
    events from a file published beside it (geo.mapview.event_points.layer_data). A `still` map
    is for a picture: it never moves, so it has no animation and its canvas draws nothing past
    the edges. `frame` is the view to open on (by default the story at the moment,
    `story_frame`); with `keep_view` (a key of the browser tab's session storage) the map keeps
    its user's view after that, however often it is drawn again, until a request with a new
    token comes. An `exported` map has a north arrow and a locator inset (Syria with the map's
    extent), as printed maps do.
    """
    drawn = _assemble(
        scenario, view, height=height, asset_url=asset_url, served=served, still=still,
        frame=frame, keep_view=keep_view, exported=exported, apart=False,
    )  # fmt: skip
    return drawn.standing


@dataclass(frozen=True)
class LiveMap:
    """The dashboard's map: what stands while time moves, and the moment, drawn into it."""

    standing: folium.Map
    moment: folium.FeatureGroup


def build_live_map(
    scenario: Scenario,
    view: MapView,
    *,
    asset_url: str | None = None,
    served: Served | None = None,
    frame: ViewRequest | None = None,
    keep_view: str | None = None,
) -> LiveMap:
    """The map as `build_map` draws it, with the moment apart (see geo.mapview.moment): the
    standing map is the same at every moment of the same view, so a time step (Play) swaps
    the moment's layer in place and never mounts the map again."""
    return _assemble(
        scenario, view, height="100%", asset_url=asset_url, served=served, still=False,
        frame=frame, keep_view=keep_view, exported=False, apart=True,
    )  # fmt: skip


def _assemble(
    scenario: Scenario,
    view: MapView,
    *,
    height: str,
    asset_url: str | None,
    served: Served | None,
    still: bool,
    frame: ViewRequest | None,
    keep_view: str | None,
    exported: bool,
    apart: bool,
) -> LiveMap:
    """The map and its moment; unless `apart`, the moment is drawn in the map itself."""
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
            "OpenStreetMap", name=BASES["osm"], control=False, max_zoom=18, attr=OSM_CREDIT
        ).add_to(m)
    root: Any = m.get_root()
    root.header.add_child(Element(f"<style>{CARD_CSS}{MAP_CSS}{FURNITURE_CSS}</style>"))
    offline_base(scenario, view).add_to(m)
    groups = overlay_groups(view)
    fills = overlay_fills(scenario, view, records, still=still, served=served)
    for key, group in groups.items():
        group.add_to(m)
        if not apart:
            fills[key].add_to(group)
    selection(scenario, view).add_to(m)
    folium.LayerControl(collapsed=True, position="topright").add_to(m)
    folium.plugins.Fullscreen(position="topleft").add_to(m)
    folium.plugins.MeasureControl(
        position="topleft", primary_length_unit="kilometers", secondary_length_unit="miles"
    ).add_to(m)
    Hatch().add_to(m)
    panels = {
        "corridor-title": title_html(scenario, view),
        "corridor-legend": legend_html(scenario, view, records, foldable=not still),
    }
    shown_now = {key: "" if apart else html for key, html in panels.items()}
    Panel("topleft", "corridor-title", shown_now["corridor-title"], first=True).add_to(m)
    legend = shown_now["corridor-legend"]
    Panel("bottomright", "corridor-legend", legend, foldable=not still).add_to(m)
    if exported:
        Panel("topright", "corridor-north", NORTH_ARROW).add_to(m)
        Locator().add_to(m)
    LayerSync(groups).add_to(m)
    PlaceLabels().add_to(m)
    if not still:
        ClearPopups().add_to(m)
    if apart:
        Released().add_to(m)
    keeper = viewport.ViewKeeper(frame, store=None if still else keep_view, moment=apart)
    keeper.add_to(m)
    make_tree_offline(m, asset_url)
    moment = moment_layer(groups, fills, panels) if apart else folium.FeatureGroup()
    return LiveMap(m, moment)


def offline_base(scenario: Scenario, view: MapView) -> OfflineBase:
    """The drawn base: the Levant's, or the world's around the scenario (basemap.region)."""
    home = frozenset(scenario_homes(scenario))
    (south, west), (north, east) = viewport.everything(scenario)
    region = basemap.region(south, west, north, east, home)
    levant = tuple(
        sorted(basemap.LEVANT_ISO3[code] for code in home if code in basemap.LEVANT_ISO3)
    )
    return OfflineBase(view.labels, region, levant or ("SYR",))
