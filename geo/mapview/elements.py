"""The map's page elements: overlays as compact JSON, the hatch, the offline base, layer sync."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import folium
import orjson
from branca.element import MacroElement
from jinja2 import Template

from geo.mapview import basemap
from geo.mapview._script import ScriptCall, ScriptElement, script_json, shared_canvas
from geo.mapview.place_labels import LabelLanguage
from geo.mapview.symbols import HATCH_ID
from geo.safe_html import esc

Item = dict[str, Any]
"""One Leaflet layer for the Items script: kind t (line, ant, circle, icon, geojson), latlngs
ll or GeoJSON g, options o, icon i, and escaped tooltip tip and popup pop."""


def leaflet_item(
    kind: str, where: Any, options: dict[str, Any], tip: str = "", pop: str = ""
) -> Item:
    """One layer for `Items`: its kind, where it is, its options, tooltip and popup."""
    item: Item = {"t": kind, ("g" if kind == "geojson" else "ll"): where, "o": options}
    if tip:
        item["tip"] = tip
    if pop:
        item["pop"] = pop
    return item


def rounded(locations: Iterable[tuple[float, float]]) -> list[list[float]]:
    """[lat, lon] pairs to 5 decimals (about a metre): the page carries no more than it shows."""
    return [[round(lat, 5), round(lon, 5)] for lat, lon in locations]


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
            renderer = shared_canvas(self.map_name, still=self.still)
        script = _ITEMS_SCRIPT.replace("GROUP", self.parent_name)
        script = script.replace("RENDERER", renderer)
        items = self.items
        if self.still:  # nobody can hover or click a picture
            items = [{k: v for k, v in item.items() if k not in ("tip", "pop")} for item in items]
        items, shared = _sharing_options(items)
        values = {"SHARED": script_json(shared), "ITEMS": script_json(items)}
        return re.sub(r"\b(SHARED|ITEMS)\b", lambda found: values[found[1]], script)  # one pass


SHARED_FROM = 200
"""Items from which their options are written once each and named by number (2,500 convoy
dots of one style: 240 kB less in a page)."""


def _sharing_options(items: list[Item]) -> tuple[list[Item], list[dict[str, Any]]]:
    """The items with each options object that several share given by its number in a list of
    them (from SHARED_FROM items), and that list."""
    if len(items) < SHARED_FROM:
        return items, []
    numbers: dict[bytes, int] = {}
    shared: list[dict[str, Any]] = []
    found = []
    for item in items:
        key = orjson.dumps(item["o"], option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY)
        if key not in numbers:
            numbers[key] = len(shared)
            shared.append(item["o"])
        found.append({**item, "o": numbers[key]})
    return found, shared


_ITEMS_SCRIPT = """
(function(group, items) {
    var renderer = RENDERER, shared = SHARED;
    items.forEach(function(it) {
        var layer;
        if (typeof it.o === 'number') { it.o = Object.assign({}, shared[it.o]); }
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


class Hatch(MacroElement):
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


class OfflineBase(ScriptCall):
    """Natural Earth outlines and GeoNames town labels, in panes beneath any tile layer.

    The Levant's data comes in a script of its own (basemap.script, an asset like Leaflet), so
    the map's own script stays small; a map elsewhere carries the world around its scenario
    (`region`, basemap.region) instead. `home` names the countries drawn lighter (ISO
    3166-1 alpha-3, the Levant files' codes). The data is left on the map as `corridorBase`
    for the locator inset.
    """

    FUNCTION = """function(map, region, home, language, credit, dataGlobal) {
    var data = region || window[dataGlobal];
    function isHome(f) {
        return f.properties.home || home.indexOf(f.properties.iso_a3) >= 0;
    }
    map.corridorBase = {countries: data.countries, isHome: isHome,
                        frame: region ? region.frame : null};
    map.createPane('corridor-base').style.zIndex = 150;
    map.createPane('corridor-base-labels').style.zIndex = 160;
    map.getPane('corridor-base').style.pointerEvents = 'none';
    map.getPane('corridor-base-labels').style.pointerEvents = 'none';
    var renderer = L.svg({pane: 'corridor-base'});
    var common = {pane: 'corridor-base', renderer: renderer, interactive: false};
    L.geoJSON(data.countries, Object.assign({style: function(f) {
        return {color: '#8c8c8c', weight: 1, fillOpacity: 1,
                fillColor: isHome(f) ? '#fbfaf6' : '#ebe8e1'};
    }}, common)).addTo(map);
    L.geoJSON(data.governorates, Object.assign({style: {
        color: '#a6a6a6', weight: 0.8, dashArray: '3 3', fill: false}}, common)).addTo(map);
    var arabicScript = ['ar', 'fa', 'ps', 'ur', 'ckb'];
    var rightToLeft = arabicScript.concat(['he', 'dv']);
    function named(town) {  // [lat, lon, name, local name, its language] (names escaped)
        var lang = town[4] || 'ar';  // the Levant's towns: [lat, lon, English, Arabic]
        var local = town[3] ? '<span lang="' + lang + '"' +
            (rightToLeft.indexOf(lang) >= 0 ? ' dir="rtl"' : '') + '>' + town[3] + '</span>' : '';
        if (language === 'en' || !local) { return town[2]; }
        if (language === 'ar') { return arabicScript.indexOf(lang) >= 0 ? local : town[2]; }
        return town[2] + '<br>' + local;
    }
    data.towns.forEach(function(town) {
        L.marker([town[0], town[1]], {pane: 'corridor-base-labels', interactive: false,
            keyboard: false, icon: L.divIcon({className: 'corridor-town', html: named(town),
            iconSize: null})}).addTo(map);
    });
    map.attributionControl.addAttribution(credit);
}"""

    def __init__(
        self,
        language: LabelLanguage = LabelLanguage.ENGLISH,
        region: basemap.Region | None = None,
        home: tuple[str, ...] = ("SYR",),
    ) -> None:
        payload = region.payload() if region is not None else None
        super().__init__(
            payload, list(home), language.value, esc(basemap.ATTRIBUTION), basemap.GLOBAL
        )
        self.region = region

    @property
    def offline_assets(self) -> tuple[list[Any], list[Any]] | None:
        """A map with its own region needs no Levant script (see geo.mapview.assets.needed)."""
        return ([], []) if self.region is not None else None


class LayerSync(MacroElement):
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
