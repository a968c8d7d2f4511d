"""Events by the hundred thousand: sent as columns, clustered in the browser.

A hundred thousand events cannot be a hundred thousand folium objects. The events layer sends
columns (coordinates, day, type, fatalities, place) as typed arrays and the browser clusters
them with supercluster (an npm package, served like Leaflet), without a Python object per
event on the way. Each zoom is clustered from the events themselves when it is first shown
(all 14 levels of 62,000 events took a page 100 ms; one takes 20-45 ms), so a picture, which
shows one zoom, clusters exactly as the interactive map does there. Thousands of routes are
`geo.lean_routes`.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from geo import _memo
from geo._atomic import atomic_path
from geo._script import ScriptElement, script_json, shared_canvas
from geo.event_columns import columns
from geo.event_table import picked
from geo.records import Scenario

NOTES_LIMIT = 2_000
"""Above this many events shown, their notes stay out of the page (it would grow too big)."""
EVENT_COLOURS = {  # ACLED's event types (Okabe–Ito colours); any other type is grey
    "Battles": "#D55E00",
    "Explosions/Remote violence": "#CC79A7",
    "Violence against civilians": "#000000",
    "Protests": "#56B4E9",
    "Riots": "#E69F00",
    "Strategic developments": "#009E73",
}
OTHER_COLOUR = "#999999"
CLUSTER_RADIUS = 50
"""Pixels: events closer than this on screen are counted in one cluster."""
MAX_CLUSTER_ZOOM = 13
"""Zoomed in further, every event is drawn on its own."""
INLINE_LIMIT = 10_000
"""Above this many events shown, a served map (the dashboard's) fetches them from a file beside
the page instead of carrying them in its HTML, which streamlit-folium reads with regular
expressions on every rerun (190,000 events: 5 MB of HTML, about 100 ms a rerun)."""
KEPT_FILES = 16
KEPT_SECONDS = 3600
"""Published event files older than this, beyond the newest KEPT_FILES, are removed."""


@dataclass(frozen=True)
class Served:
    """A folder a web server serves, and its URL as the map's page reaches it."""

    folder: Path
    url: str


def payload(
    scenario: Scenario, chosen: npt.NDArray[np.intp], *, still: bool = False
) -> dict[str, Any]:
    """The columns of the chosen events, ready for the page (coordinates to 5 decimals).

    A `still` page (a picture) gets only what is drawn: no columns for the popups.
    """
    table = columns(scenario)
    found: dict[str, Any] = {
        "n": len(chosen),
        "lat": packed(np.round(table.latitude[chosen] * 1e5), "<i4"),
        "lon": packed(np.round(table.longitude[chosen] * 1e5), "<i4"),
        "kind": packed(table.kind[chosen], "<u2"),
        "dead": packed(np.minimum(table.fatalities[chosen], 65535), "<u2"),
        "kinds": table.kinds,
        "colours": [EVENT_COLOURS.get(name, OTHER_COLOUR) for name in table.kinds],
        "popups": not still,
    }
    if still:
        return found
    places_used, place_index = np.unique(table.place[chosen], return_inverse=True)
    found["day"] = packed(table.day[chosen], "<i4")
    found["place"] = packed(place_index, "<i4")
    found["places"] = [table.places[i] for i in places_used]
    if len(chosen) <= NOTES_LIMIT:
        events = picked(scenario.events, chosen.tolist())
        found["notes"] = [event.notes for event in events]
        found["actors"] = [" — ".join(a for a in (e.actor1, e.actor2) if a) for e in events]
        found["sources"] = [", ".join(event.source) for event in events]
    return found


def layer_data(
    scenario: Scenario,
    chosen: npt.NDArray[np.intp],
    *,
    still: bool = False,
    served: Served | None = None,
) -> dict[str, Any]:
    """What the events layer's script gets: the payload itself, or (a served map with more
    than INLINE_LIMIT events) the URL of a file holding it, published once per choice."""
    if served is None or still or len(chosen) <= INLINE_LIMIT:
        return payload(scenario, chosen, still=still)
    digest = hashlib.blake2b(np.ascontiguousarray(chosen).tobytes(), digest_size=16).hexdigest()
    url = _memo.derived(
        scenario.events,
        f"published-events:{digest}:{served}",
        lambda: publish(payload(scenario, chosen), served),
    )
    if not (served.folder / url.rsplit("/", 1)[1]).is_file():  # (removed by another session)
        url = publish(payload(scenario, chosen), served)
    return {"url": url, "n": len(chosen)}


def publish(data: dict[str, Any], served: Served) -> str:
    """Write the payload as a JSON file named by its content under the served folder (once);
    return its URL. Old files go (see KEPT_SECONDS)."""
    body = orjson.dumps(data)
    name = f"{hashlib.blake2b(body, digest_size=16).hexdigest()}.json"
    target = served.folder / name
    if target.is_file():
        os.utime(target)
    else:
        with atomic_path(target) as temporary:
            temporary.write_bytes(body)
        _prune(served.folder)
    return f"{served.url}/{name}"


def _prune(folder: Path) -> None:
    files = sorted(folder.glob("*.json"), key=lambda path: path.stat().st_mtime, reverse=True)
    old = time.time() - KEPT_SECONDS
    for path in files[KEPT_FILES:]:
        if path.stat().st_mtime < old:
            path.unlink(missing_ok=True)


def packed(values: Any, dtype: str) -> str:
    """Numbers as base64 of little-endian binary: about a third of their JSON size."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=dtype).tobytes()).decode("ascii")


class EventPoints(ScriptElement):
    """The events layer: supercluster in the browser; clusters as counts, events on the map's
    shared canvas (`still`: a picture's, see geo._script.shared_canvas).

    Popups are built with DOM text nodes, so no event text is ever read as HTML.
    """

    def __init__(self, data: dict[str, Any], *, still: bool = False) -> None:
        super().__init__()
        self._name = "EventPoints"
        self.data = data
        self.still = still

    def make_script(self) -> str:
        group: Any = self._parent
        map_name = group._parent.get_name()
        return (
            _SCRIPT.replace("GROUP", self.parent_name)
            .replace("RENDERER", shared_canvas(map_name, still=self.still))
            .replace("MAP", map_name)
            .replace("MAX_CLUSTER_ZOOM", str(MAX_CLUSTER_ZOOM))
            .replace("CLUSTER_RADIUS", str(CLUSTER_RADIUS))
            .replace("DATA", script_json(self.data))
        )


_SCRIPT = """
(function(map, group, given) {
  function start(data) {
    function unpack(text, Type) {  // a plain loop: 6 ms, not 82, for 100,000 events
        var chars = atob(text), bytes = new Uint8Array(chars.length);
        for (var k = 0; k < chars.length; k++) { bytes[k] = chars.charCodeAt(k); }
        return new Type(bytes.buffer);
    }
    var n = data.n;
    var lat = unpack(data.lat, Int32Array), lon = unpack(data.lon, Int32Array);
    data.kind = unpack(data.kind, Uint16Array);
    data.dead = unpack(data.dead, Uint16Array);
    if (data.popups) {
        data.day = unpack(data.day, Int32Array);
        data.place = unpack(data.place, Int32Array);
    }
    var features = new Array(n);
    for (var i = 0; i < n; i++) {
        features[i] = {type: 'Feature', properties: {i: i},
                       geometry: {type: 'Point', coordinates: [lon[i] / 1e5, lat[i] / 1e5]}};
    }
    var indexes = {};
    function indexAt(zoom) {  // each zoom clustered from the events themselves, when first shown
        var z = Math.min(zoom, MAX_CLUSTER_ZOOM);  // its index lists single events a zoom deeper
        if (!indexes[z]) {
            indexes[z] = new Supercluster({radius: CLUSTER_RADIUS, minZoom: z, maxZoom: z})
                .load(features);
        }
        return indexes[z];
    }
    var renderer = RENDERER;
    var drawn = L.layerGroup().addTo(group);
    function text(tag, value) {
        var node = document.createElement(tag);
        node.textContent = value;
        return node;
    }
    function popup(i) {
        var box = document.createElement('div');
        box.className = 'corridor-card';
        var day = new Date(data.day[i] * 86400000).toISOString().slice(0, 10);
        box.appendChild(text('b', data.kinds[data.kind[i]] + ', ' + day));
        var rows = [['Place', data.places[data.place[i]]], ['Fatalities', String(data.dead[i])]];
        if (data.actors) { rows.push(['Actors', data.actors[i]]); }
        if (data.sources) { rows.push(['Source', data.sources[i]]); }
        var table = document.createElement('table');
        table.className = 'corridor-facts';
        rows.forEach(function(row) {
            if (!row[1]) { return; }
            var tr = document.createElement('tr');
            tr.appendChild(text('th', row[0]));
            tr.appendChild(text('td', row[1]));
            table.appendChild(tr);
        });
        box.appendChild(table);
        if (data.notes && data.notes[i]) { box.appendChild(text('blockquote', data.notes[i])); }
        return box;
    }
    function clusterIcon(count) {
        var size = count < 100 ? 28 : count < 1000 ? 34 : 42;
        var label = count < 1000 ? String(count) : Math.round(count / 1000) + 'k';
        return L.divIcon({className: 'corridor-cluster', iconSize: [size, size],
                          html: '<span>' + label + '</span>'});
    }
    var drawnFor = null;  // the view drawn last: the group's add and the map's ready both ask
    function draw() {
        var b = map.getBounds(), zoom = Math.round(map.getZoom());
        var view = map.hasLayer(group) ? zoom + ' ' + b.toBBoxString() : null;
        if (view !== null && view === drawnFor) { return; }
        drawnFor = view;
        drawn.clearLayers();
        if (view === null) { return; }
        var index = indexAt(zoom);
        var shown = index.getClusters([b.getWest(), b.getSouth(), b.getEast(), b.getNorth()], zoom);
        shown.forEach(function(item) {
            var ll = [item.geometry.coordinates[1], item.geometry.coordinates[0]];
            if (item.properties.cluster) {
                var marker = L.marker(ll, {icon: clusterIcon(item.properties.point_count)});
                marker.on('click', function() {  // zoom to the cluster's own events
                    var leaves = index.getLeaves(item.properties.cluster_id, Infinity);
                    var box = L.latLngBounds(leaves.map(function(leaf) {
                        return [leaf.geometry.coordinates[1], leaf.geometry.coordinates[0]];
                    }));
                    map.fitBounds(box, {maxZoom: MAX_CLUSTER_ZOOM + 1,
                                        padding: [CLUSTER_RADIUS, CLUSTER_RADIUS]});
                });
                drawn.addLayer(marker);
            } else {
                var i = item.properties.i;
                var colour = data.colours[data.kind[i]];
                var radius = 4 + Math.sqrt(Math.min(data.dead[i], 50));
                var dot = L.circleMarker(ll, {renderer: renderer, radius: radius, color: colour,
                    weight: 1, fillColor: colour, fillOpacity: 0.6});
                if (data.popups) {
                    dot.bindPopup(function() { return popup(i); }, {maxWidth: 380});
                }
                drawn.addLayer(dot);
            }
        });
        map.getContainer().setAttribute('data-corridor-events', String(shown.length));
    }
    map.on('moveend zoomend overlayadd overlayremove', draw);
    group.on('add', draw);  // the group joins the map after this script: a picture's map
    map.whenReady(draw);    // never moves after that, so this is its only chance to draw
  }
  if (!given.url) { start(given); return; }
  fetch(given.url)  // a served map's many events: a file beside the page (see INLINE_LIMIT)
    .then(function(response) {
      if (!response.ok) { throw new Error(response.status + ' ' + response.statusText); }
      return response.json();
    })
    .then(start)
    .catch(function(error) {
      var note = L.control({position: 'bottomleft'});
      note.onAdd = function() {
        var box = L.DomUtil.create('div', 'corridor-card');
        box.textContent = 'The ' + given.n + ' events could not be loaded (' + error.message
          + '). Reload the page to try again.';
        return box;
      };
      note.addTo(map);
      map.getContainer().setAttribute('data-corridor-events-error', String(error.message));
    });
})(MAP, GROUP, DATA);
"""
