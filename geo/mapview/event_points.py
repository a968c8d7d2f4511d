"""Events by the hundred thousand: sent as columns, clustered in the browser.

A hundred thousand events cannot be a hundred thousand folium objects. The events layer sends
columns (coordinates, day, type, fatalities, place) as typed arrays and the browser clusters
them with supercluster (an npm package, served like Leaflet), without a Python object per
event on the way. Each zoom is clustered from the events themselves when it is first shown
(all 14 levels of 62,000 events took a page 100 ms; one takes 20-45 ms), so a picture, which
shows one zoom, clusters exactly as the interactive map does there. Thousands of routes are
`geo.mapview.route_canvas`.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from geo import _memo
from geo._atomic import atomic_path
from geo.event_columns import columns
from geo.event_table import picked
from geo.mapview._script import ScriptElement, script_json, shared_canvas
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
DEFLATE_LEVEL = 3
"""zlib level: 620,000 events compress in 0.34 s to 4.4 bytes each (level 6: 1.5 s, 4.3 bytes)."""
EXPORT_LEVEL = 6
"""zlib level for a page that keeps its events (an HTML export): smaller, slower to make."""
INLINE_LIMIT = 10_000
"""Above this many events shown, a served map (the dashboard's) fetches them from a file beside
the page instead of carrying them in its HTML, which streamlit-folium reads with regular
expressions on every rerun (190,000 events: 5 MB of HTML, about 100 ms a rerun)."""
KEPT_FILES = 16
KEPT_SECONDS = 3600
"""Published event files older than this, beyond the newest KEPT_FILES, are removed."""
KEPT_BYTES = 256 * 2**20
"""Published event files beyond this many bytes in all are removed, oldest first, whatever
their age (Streamlit turns static serving off when its folder passes 1 GB)."""


@dataclass(frozen=True)
class Served:
    """A folder a web server serves, and its URL as the map's page reaches it."""

    folder: Path
    url: str


COLUMN_TYPES = {"lat": "<i4", "lon": "<i4", "kind": "<u2", "dead": "<u2", "day": "<i4",
                "place": "<i4"}  # fmt: skip
"""Each column's type in the page (the script's `decode` reads the same: Int32Array …)."""


def payload(
    scenario: Scenario,
    chosen: npt.NDArray[np.intp],
    *,
    still: bool = False,
    level: int = DEFLATE_LEVEL,
) -> dict[str, Any]:
    """The columns of the chosen events, ready for the page (coordinates to 5 decimals), each
    compressed (`deflated`). The events go in order of latitude, which is sent as steps from
    one to the next: the steps compress to almost nothing (620,000 events: 20 bytes each
    uncompressed, 4.4 compressed).

    A `still` page (a picture) gets only what is drawn: no columns for the popups.
    """
    table = columns(scenario)
    lat = np.round(table.latitude[chosen] * 1e5).astype(np.int64)
    lon = np.round(table.longitude[chosen] * 1e5).astype(np.int64)
    order = np.lexsort((lon, lat))
    chosen, lat, lon = chosen[order], lat[order], lon[order]
    found: dict[str, Any] = {
        "n": len(chosen),
        "lat": deflated(np.diff(lat, prepend=0), COLUMN_TYPES["lat"], level),
        "lon": deflated(lon, COLUMN_TYPES["lon"], level),
        "kind": deflated(table.kind[chosen], COLUMN_TYPES["kind"], level),
        "dead": deflated(np.minimum(table.fatalities[chosen], 65535), COLUMN_TYPES["dead"], level),
        "kinds": table.kinds,
        "colours": [EVENT_COLOURS.get(name, OTHER_COLOUR) for name in table.kinds],
        "popups": not still,
    }
    if still:
        return found
    places_used, place_index = np.unique(table.place[chosen], return_inverse=True)
    found["day"] = deflated(table.day[chosen], COLUMN_TYPES["day"], level)
    found["place"] = deflated(place_index, COLUMN_TYPES["place"], level)
    found["places"] = [table.places[i] for i in places_used]
    if len(chosen) <= NOTES_LIMIT:
        events = picked(scenario.events, chosen.tolist())
        found["notes"] = [event.notes for event in events]
        found["actors"] = [" — ".join(a for a in (e.actor1, e.actor2) if a) for e in events]
        found["sources"] = [", ".join(event.source) for event in events]
    return found


def unpacked(data: dict[str, Any]) -> dict[str, npt.NDArray[Any]]:
    """The payload's columns as the page reads them back (latitude and longitude in degrees)."""
    found = {
        name: inflated(data[name], dtype)
        for name, dtype in COLUMN_TYPES.items()
        if isinstance(data.get(name), str)
    }
    found["lat"] = np.cumsum(found["lat"].astype(np.int64)) / 1e5
    found["lon"] = found["lon"] / 1e5
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
    if served is None and not still:  # a page that keeps its events: an export
        return payload(scenario, chosen, level=EXPORT_LEVEL)
    if served is None or still or len(chosen) <= INLINE_LIMIT:
        return payload(scenario, chosen, still=still)
    digest = hashlib.blake2b(np.ascontiguousarray(chosen).tobytes(), digest_size=16).hexdigest()
    try:
        url = _memo.derived(
            scenario.events,
            f"published-events:{digest}:{served}",
            lambda: publish(payload(scenario, chosen), served),
        )
        if not _touched(served.folder / url.rsplit("/", 1)[1]):  # (pruned by another session)
            url = publish(payload(scenario, chosen), served)
    except OSError:  # (a full disk, a read-only install: the page carries them after all)
        return payload(scenario, chosen)
    return {"url": url, "n": len(chosen)}


def publish(data: dict[str, Any], served: Served) -> str:
    """Write the payload as a JSON file named by its content under the served folder (once);
    return its URL. Old files go (see KEPT_SECONDS, KEPT_BYTES)."""
    body = orjson.dumps(data)
    name = f"{hashlib.blake2b(body, digest_size=16).hexdigest()}.json"
    target = served.folder / name
    if not _touched(target):
        with atomic_path(target) as temporary:
            temporary.write_bytes(body)
        _prune(served.folder, keep=target)
    return f"{served.url}/{name}"


def _touched(path: Path) -> bool:
    """Mark a published file as still in use; False when it is not there (any more)."""
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    return True


def _prune(folder: Path, *, keep: Path) -> None:
    """Remove the published files beyond the newest KEPT_FILES that are older than an hour,
    and the oldest while all of them weigh more than KEPT_BYTES (never `keep`). Other
    writers' temporary files (hidden) are not looked at; a file gone meanwhile is skipped."""
    found = []
    for path in folder.glob("[0-9a-f]*.json"):
        try:
            info = path.stat()
        except FileNotFoundError:
            continue
        found.append((info.st_mtime, info.st_size, path))
    found.sort(reverse=True)  # newest first
    old, total = time.time() - KEPT_SECONDS, 0
    for number, (moment, size, path) in enumerate(found):
        total += size
        stale = number >= KEPT_FILES and moment < old
        if path != keep and (stale or total > KEPT_BYTES):
            path.unlink(missing_ok=True)


def packed(values: Any, dtype: str) -> str:
    """Numbers as base64 of little-endian binary: about a third of their JSON size."""
    return base64.b64encode(np.ascontiguousarray(values, dtype=dtype).tobytes()).decode("ascii")


def deflated(values: Any, dtype: str, level: int = DEFLATE_LEVEL) -> str:
    """`packed`, each byte of the numbers in a run of its own (all the first bytes, then all the
    second ...) and compressed (zlib's format: the browser's DecompressionStream('deflate')).
    The runs of high bytes, alike, compress to almost nothing: 620,000 events to a map, 3.6 MB
    compressed as numbers, 2.8 MB as runs."""
    numbers = np.ascontiguousarray(values, dtype=dtype)
    runs = numbers.view(np.uint8).reshape(len(numbers), numbers.itemsize).T.tobytes()
    return base64.b64encode(zlib.compress(runs, level)).decode("ascii")


def inflated(text: str, dtype: str) -> npt.NDArray[Any]:
    """A `deflated` column read back."""
    runs = np.frombuffer(zlib.decompress(base64.b64decode(text)), dtype=np.uint8)
    width = np.dtype(dtype).itemsize
    return runs.reshape(width, len(runs) // width).T.copy().view(dtype).reshape(-1)


class EventPoints(ScriptElement):
    """The events layer: supercluster in the browser; clusters as counts, events on the map's
    shared canvas (`still`: a picture's, see geo.mapview._script.shared_canvas).

    Popups are built with DOM text nodes, so no event text is ever read as HTML.
    """

    def __init__(self, data: dict[str, Any], *, still: bool = False) -> None:
        super().__init__()
        self._name = "EventPoints"
        self.data = data
        self.still = still

    def make_script(self) -> str:
        map_name = self.map_name
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
  window.corridorWaits = (window.corridorWaits || 0) + 1;  // a picture waits for its events
  var done = false;
  function settled() {  // once, however the layer ends
    if (done) { return; }
    done = true;
    window.corridorWaits -= 1;
    window.dispatchEvent(new Event('corridor-settled'));
  }
  function unpack(text, Type) {  // base64 of zlib: a plain loop, then the browser inflates
    var chars = atob(text), bytes = new Uint8Array(chars.length);
    for (var k = 0; k < chars.length; k++) { bytes[k] = chars.charCodeAt(k); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Response(stream).arrayBuffer().then(function(buffer) {
      var runs = new Uint8Array(buffer), width = Type.BYTES_PER_ELEMENT;
      var n = runs.length / width, numbers = new Uint8Array(runs.length);
      for (var b = 0; b < width; b++) {  // each byte of the numbers came in a run of its own
        for (var i = 0, at = b * n; i < n; i++) { numbers[i * width + b] = runs[at + i]; }
      }
      return new Type(numbers.buffer);
    });
  }
  function decode(data) {
    var names = [['lat', Int32Array], ['lon', Int32Array], ['kind', Uint16Array],
                 ['dead', Uint16Array]];
    if (data.popups) { names.push(['day', Int32Array], ['place', Int32Array]); }
    return Promise.all(names.map(function(pair) { return unpack(data[pair[0]], pair[1]); }))
      .then(function(arrays) {
        names.forEach(function(pair, k) { data[pair[0]] = arrays[k]; });
        for (var i = 1; i < data.n; i++) { data.lat[i] += data.lat[i - 1]; }  // steps: sums
        return data;
      });
  }
  function start(data) {
    if (gone) { settled(); return; }
    if (map.corridorEventsNote) {  // an earlier moment's events failed; this one's came
      map.corridorEventsNote.remove();
      map.corridorEventsNote = null;
      map.getContainer().removeAttribute('data-corridor-events-error');
    }
    var n = data.n, lat = data.lat, lon = data.lon;
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
    group.on('add', draw);
    group.once('corridor-clear', function() {  // the moment moved on: this layer is replaced
      map.off('moveend zoomend overlayadd overlayremove', draw);
      group.off('add', draw);
    });  // the group may join the map after this (a picture's map never
    map.whenReady(function() {  // moves after: its only chance to draw)
      try { draw(); } finally { settled(); }
    });
  }
  function failed(error) {  // one note on the map, the latest moment's (not one a step)
    try {
      var note = map.corridorEventsNote;
      if (!note) {
        note = map.corridorEventsNote = L.control({position: 'bottomleft'});
        note.onAdd = function() { return L.DomUtil.create('div', 'corridor-card'); };
        note.addTo(map);
      }
      note.getContainer().textContent = 'The ' + given.n + ' events could not be ' + (given.url
        ? 'loaded (' + error.message + '). Reload the page to try again.'
        : 'read (' + error.message + '): this browser may be too old for this map.');
      map.getContainer().setAttribute('data-corridor-events-error', String(error.message));
    } finally {
      settled();
    }
  }
  var gone = false;  // replaced before its data came (see geo.mapview.moment)
  group.once('corridor-clear', function() { gone = true; });
  var loaded = given.url ? fetch(given.url).then(function(response) {  // see INLINE_LIMIT
    if (!response.ok) { throw new Error(response.status + ' ' + response.statusText); }
    return response.json();
  }) : Promise.resolve(given);
  loaded.then(decode).then(start).catch(failed);
})(MAP, GROUP, DATA);
"""
