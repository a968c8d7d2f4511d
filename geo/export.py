"""Map snapshots: what to export, the standalone page (title, moment, extent, map, legend,
sources and disclaimer) and each format's bytes; pictures are drawn in `geo.pictures`, the data
shown is written by `geo.export_data`; the record `Snapshot` is in `geo.snapshot`.

A map (HTML, PNG, PDF) frames the story at its moment, or the view a snapshot gives it (the one
on screen, or one asked for: `geo.extent`); its page says which, and a view's file name ends in
`_view`. The data exports are what is shown whatever the frame (see `geo.extent`)."""

from __future__ import annotations

import json
import re
from datetime import UTC
from pathlib import Path
from typing import Any

from branca.element import Element

from geo import mapview
from geo._atomic import atomic_path
from geo.errors import ExportError
from geo.export_data import csv_zip, feature_collection, gpkg_bytes
from geo.mapview import ALL_LAYERS, DEFAULT_LAYERS, basemap
from geo.pictures import PAPER, browser
from geo.safe_html import FONTS, esc, times
from geo.snapshot import Snapshot as Snapshot  # (re-exported: users write export.Snapshot)

FORMATS = ("html", "png", "pdf", "geojson", "gpkg", "csv")
MAP_FORMATS = ("html", "png", "pdf")
"""The formats that draw the map, framed by the snapshot's extent."""
EXTENSIONS = {"csv": "csv.zip"}
MEDIA_TYPES = {
    "html": "text/html",
    "png": "image/png",
    "pdf": "application/pdf",
    "geojson": "application/geo+json",
    "gpkg": "application/geopackage+sqlite3",
    "csv": "application/zip",
}
"""Each format's media type, for downloads (the CSVs come in one zip)."""
PRODUCER = "Corridor"
ENDORSEMENT_NOTE = (
    "Boundaries, names and designations on this map do not imply endorsement or acceptance "
    "by Corridor or its users."
)
APPROXIMATE_NOTE = (
    "Dashed lines and outlines are approximate: placed by reading the sources, not surveyed."
)
TILE_WAIT_MS = 3000


def file_name(snapshot: Snapshot, fmt: str) -> str:
    """corridor_<scenario>_<YYYYMMDDTHHMM>Z_<layers>.<ext>, a map of a view's with `_view`
    after the layers."""
    layers = snapshot.view.layers
    label = (
        "all"
        if layers == frozenset(DEFAULT_LAYERS)
        else "+".join(key for key in ALL_LAYERS if key in layers) or "none"
    )
    moment = snapshot.view.at.astimezone(UTC).strftime("%Y%m%dT%H%M")
    if snapshot.frame is not None and fmt in MAP_FORMATS:
        label += "_view"
    return f"corridor_{snapshot.scenario.id}_{moment}Z_{label}.{EXTENSIONS.get(fmt, fmt)}"


def download_name(snapshot: Snapshot, fmt: str) -> str:
    """The dashboard's name for a download: `file_name`, a PDF's with its paper (_A4, _A3)."""
    name = file_name(snapshot, fmt)
    if fmt == "pdf":
        name = name.replace(".pdf", f"_{snapshot.paper}.pdf")
    return name


FORMAT_LABELS = {
    "html": "HTML (interactive, offline)",
    "geojson": "GeoJSON (data shown)",
    "gpkg": "GeoPackage (data shown)",
    "csv": "CSV tables of what is shown (zip)",
}
"""The formats downloaded at once, as the dashboard's buttons name them (PNG and PDF are made
on request); the dashboard says them in its language through the message catalogue."""


def export(snapshot: Snapshot, fmt: str, out: Path | str) -> Path:
    """Write the snapshot as `fmt` to `out` (a file, or a folder for the standard name)."""
    if fmt not in FORMATS:
        raise ExportError(f"format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    target = Path(out)
    if target.is_dir():
        target = target / file_name(snapshot, fmt)
    elif not target.suffix or str(out).endswith(("/", "\\")):
        raise ExportError(
            f"{out}: expected an existing folder, or a file name such as {file_name(snapshot, fmt)}"
        )
    if not target.parent.is_dir():
        raise ExportError(f"{target}: the folder {target.parent} does not exist")
    body = render(snapshot, fmt)
    try:
        with atomic_path(target) as temporary:
            temporary.write_bytes(body)
    except OSError as error:
        raise ExportError(f"{target}: cannot write ({error.strerror or error})") from error
    return target


def render(snapshot: Snapshot, fmt: str) -> bytes:
    """The snapshot's bytes in one format."""
    if fmt == "html":
        return page_html(snapshot).encode("utf-8")
    if fmt == "png":
        html = page_html(snapshot, still=True)
        return browser().png(html, snapshot.width, snapshot.height, snapshot.scale)
    if fmt == "pdf":
        return browser().pdf(page_html(snapshot, paper=snapshot.paper, still=True), snapshot.paper)
    if fmt == "geojson":
        return json.dumps(feature_collection(snapshot), ensure_ascii=False).encode("utf-8")
    if fmt == "csv":
        return csv_zip(snapshot)
    if fmt == "gpkg":
        return gpkg_bytes(snapshot)
    raise ExportError(f"format: expected one of {', '.join(FORMATS)}, got {fmt!r}")


# --- the page: a print layout around the map ------------------------------------------------


def page_html(snapshot: Snapshot, *, paper: str | None = None, still: bool = False) -> str:
    """One self-contained page: title, moment, the map with its legend, sources and credits.

    `still` (PNG, PDF) hides the controls a picture cannot use (layer switcher, zoom, tools).
    """
    scenario, view = snapshot.scenario, snapshot.view
    folium_map = mapview.build_map(
        scenario, view, height="100%", still=still, frame=snapshot.frame, exported=True
    )
    root: Any = folium_map.get_root()
    size = _page_size(snapshot, paper)
    still_css = _STILL_CSS if still else ""
    root.header.add_child(Element(f"<style>{_SHEET_CSS}{size}{still_css}</style>"))
    title = f"{scenario.title} — as of {times(view.at, scenario.timezone)}"
    root.header.add_child(Element(f"<title>{esc(title)}</title>"), name="title", index=0)
    root.html.add_child(Element(_head_html(snapshot)), index=0)
    root.html.add_child(Element(_foot_html(snapshot)))
    root.script.add_child(Element(_READY_JS))
    return standard_html(str(root.render()))


_FIXED_ZOOM = re.compile(r",\s*maximum-scale=1\.0,\s*user-scalable=no")


def standard_html(html: str) -> str:
    """folium's page as the Nu Html Checker accepts it: the language declared, the map's
    script inside the body (branca writes it after `</body>`), and a phone user free to zoom
    the page (folium's viewport forbids it)."""
    html = html.replace("<html>", '<html lang="en">', 1)
    body_end = html.rfind("</body>")
    html_end = html.rfind("</html>")
    if 0 <= body_end < html_end:
        html = html[:body_end] + html[body_end + len("</body>") : html_end] + "</body>\n</html>\n"
    return _FIXED_ZOOM.sub("", html, count=1)


def _page_size(snapshot: Snapshot, paper: str | None) -> str:
    if paper is None:
        return f"html,body{{width:{snapshot.width}px;height:{snapshot.height}px}}"
    if paper not in PAPER:
        raise ExportError(f"paper: expected one of {', '.join(PAPER)}, got {paper!r}")
    width, height = PAPER[paper]
    return f"@page{{size:{paper} landscape;margin:0}}html,body{{width:{width}mm;height:{height}mm}}"


def _head_html(snapshot: Snapshot) -> str:
    scenario, at = snapshot.scenario, snapshot.view.at
    return (
        '<header class="sheet-head">'
        f"<h1>{esc(scenario.title)}</h1>"
        f'<div class="sheet-sub">{esc(scenario.id)} · as of {esc(times(at, scenario.timezone))}'
        f' · <span class="sheet-extent">{esc(snapshot.extent_note)}</span></div></header>'
    )


def disclaimer(scenario_text: str) -> str:
    """The scenario's disclaimer, with Corridor's notes on what it does not already say.

    A scenario disclaimer that speaks of endorsement (or of approximate lines) is not followed
    by Corridor's own sentence on the same thing, so a printed footer says each thing once.
    """
    said = scenario_text.lower()
    notes = [
        note
        for note, word in ((APPROXIMATE_NOTE, "approximate"), (ENDORSEMENT_NOTE, "endorse"))
        if word not in said
    ]
    return " ".join([scenario_text.strip(), *notes]).strip()


def _foot_html(snapshot: Snapshot) -> str:
    scenario = snapshot.scenario
    sources = "; ".join(
        f"{esc(s.title)} ({esc(s.publisher)}, {s.published.isoformat()})" for s in scenario.sources
    )
    credits = [basemap.ATTRIBUTION]
    if snapshot.view.base == "osm":
        credits.append("Map tiles © OpenStreetMap contributors")
    made = snapshot.made.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        '<footer class="sheet-foot">'
        f"<p><b>Sources:</b> {sources}</p>"
        f"<p>{esc(disclaimer(scenario.disclaimer))}</p>"
        f"<p>Made with {PRODUCER} on {made} · {esc(' · '.join(credits))}</p>"
        "</footer>"
    )


_READY_JS = """
(function() {
    function done() {  // and once every layer that draws later (its events) has drawn
        if (!(window.corridorWaits > 0)) { window.corridorReady = true; return; }
        window.addEventListener('corridor-settled', function() {
            if (!(window.corridorWaits > 0)) {
                requestAnimationFrame(function() { requestAnimationFrame(function() {
                    window.corridorReady = true;
                }); });
            }
        });
    }
    window.addEventListener('load', function() {
        var pending = Array.prototype.filter.call(
            document.querySelectorAll('.leaflet-tile-pane img'),
            function(img) { return !img.complete; }).length;
        if (!pending) { requestAnimationFrame(function() { requestAnimationFrame(done); }); }
        else { setTimeout(done, TILE_WAIT_MS); }
    });
})();
""".replace("TILE_WAIT_MS", str(TILE_WAIT_MS))
"""Sets window.corridorReady once the map is drawn, its events too (they are inflated after the
page loads); tiles get TILE_WAIT_MS at most."""

_SHEET_CSS = """
html,body{margin:0;padding:0;overflow:hidden;background:#fff}
body{display:flex;flex-direction:column;font:12px/1.35 FONTS;color:#222}
.sheet-head{padding:8px 14px 6px;border-bottom:1px solid #ccc}
.sheet-head h1{margin:0;font-size:20px}
.sheet-sub{color:#444;margin-top:2px}
.folium-map{flex:1 1 auto;position:relative!important;width:100%!important;height:auto!important}
.sheet-foot{padding:5px 14px 7px;border-top:1px solid #ccc;font-size:10.5px;color:#333}
.sheet-foot p{margin:2px 0}
.corridor-north{background:rgba(255,255,255,.85);border-radius:4px;padding:2px 4px}
.sheet-head{order:0}.folium-map{order:1}.sheet-foot{order:2}
.corridor-title{display:none}
""".replace("FONTS", FONTS)
_STILL_CSS = """
.leaflet-control-layers,.leaflet-control-zoom,.leaflet-control-fullscreen,
.leaflet-control-measure{display:none!important}
path.leaflet-ant-path{animation:none!important}
"""
