"""The map's view: what the first view frames, and the browser keeping the view its user chose."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely

from geo import timeline
from geo.mapview._script import ScriptCall
from geo.mapview.furniture import WHEN_STYLED_JS, indented
from geo.records import Control, ControlZone, PlaceKind, Scenario
from geo.timeline import ConvoyAt, ConvoyState

Bounds = list[list[float]]
"""[[south, west], [north, east]] in degrees, as Leaflet takes them."""

STORY_STATES = (ConvoyState.UNDER_WAY, ConvoyState.ARRIVED)
STORY_CONTROLS = (Control.BESIEGED, Control.CONTESTED)
SYRIA: Bounds = [[32.0, 35.5], [37.5, 42.5]]
"""The frame of last resort: a scenario with nothing placed."""
CONVOY_MAX_ZOOM = 13
"""A selected convoy is framed at most this close (a short route is not shown street by street)."""


def everything(scenario: Scenario) -> Bounds:
    """Around every place (countries aside), route and zone of the scenario."""
    places = [p for p in scenario.places if p.kind is not PlaceKind.COUNTRY]
    boxes = [_point_box(p.latitude, p.longitude) for p in places]
    boxes += _shape_boxes([route.geometry for route in scenario.routes])
    boxes += _shape_boxes([zone.geometry for zone in scenario.zones])
    return _union(boxes) or SYRIA


def story(scenario: Scenario, convoys: Iterable[ConvoyAt], zones: Iterable[ControlZone]) -> Bounds:
    """What matters at the moment: convoys under way or arrived, besieged and contested zones.

    A convoy counts by its route and its position, or by its origin and destination when it has
    no route. With none of these at the moment, the frame is `everything`.
    """
    boxes: list[Bounds] = []
    places = {place.id: place for place in scenario.places}
    for item in convoys:
        if item.state not in STORY_STATES:
            continue
        line = timeline.route_of(scenario, item.convoy.id)
        if line is not None:
            boxes += _shape_boxes([line])
        else:
            ends = [places.get(item.convoy.origin or ""), places.get(item.convoy.destination)]
            boxes += [_point_box(p.latitude, p.longitude) for p in ends if p is not None]
        if item.position is not None:
            boxes.append(_point_box(item.position.y, item.position.x))
    boxes += _shape_boxes([zone.geometry for zone in zones if zone.control in STORY_CONTROLS])
    return _union(boxes) or everything(scenario)


def around(line: Any) -> Bounds:
    """The bounds of one shape (a selected convoy's route)."""
    return _union(_shape_boxes([line])) or SYRIA


def _point_box(latitude: float, longitude: float) -> Bounds:
    return [[latitude, longitude], [latitude, longitude]]


def _shape_boxes(shapes: list[Any]) -> list[Bounds]:
    if not shapes:
        return []
    west, south, east, north = shapely.total_bounds(np.array(shapes, dtype=object)).tolist()
    return [[[south, west], [north, east]]]


def _union(boxes: list[Bounds]) -> Bounds | None:
    if not boxes:
        return None
    return [
        [min(box[0][0] for box in boxes), min(box[0][1] for box in boxes)],
        [max(box[1][0] for box in boxes), max(box[1][1] for box in boxes)],
    ]


@dataclass(frozen=True)
class ViewRequest:
    """A view the user asked for: a frame to fit, and or a centre and zoom to set.

    The browser applies a request once: it keeps the view it then shows, and every view its
    user moves to, under the request's token, and opens a redrawn map at that view until a
    request with a new token comes (a permalink, a convoy selected, "reset view").
    """

    token: str
    bounds: Bounds | None = None
    center: tuple[float, float] | None = None
    zoom: float | None = None
    max_zoom: float | None = None
    popup: str = ""
    """The tooltip text (as the page shows it) of a layer whose popup opens once the view is
    applied: the convoy marker that was clicked keeps its popup open in the redrawn map."""

    @classmethod
    def fit(
        cls, bounds: Bounds, *, max_zoom: float | None = None, token: str = "", popup: str = ""
    ) -> ViewRequest:
        """Frame `bounds` clear of the map's controls."""
        return cls(token or new_token(), bounds=bounds, max_zoom=max_zoom, popup=popup)

    @classmethod
    def at(
        cls, bounds: Bounds, center: tuple[float, float] | None, zoom: float | None
    ) -> ViewRequest:
        """A centre and or a zoom (a permalink); what is not given comes from fitting `bounds`."""
        return cls(new_token(), bounds=bounds, center=center, zoom=zoom)

    def script_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"token": self.token}
        if self.bounds is not None:
            data["bounds"] = [[round(v, 6) for v in corner] for corner in self.bounds]
        if self.center is not None:
            data["center"] = [round(self.center[0], 6), round(self.center[1], 6)]
        if self.zoom is not None:
            data["zoom"] = float(self.zoom)
        if self.max_zoom is not None:
            data["maxZoom"] = float(self.max_zoom)
        if self.popup:
            data["popup"] = self.popup
        return data


def new_token() -> str:
    return secrets.token_hex(6)


class ViewKeeper(ScriptCall):
    """Applies the view request once and, with a `store` key, keeps the user's view after it.

    The view lives in the tab's sessionStorage under `store`: a map drawn again (a new moment,
    a layer switched) opens where its user left it, with no round trip through Python, so the
    script never writes a view back to a map that has moved on since. Without `store` (a
    picture, a standalone page) the request is simply applied. Frames are fitted clear of the
    map's own controls: each control is stepped around by the cheaper of its two inner edges
    (together they leave at least 40% of the map), once the page is styled and the map has a
    size. With `moment` the map's moment is drawn apart (geo.mapview.moment): the clicked popup
    the request opens waits for it.
    """

    FUNCTION = (
        """function(map, request, storeKey, moment) {
"""
        + indented(WHEN_STYLED_JS)
        + """    function clearOfControls() {
        var box = map.getContainer().getBoundingClientRect();
        var pad = {top: 12, right: 12, bottom: 12, left: 12};
        var controls = map.getContainer().querySelectorAll('.leaflet-control');
        Array.prototype.forEach.call(controls, function(control) {
            var r = control.getBoundingClientRect();
            if (!r.width || !r.height) { return; }
            var upper = r.top - box.top < box.bottom - r.bottom;
            var lefter = r.left - box.left < box.right - r.right;
            var v = upper ? r.bottom - box.top + 8 : box.bottom - r.top + 8;
            var h = lefter ? r.right - box.left + 8 : box.right - r.left + 8;
            if (v / box.height <= h / box.width) {
                var side = upper ? 'top' : 'bottom';
                pad[side] = Math.max(pad[side], v);
            } else {
                var edge = lefter ? 'left' : 'right';
                pad[edge] = Math.max(pad[edge], h);
            }
        });
        var keepX = Math.min(1, 0.6 * box.width / (pad.left + pad.right));
        var keepY = Math.min(1, 0.6 * box.height / (pad.top + pad.bottom));
        return {paddingTopLeft: [pad.left * keepX, pad.top * keepY],
                paddingBottomRight: [pad.right * keepX, pad.bottom * keepY]};
    }
    function whenSized(run) {  // a map laid out at no size yet fits to nothing
        var size = map.getSize();
        if (size.x > 40 && size.y > 40) { run(); return; }
        map.once('resize', function() { whenSized(run); });
    }
    function apply() {
        if (request.bounds) {
            var options = clearOfControls();
            options.animate = false;
            options.maxZoom = request.maxZoom || map.getMaxZoom();
            map.fitBounds(request.bounds, options);
        }
        if (request.center || request.zoom) {
            map.setView(request.center || map.getCenter(), request.zoom || map.getZoom(),
                        {animate: false});
        }
        if (request.popup) { whenDrawn(function() { openPopupOf(request.popup); }); }
    }
    function whenDrawn(run) {  // the moment drawn apart is in: its layers are there
        if (!moment || map.corridorMomentDrawn) { run(); return; }
        map.once('corridor-moment', run);
    }
    function openPopupOf(tip) {  // the layer whose tooltip reads `tip`, a marker first
        var found = null, text = document.createElement('div');
        map.eachLayer(function(layer) {
            if (!layer.getTooltip || !layer.getTooltip() || !layer.getPopup) { return; }
            text.innerHTML = layer.getTooltip().getContent();
            if (text.textContent !== tip || !layer.getPopup()) { return; }
            if (!found || (layer instanceof L.Marker && !(found instanceof L.Marker))) {
                found = layer;
            }
        });
        if (found) { found.openPopup(); }
    }
    var stored = null;
    if (storeKey) {
        try { stored = JSON.parse(window.sessionStorage.getItem(storeKey) || 'null'); }
        catch (error) { storeKey = null; }
    }
    function keep() {
        var centre = map.getCenter();
        var view = {token: request.token, lat: centre.lat, lng: centre.lng,
                    zoom: map.getZoom()};
        try { window.sessionStorage.setItem(storeKey, JSON.stringify(view)); }
        catch (error) { /* storage full or refused: the view is kept until a redraw */ }
    }
    function shown() {  // from now on the view is the user's: keep every move
        if (storeKey) {
            keep();
            map.on('moveend', keep);
        }
        map.getContainer().setAttribute('data-corridor-view', request.token);
    }
    function refitUntilTouched() {
        // A map drawn in a frame that is still being laid out (a new iframe is 300 px
        // wide at first) is fitted again whenever it is resized, until its user
        // touches it: the request is for the map as it is finally shown.
        var touched = false;
        ['mousedown', 'touchstart', 'wheel', 'keydown'].forEach(function(name) {
            L.DomEvent.on(map.getContainer(), name, function() { touched = true; });
        });
        map.on('resize', function() { if (!touched) { apply(); } });
    }
    if (stored && stored.token === request.token) {
        map.setView([stored.lat, stored.lng], stored.zoom, {animate: false});
        shown();
    } else if (request.bounds) {  // fitted once the controls have their size
        whenStyled(function() { whenSized(function() { apply(); shown(); }); });
        refitUntilTouched();
    } else {
        apply();
        shown();
        refitUntilTouched();
    }
}"""
    )

    def __init__(
        self, request: ViewRequest, *, store: str | None = None, moment: bool = False
    ) -> None:
        super().__init__(request.script_data(), store, moment)
        self.request, self.store = request.script_data(), store
