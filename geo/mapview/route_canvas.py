"""Thousands of route legs on one canvas of their own, sent as compact binary.

The legs travel as base64: each leg's first point (int32, 1e-5 degrees), then its steps (int16
differences; a longer step is cut into equal pieces along the same line). For 10,000 legs that
is 1.3 MB of page where the same numbers as JSON took 2.4 MB. The page strokes the legs that
are in view after each move, one path a leg (10,000 legs 3 px wide took Chromium about 0.3 s
on this machine; one path for many legs strokes slower still).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from geo.mapview._script import ScriptElement, script_json
from geo.mapview.event_points import packed

MAX_STEP = 32_766
"""Longest step sent whole, in 1e-5 degrees: rounding its pieces keeps them within int16."""


class LeanRoutes(ScriptElement):
    """Thousands of route legs drawn on one canvas of their own, in styles given per leg.

    No tooltip or popup per leg: a click on the map still finds the nearest convoy in Python
    (geo.mapview.convoy_near) where the map reports clicks.
    """

    def __init__(
        self,
        styles: list[dict[str, Any]],
        legs: PackedLegs,
        chosen: npt.NDArray[np.intp],
        style: npt.NDArray[np.intp],
    ) -> None:
        """The `chosen` legs of `legs` in that order, leg `chosen[k]` in style `style[k]`."""
        super().__init__()
        self._name = "LeanRoutes"
        self.data = {"styles": styles, **legs.page_data(chosen)}
        self.data["style"] = packed(style, "<u1")

    def make_script(self) -> str:
        return _SCRIPT.replace("GROUP", self.parent_name).replace("DATA", script_json(self.data))


@dataclass(frozen=True)
class PackedLegs:
    """Legs in the page's form (see the module doc), made once; a map sends those it shows."""

    starts: npt.NDArray[np.int64]
    """Each leg's first [lat, lon]."""
    counts: npt.NDArray[np.int64]
    """Each leg's number of steps (long steps counted in pieces)."""
    steps: npt.NDArray[np.int64]
    """Every leg's steps, one leg after the other."""
    first_step: npt.NDArray[np.int64]
    """Where each leg's steps start in `steps` (and, last, their total)."""

    def page_data(self, chosen: npt.NDArray[np.intp]) -> dict[str, Any]:
        """The chosen legs, in that order, as the page reads them."""
        if not len(chosen):
            return {"n": 0, "starts": "", "counts": "", "steps": ""}
        counts = self.counts[chosen]
        rows = spans(self.first_step[chosen], counts)
        return {
            "n": len(chosen),
            "starts": packed(self.starts[chosen], "<i4"),
            "counts": packed(counts, "<i4"),
            "steps": packed(self.steps[rows], "<i2"),
        }


def spans(first: Any, counts: Any) -> npt.NDArray[np.intp]:
    """The numbers first[k], first[k] + 1, … (counts[k] of them) for each k, one after another."""
    counts = np.asarray(counts, dtype=np.intp)
    found = np.repeat(np.asarray(first, dtype=np.intp) - np.cumsum(counts) + counts, counts)
    return found + np.arange(len(found))


def pack_legs(legs: Sequence[npt.NDArray[np.int32]]) -> PackedLegs:
    """Legs of [lat, lon] rows in 1e-5 degrees (two points or more each), packed."""
    if not len(legs):
        empty = np.zeros((0, 2), dtype=np.int64)
        return PackedLegs(empty, np.zeros(0, np.int64), empty, np.zeros(1, np.int64))
    lengths = np.array([len(leg) for leg in legs], dtype=np.int64)
    points = np.concatenate(legs).astype(np.int64)
    starts = points[np.cumsum(lengths) - lengths]
    steps = np.diff(points, axis=0)
    steps = np.delete(steps, np.cumsum(lengths)[:-1] - 1, axis=0)  # no step between two legs
    counts = lengths - 1
    pieces = np.maximum(1, -(-np.abs(steps).max(axis=1, initial=0) // MAX_STEP))
    if (pieces > 1).any():
        steps, counts = _cut(steps, pieces, np.repeat(np.arange(len(legs)), counts), len(legs))
    first_step = np.concatenate([[0], np.cumsum(counts)])
    return PackedLegs(starts, counts, steps, first_step)


def packed_legs(legs: Sequence[npt.NDArray[np.int32]]) -> dict[str, Any]:
    """Legs of [lat, lon] rows in 1e-5 degrees as the page reads them (see the module doc)."""
    return pack_legs(legs).page_data(np.arange(len(legs)))


def _cut(
    steps: npt.NDArray[np.int64], pieces: npt.NDArray[np.int64], leg_of: Any, legs: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each step cut into its number of `pieces`, ending where the whole step ended."""
    rows = np.repeat(np.arange(len(steps)), pieces)
    number = np.arange(len(rows)) - np.repeat(np.cumsum(pieces) - pieces, pieces) + 1
    whole, share = steps[rows], (number / pieces[rows])[:, None]
    before = ((number - 1) / pieces[rows])[:, None]
    cut = np.round(whole * share) - np.round(whole * before)
    return cut.astype(np.int64), np.bincount(leg_of[rows], minlength=legs).astype(np.int64)


_SCRIPT = """
(function(group, data) {
    function painter() {  // the legs decoded once; each draw strokes those in view
        var legs = null;
        function unpack(text, Type) {
            var chars = atob(text), bytes = new Uint8Array(chars.length);
            for (var k = 0; k < chars.length; k++) { bytes[k] = chars.charCodeAt(k); }
            return new Type(bytes.buffer);
        }
        function load(data) {  // Web Mercator at zoom 0 (world units), a box per leg
            var starts = unpack(data.starts, Int32Array), counts = unpack(data.counts, Int32Array);
            var steps = unpack(data.steps, Int16Array), style = unpack(data.style, Uint8Array);
            var n = data.n, xy = new Float64Array(2 * (n + steps.length / 2));
            var first = new Int32Array(n + 1), box = new Float64Array(4 * n);
            var byStyle = data.styles.map(function() { return []; });
            var p = 0, s = 0;
            for (var i = 0; i < n; i++) {
                first[i] = p;
                var lat = starts[2 * i], lon = starts[2 * i + 1];
                var west = Infinity, north = Infinity, east = -Infinity, south = -Infinity;
                for (var k = 0; k <= counts[i]; k++) {
                    if (k > 0) { lat += steps[s++]; lon += steps[s++]; }
                    var degrees = Math.max(Math.min(lat / 1e5, 85.05), -85.05);
                    var sin = Math.sin(degrees * Math.PI / 180);
                    var x = lon / 1e5 / 360 + 0.5;
                    var y = 0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI);
                    xy[2 * p] = x; xy[2 * p + 1] = y; p++;
                    if (x < west) { west = x; } if (x > east) { east = x; }
                    if (y < north) { north = y; } if (y > south) { south = y; }
                }
                box.set([west, north, east, south], 4 * i);
                byStyle[style[i]].push(i);
            }
            first[n] = p;
            legs = {xy: xy, first: first, box: box, byStyle: byStyle, styles: data.styles};
        }
        function draw(ctx, view) {  // view: size and pixel ratio, world scale, canvas offset
            var xy = legs.xy, first = legs.first, box = legs.box, drawn = 0;
            var scale = view.scale, margin = 8 / scale;  // a line's width past the edge
            var west = -view.dx / scale - margin, east = (view.width - view.dx) / scale + margin;
            var north = -view.dy / scale - margin, south = (view.height - view.dy) / scale + margin;
            ctx.setTransform(view.ratio, 0, 0, view.ratio, 0, 0);
            ctx.clearRect(0, 0, view.width, view.height);
            ctx.lineJoin = 'bevel'; ctx.lineCap = 'butt';  // round ones cost 5% more time
            legs.styles.forEach(function(style, s) {
                ctx.strokeStyle = style.color; ctx.lineWidth = style.weight;
                ctx.globalAlpha = style.opacity;
                legs.byStyle[s].forEach(function(i) {
                    if (box[4 * i] > east || box[4 * i + 2] < west || box[4 * i + 1] > south
                        || box[4 * i + 3] < north) { return; }
                    ctx.beginPath();  // one stroke a leg: long many-leg paths stroke slower
                    for (var p = first[i]; p < first[i + 1]; p++) {
                        var x = xy[2 * p] * scale + view.dx, y = xy[2 * p + 1] * scale + view.dy;
                        if (p === first[i]) { ctx.moveTo(x, y); } else { ctx.lineTo(x, y); }
                    }
                    ctx.stroke();
                    drawn++;
                });
            });
            return drawn;
        }
        return {load: load, draw: draw};
    }
    var paint = painter();
    paint.load(data);
    var Lines = L.Layer.extend({
        onAdd: function(map) {
            this._canvas = L.DomUtil.create('canvas', 'corridor-lean-routes');
            this._canvas.style.pointerEvents = 'none';
            map.getPanes().overlayPane.appendChild(this._canvas);
            map.on('moveend zoomend resize viewreset', this._schedule, this);
            this._schedule();  // not now: the map's first fitBounds would draw it all again
        },
        onRemove: function(map) {
            map.off('moveend zoomend resize viewreset', this._schedule, this);
            L.DomUtil.remove(this._canvas);
        },
        _schedule: function() {  // several events end one move: draw once, at the next frame
            if (!this._frame) {
                this._frame = L.Util.requestAnimFrame(function() {
                    this._frame = null;
                    if (this._map) { this._draw(); }
                }, this);
            }
        },
        _draw: function() {
            var map = this._map, size = map.getSize(), origin = map.getPixelOrigin();
            var pane = map._getMapPanePos(), canvas = this._canvas;
            var view = {width: size.x, height: size.y, ratio: window.devicePixelRatio || 1,
                       scale: map.options.crs.scale(map.getZoom()), dx: pane.x - origin.x,
                       dy: pane.y - origin.y};
            L.DomUtil.setPosition(canvas, map.containerPointToLayerPoint([0, 0]));
            canvas.width = size.x * view.ratio; canvas.height = size.y * view.ratio;
            canvas.style.width = size.x + 'px'; canvas.style.height = size.y + 'px';
            var drawn = paint.draw(canvas.getContext('2d'), view);
            map.getContainer().setAttribute('data-corridor-legs', String(drawn));  // for tests
        }
    });
    new Lines().addTo(group);
})(GROUP, DATA);
"""
