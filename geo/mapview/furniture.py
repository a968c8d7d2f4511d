"""Map furniture: title and legend panels, place labels, popups clear of them, a locator inset."""

from __future__ import annotations

from geo.mapview import basemap
from geo.mapview._script import ScriptCall
from geo.safe_html import FONTS


def indented(text: str) -> str:
    """Each line of `text` indented four spaces (blank lines left empty), to nest a script."""
    return "".join(f"    {line}\n" if line else "\n" for line in text.strip().splitlines())


LOCATOR_FRAME = [[32.2, 35.4], [37.5, 42.6]]
"""What the locator inset shows: Syria and the edges of its neighbours."""
WHEN_STYLED_JS = """
function whenStyled(run) {
    function styled() {  // Leaflet's rules place the controls in the map's corners
        var corner = document.querySelector('.leaflet-top');
        return !corner || getComputedStyle(corner).position === 'absolute';
    }
    var pending = Array.prototype.filter.call(
        document.querySelectorAll('link[rel="stylesheet"]'),
        function(link) { return !link.sheet; });
    var left = pending.length, ran = false;
    function once() { if (!ran) { ran = true; run(); } }
    if (!left || styled()) { once(); return; }
    function done() { left -= 1; if (left === 0 || styled()) { once(); } }
    pending.forEach(function(link) {
        link.addEventListener('load', done);
        link.addEventListener('error', done);
    });
}
"""
"""`whenStyled(run)`: run once the map is laid out as it will be shown: at once where Leaflet's
stylesheet is already in (inlined, or in the page's head: geo.mapview.assets.leaflet_css), otherwise
when the page's stylesheet links have loaded. Sizes and places measured before would be those
of an unstyled page (controls stacked as blocks, markers as wide as the map)."""


class Panel(ScriptCall):
    """A Leaflet control holding ready-made (escaped) HTML: the title, the legend, the arrow.

    `first` puts it at the top of its corner (the title above the zoom buttons). A `foldable`
    panel's `.corridor-fold` button folds it to its heading; the tab remembers the choice
    (sessionStorage) when the map is drawn again.
    """

    FUNCTION = """function(map, position, cssClass, html, first, foldable) {
    var panel = L.control({position: position});
    panel.onAdd = function() {
        var div = L.DomUtil.create('div', cssClass);
        div.innerHTML = html;
        L.DomEvent.disableClickPropagation(div);
        L.DomEvent.disableScrollPropagation(div);
        return div;
    };
    panel.addTo(map);
    var div = panel.getContainer();
    if (first) { div.parentNode.insertBefore(div, div.parentNode.firstChild); }
    var key = 'corridor-folded:' + cssClass;
    function show(folded) {
        div.classList.toggle('corridor-folded', folded);
        var button = div.querySelector('.corridor-fold');
        if (button) { button.setAttribute('aria-expanded', folded ? 'false' : 'true'); }
    }
    div.corridorFill = function(text) {  // new contents at a new moment (geo.mapview.moment)
        div.innerHTML = text;
        show(div.classList.contains('corridor-folded'));
    };
    if (!foldable) { return; }
    try { show(window.sessionStorage.getItem(key) === '1'); } catch (error) { show(false); }
    L.DomEvent.on(div, 'click', function(event) {
        if (!event.target.closest('.corridor-fold')) { return; }
        var folded = !div.classList.contains('corridor-folded');
        show(folded);
        try { window.sessionStorage.setItem(key, folded ? '1' : '0'); }
        catch (error) { /* remembered until the map is drawn again */ }
    });
}"""

    def __init__(
        self,
        position: str,
        css_class: str,
        html: str,
        *,
        first: bool = False,
        foldable: bool = False,
    ) -> None:
        super().__init__(position, css_class, html, first, foldable)
        self.position, self.css_class, self.html = position, css_class, html


class PlaceLabels(ScriptCall):
    """Place names beside their symbols, never under a symbol or another name.

    Each `.corridor-label` (drawn with its place's symbol) tries the right, the left, above and
    below its symbol, in the order of its `data-rank` (cities first), and is hidden where none
    is free of symbols, other names and the map's panels; a base-map town name is hidden where
    it would meet a place's symbol or name. Placed again after every zoom and whenever an
    overlay is switched. Every size is read before any class is written, so a placing costs
    the page one layout.
    """

    FUNCTION = (
        """function(map) {
"""
        + indented(WHEN_STYLED_JS)
        + """    var SPOTS = ['right', 'left', 'above', 'below'], GAP = 3;
    function meets(a, taken) {
        return taken.some(function(b) {
            return a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
        });
    }
    function rect(r) {
        return {l: r.left - 1, t: r.top - 1, r: r.right + 1, b: r.bottom + 1};
    }
    function spot(icon, w, h, where) {  // where a label stands, as its CSS class puts it
        var x = icon.left, y = icon.top, cx = (icon.left + icon.right) / 2,
            cy = (icon.top + icon.bottom) / 2;
        if (where === 'right') { x = icon.right + GAP; y = cy - h / 2; }
        else if (where === 'left') { x = icon.left - GAP - w; y = cy - h / 2; }
        else if (where === 'above') { x = cx - w / 2; y = icon.top - GAP - h; }
        else { x = cx - w / 2; y = icon.bottom + GAP; }
        return {l: x - 1, t: y - 1, r: x + w + 1, b: y + h + 1};
    }
    function place() {
        // every size is read first, then every class written: one layout, not one a try
        var root = map.getContainer();
        var taken = [];
        var solid = root.querySelectorAll('.corridor-symbol > svg, .leaflet-control');
        solid.forEach(function(element) {  // symbols, and the panels over the map
            var r = element.getBoundingClientRect();
            if (r.width && r.height) { taken.push(rect(r)); }
        });
        var labels = Array.prototype.map.call(root.querySelectorAll('.corridor-label'),
            function(label) {
                var r = label.getBoundingClientRect();
                return {element: label, rank: +label.dataset.rank, w: r.width,
                        h: r.height, icon: label.parentNode.getBoundingClientRect()};
            });
        var towns = Array.prototype.map.call(root.querySelectorAll('.corridor-town'),
            function(town) { return {element: town, r: town.getBoundingClientRect()}; });
        labels.sort(function(a, b) { return a.rank - b.rank; });
        labels.forEach(function(label) {
            label.where = null;
            if (!label.w || !label.h || !label.icon.width) { return; }
            for (var i = 0; i < SPOTS.length; i++) {
                var box = spot(label.icon, label.w, label.h, SPOTS[i]);
                if (!meets(box, taken)) { taken.push(box); label.where = SPOTS[i]; return; }
            }
        });
        towns.forEach(function(town) {
            town.free = !town.r.width || !meets(rect(town.r), taken);
            if (town.free && town.r.width) { taken.push(rect(town.r)); }
        });
        labels.forEach(function(label) {
            var where = label.where || 'right';
            label.element.className = 'corridor-label corridor-label-' + where;
            label.element.style.visibility = label.where ? '' : 'hidden';
        });
        towns.forEach(function(town) {
            town.element.style.visibility = town.free ? '' : 'hidden';
        });
    }
    map.on('zoomend overlayadd overlayremove corridor-moment', place);
    whenStyled(place);
}"""
    )


class ClearPopups(ScriptCall):
    """A popup opens inside the map and clear of its panels; no tooltip opens beside it.

    Leaflet's own autopan keeps a popup inside the map but not out from under a control: one
    opened near the title lost its Source rows under it. Here a popup taller than the room
    under the top panels scrolls (a convoy's card is 660 px tall; the dashboard's map is 620),
    and the map is panned once, without animation, so that the popup stands inside the map and
    clear of every control it would meet: above or below it, else beside it.
    """

    FUNCTION = """function(map) {
    L.Popup.prototype.options.autoPan = false;  // every popup, made before or after
    var MARGIN = 8;
    function meets(a, b, dx, dy) {
        return b.width && b.left < a.right + dx && a.left + dx < b.right
            && b.top < a.bottom + dy && a.top + dy < b.bottom;
    }
    function clearance(popup) {  // the shift [dx, dy] that puts the popup in the clear
        var box = map.getContainer().getBoundingClientRect();
        var p = popup.getElement().getBoundingClientRect();
        var dx = 0, dy = 0;
        if (p.right > box.right - MARGIN) { dx = box.right - MARGIN - p.right; }
        if (p.left + dx < box.left + MARGIN) { dx = box.left + MARGIN - p.left; }
        if (p.bottom > box.bottom - MARGIN) { dy = box.bottom - MARGIN - p.bottom; }
        if (p.top + dy < box.top + MARGIN) { dy = box.top + MARGIN - p.top; }
        var controls = Array.prototype.map.call(
            map.getContainer().querySelectorAll('.leaflet-control'),
            function(control) { return control.getBoundingClientRect(); });
        function clear(shift) {
            var inside = p.left + shift[0] >= box.left && p.right + shift[0] <= box.right
                && p.top + shift[1] >= box.top && p.bottom + shift[1] <= box.bottom;
            return inside && !controls.some(function(r) {
                return meets(p, r, shift[0], shift[1]);
            });
        }
        var tries = [[dx, dy]];
        controls.forEach(function(r) {  // above or below a control, or beside it
            if (!meets(p, r, dx, dy)) { return; }
            var upper = r.top - box.top < box.bottom - r.bottom;
            var right = r.left - box.left > box.right - r.right;
            tries.push([dx, upper ? r.bottom + MARGIN - p.top : r.top - MARGIN - p.bottom]);
            tries.push([right ? r.left - MARGIN - p.right : r.right + MARGIN - p.left, dy]);
        });
        return tries.filter(clear)[0] || tries[tries.length > 1 ? 1 : 0];
    }
    function fitted(popup) {  // a popup taller than the room under the top panels scrolls
        var box = map.getContainer().getBoundingClientRect();
        var reach = box.top;
        map.getContainer().querySelectorAll('.leaflet-top .leaflet-control').forEach(
            function(control) { reach = Math.max(reach, control.getBoundingClientRect().bottom); });
        var room = box.bottom - reach - 2 * MARGIN;
        var tall = popup.getElement().getBoundingClientRect().height;
        if (tall > room && room > 120) {
            popup.options.maxHeight = room - 40;  // (less the tip and the padding)
            popup.update();
        }
    }
    function asideFromItsPopup(source) {  // (kept bound: streamlit-folium reads it)
        if (source && source.closeTooltip && source.isPopupOpen && source.isPopupOpen()) {
            source.closeTooltip();
        }
    }
    var opened = null;  // the popup open now: no tooltip beside it, one thing at a time
    map.on('popupclose', function(event) { if (event.popup === opened) { opened = null; } });
    map.on('popupopen', function(event) {
        opened = event.popup;
        asideFromItsPopup(event.popup._source);
        fitted(event.popup);
        var shift = clearance(event.popup);
        if (shift[0] || shift[1]) {
            map.panBy([-shift[0], -shift[1]], {animate: false});
        }
    });
    map.on('tooltipopen', function(event) {
        // (closed itself: a group's tooltip has the hovered member, not the group, as source)
        if (opened) { event.tooltip.close(); return; }
        asideFromItsPopup(event.tooltip._source);
    });
}"""


class Locator(ScriptCall):
    """A small map of the region in a corner with the main map's extent on it (as OCHA maps
    have): Syria and its neighbours, or the world around a scenario elsewhere.

    Drawn from the offline base's country outlines; where the extent is only a few pixels
    wide on the inset it is marked by a dot.
    """

    FUNCTION = """function(map, position, frame, dataGlobal) {
    var base = map.corridorBase || {countries: window[dataGlobal].countries,
        isHome: function(f) { return f.properties.iso_a3 === 'SYR'; }};
    frame = base.frame || frame;
    var inset = L.control({position: position});
    inset.onAdd = function() {
        var div = L.DomUtil.create('div', 'corridor-locator');
        div.setAttribute('aria-label', base.frame ? 'Locator map: the extent of this map' :
                         'Locator map: the extent of this map in Syria');
        return div;
    };
    inset.addTo(map);
    var mini = L.map(inset.getContainer(), {
        zoomControl: false, attributionControl: false, dragging: false,
        scrollWheelZoom: false, doubleClickZoom: false, boxZoom: false,
        keyboard: false, touchZoom: false, zoomSnap: 0, zoomAnimation: false,
        fadeAnimation: false, inertia: false
    });
    mini.fitBounds(frame, {animate: false});
    L.geoJSON(base.countries, {interactive: false, style: function(f) {
        return {color: '#8c8c8c', weight: 0.6, fillOpacity: 1,
                fillColor: base.isHome(f) ? '#fbfaf6' : '#ebe8e1'};
    }}).addTo(mini);
    var extent = L.rectangle(map.getBounds(), {color: '#D55E00', weight: 2,
        fillOpacity: 0.15, interactive: false}).addTo(mini);
    var dot = L.circleMarker(map.getCenter(), {radius: 4, color: '#D55E00',
        fillOpacity: 1, interactive: false});
    function follow() {
        var bounds = map.getBounds();
        extent.setBounds(bounds);
        var nw = mini.latLngToContainerPoint(bounds.getNorthWest());
        var se = mini.latLngToContainerPoint(bounds.getSouthEast());
        var small = Math.min(se.x - nw.x, se.y - nw.y) < 6;
        dot.setLatLng(map.getCenter());
        if (small) { dot.addTo(mini); } else { dot.remove(); }
    }
    map.on('moveend', follow);
    follow();
}"""

    def __init__(self, position: str = "bottomleft") -> None:
        super().__init__(position, LOCATOR_FRAME, basemap.GLOBAL)


FURNITURE_CSS = """
.corridor-title,.corridor-legend{background:rgba(255,255,255,.93);padding:6px 9px;
  border-radius:4px;box-shadow:0 1px 4px rgba(0,0,0,.3)}
.corridor-title-main{font-weight:600;font-size:14px}
.corridor-title-sub{color:#444}
.corridor-legend{max-width:340px;font-size:9.5px;line-height:1.2;padding:3px 6px}
.corridor-legend-title,.corridor-fold{font-weight:600;font-size:9.5px;float:right;
  margin:0 0 0 8px;line-height:1.3}
[dir=rtl] > .corridor-legend-title,[dir=rtl] > .corridor-fold{float:left;margin:0 8px 0 0}
.corridor-fold{border:0;background:none;padding:0;cursor:pointer;color:inherit;
  font-family:inherit}
.corridor-fold::after,.corridor-legend-title::after{content:" \\25BE";color:#666}
.corridor-legend-title::after{visibility:hidden}
.corridor-folded .corridor-fold::after{content:" \\25B8"}
[dir=rtl] .corridor-folded .corridor-fold::after{content:" \\25C2"}
.corridor-folded .corridor-legend-body{display:none}
.corridor-folded .corridor-fold{margin:0}
.corridor-legend svg{display:inline-block;vertical-align:middle}
.corridor-legend-group{line-height:1.25}
.corridor-legend-key{font-weight:600}
.corridor-legend-cell{display:inline-flex;align-items:center;gap:3px;margin-inline-end:6px;
  max-width:100%;vertical-align:middle}
.corridor-legend-absent{margin:1px 0;padding:1px 5px;border-inline-start:3px solid #b26b00;
  background:#fff6e5;color:#5c3b00;font-size:9.5px;line-height:1.25}
.corridor-label{position:absolute;white-space:nowrap;pointer-events:none;color:#1a1a1a;
  font:600 11px/1.15 FONTS;
  text-shadow:0 0 2px #fff,0 0 2px #fff,0 0 3px #fff,0 0 3px #fff}
.corridor-label-right{left:17px;top:50%;transform:translateY(-50%)}
.corridor-label-left{right:17px;top:50%;transform:translateY(-50%)}
.corridor-label-above{bottom:17px;left:50%;transform:translateX(-50%)}
.corridor-label-below{top:17px;left:50%;transform:translateX(-50%)}
.corridor-locator{width:170px;height:128px;border:1px solid #777;border-radius:3px;
  box-shadow:0 1px 4px rgba(0,0,0,.3);background:#d4e4ee}
.leaflet-interactive:focus:not(:focus-visible){outline:none}
""".replace("FONTS", FONTS)
