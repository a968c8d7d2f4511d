"""Map snapshots: standalone HTML, PNG and PDF through Chromium, and the data shown, as files."""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import re
import tempfile
import threading
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import geopandas as gpd
import pyogrio
from branca.element import Element

from geo import basemap, mapview, timeline
from geo._atomic import atomic_path
from geo._geojson import rfc7946
from geo._spreadsheet import csv_text
from geo.chromium import LAUNCH_ARGS, find_chromium
from geo.errors import ExportError
from geo.mapview import ALL_LAYERS, DEFAULT_LAYERS, MapView
from geo.records import CONVOY_COUNTS, Scenario
from geo.safe_html import FONTS, esc, times

FORMATS = ("html", "png", "pdf", "geojson", "gpkg", "csv")
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
PAPER = {"A4": (297, 210), "A3": (420, 297)}  # landscape, millimetres
PX_PER_MM = 96 / 25.4
PRODUCER = "Corridor"
ENDORSEMENT_NOTE = (
    "Boundaries, names and designations on this map do not imply endorsement or acceptance "
    "by Corridor or its users."
)
APPROXIMATE_NOTE = (
    "Dashed lines and outlines are approximate: placed by reading the sources, not surveyed."
)
TILE_WAIT_MS = 3000
RENDER_TIMEOUT_MS = 20_000
T = TypeVar("T")


@dataclass(frozen=True)
class Snapshot:
    """What to export: the scenario, the view (moment, layers, filters) and the page size."""

    scenario: Scenario
    view: MapView
    width: int = 1600
    height: int = 1000
    scale: float = 1.0
    paper: str = "A4"
    created: datetime | None = None

    @property
    def made(self) -> datetime:
        return self.created or datetime.now(UTC)


def file_name(snapshot: Snapshot, fmt: str) -> str:
    """corridor_<scenario>_<YYYYMMDDTHHMM>Z_<layers>.<ext>"""
    layers = snapshot.view.layers
    label = (
        "all"
        if layers == frozenset(DEFAULT_LAYERS)
        else "+".join(key for key in ALL_LAYERS if key in layers) or "none"
    )
    moment = snapshot.view.at.astimezone(UTC).strftime("%Y%m%dT%H%M")
    return f"corridor_{snapshot.scenario.id}_{moment}Z_{label}.{EXTENSIONS.get(fmt, fmt)}"


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
    folium_map = mapview.build_map(scenario, view, height="100%", still=still, exported=True)
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
        "</div></header>"
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
    function done() { window.corridorReady = true; }
    window.addEventListener('load', function() {
        var pending = Array.prototype.filter.call(
            document.querySelectorAll('.leaflet-tile-pane img'),
            function(img) { return !img.complete; }).length;
        if (!pending) { requestAnimationFrame(function() { requestAnimationFrame(done); }); }
        else { setTimeout(done, TILE_WAIT_MS); }
    });
})();
""".replace("TILE_WAIT_MS", str(TILE_WAIT_MS))
"""Sets window.corridorReady once the map is drawn; tiles get TILE_WAIT_MS at most."""

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


# --- Chromium: one warm browser per process, driven from one thread -------------------------


class Browser:
    """The system Chromium through Playwright, started on first use and kept warm.

    Playwright's sync API must stay on the thread that started it, while Streamlit runs each
    rerun (and deferred downloads) on other threads: every call goes through one worker thread.
    One page per pixel ratio is kept open between snapshots (opening a page with its request
    filter costs 0.13 s); each snapshot is a fresh document in it. Once the snapshot is handed
    over, the page goes back to about:blank (40 ms) so that no snapshot's map stays in memory.
    """

    def __init__(self) -> None:
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="corridor-chromium")
        self._playwright: Any = None
        self._chromium: Any = None
        self._pages: dict[float, Any] = {}
        self._allowed = ""
        """The one file a page may load: the snapshot being taken."""

    def png(self, html: str, width: int, height: int, scale: float) -> bytes:
        def shoot(page: Any) -> bytes:
            return bytes(page.screenshot(type="png", full_page=False, timeout=RENDER_TIMEOUT_MS))

        viewport = {"width": int(width), "height": int(height)}
        return self._call(html, viewport, scale, shoot)

    def pdf(self, html: str, paper: str) -> bytes:
        width, height = PAPER[paper]
        viewport = {"width": round(width * PX_PER_MM), "height": round(height * PX_PER_MM)}

        def printed(page: Any) -> bytes:
            return bytes(page.pdf(format=paper, landscape=True, print_background=True,
                                  prefer_css_page_size=True))  # fmt: skip

        return self._call(html, viewport, 1.0, printed)

    def close(self) -> None:
        """Stop Chromium; at interpreter exit the worker may be gone (Playwright then ends it)."""
        try:
            self._worker.submit(self._stop).result(timeout=30)
        except RuntimeError:
            return
        self._worker.shutdown(wait=False)

    def _call(self, html: str, viewport: dict[str, int], scale: float, take: Callable[..., T]) -> T:
        job = self._worker.submit(self._render, html, viewport, scale, take)
        return job.result(timeout=RENDER_TIMEOUT_MS / 1000 * 3)

    def _render(
        self, html: str, viewport: dict[str, int], scale: float, take: Callable[..., T]
    ) -> T:
        page = self._page(scale)
        # Chromium reads the page from a private file: handing a large page (5 MB at 100,000
        # events) through Playwright's set_content costs a third of a second more.
        folder = tempfile.TemporaryDirectory(prefix="corridor-snapshot-")
        try:
            page_file = Path(folder.name) / "snapshot.html"
            page_file.write_text(html, encoding="utf-8")
            self._allowed = page_file.as_uri()
            page.set_viewport_size(viewport)
            page.goto(self._allowed, wait_until="load", timeout=RENDER_TIMEOUT_MS)
            page.wait_for_function("window.corridorReady === true", timeout=RENDER_TIMEOUT_MS)
            found = take(page)
        except Exception as error:
            self._drop(scale)  # the next snapshot starts from a new page
            raise ExportError(f"Chromium could not render the map: {error}") from error
        finally:
            self._allowed = ""
            folder.cleanup()
        self._worker.submit(self._blank, page, scale)  # after the caller has the snapshot
        return found

    def _blank(self, page: Any, scale: float) -> None:
        """The page back to about:blank, so that the snapshot's map does not stay in memory."""
        if page not in self._pages.values():
            return  # dropped since
        try:
            page.goto("about:blank")
        except Exception:  # noqa: BLE001 - the snapshot is delivered: only the page is lost
            self._drop(scale)

    def _page(self, scale: float) -> Any:
        page = self._pages.get(scale)
        if page is not None and not page.is_closed() and self._chromium.is_connected():
            return page
        self._drop(scale)
        context = self._start().new_context(device_scale_factor=scale)
        page = self._pages[scale] = context.new_page()
        page.route("**/*", lambda route: _only_local(route, self._allowed))
        return page

    def _drop(self, scale: float) -> None:
        page = self._pages.pop(scale, None)
        if page is not None:
            with contextlib.suppress(Exception):  # already gone with its browser
                page.context.close()

    def _start(self) -> Any:
        if self._chromium is not None and self._chromium.is_connected():
            return self._chromium
        self._pages.clear()  # they went with the browser
        executable = find_chromium()
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as error:
            raise ExportError(
                "PNG and PDF snapshots need the Python package playwright, which is not "
                f"installed here ({error}); install Corridor's requirements with `make install` "
                "or `pip install -r requirements.txt`"
            ) from error
        try:
            self._playwright = self._playwright or sync_playwright().start()
            self._chromium = self._playwright.chromium.launch(
                executable_path=executable, headless=True, args=list(LAUNCH_ARGS)
            )
        except Exception as error:
            raise ExportError(f"{executable} would not start: {error}") from error
        return self._chromium

    def _stop(self) -> None:
        for scale in list(self._pages):
            self._drop(scale)
        if self._chromium is not None:
            self._chromium.close()
        if self._playwright is not None:
            self._playwright.stop()
        self._chromium = self._playwright = None


def _only_local(route: Any, page_address: str) -> None:
    """Snapshots never reach the network, except map tiles when the OSM base is chosen.

    The one local file allowed is the snapshot's own page.
    """
    url = route.request.url
    if (
        url == page_address
        or url.startswith(("data:", "about:", "blob:"))
        or "tile.openstreetmap.org" in url
    ):
        route.continue_()
    else:
        route.abort()


_BROWSER: Browser | None = None
_LOCK = threading.Lock()


def browser() -> Browser:
    """The process's warm browser (closed when the process exits)."""
    global _BROWSER
    with _LOCK:
        if _BROWSER is None:
            _BROWSER = Browser()
            atexit.register(_BROWSER.close)
        return _BROWSER


# --- data: exactly what the map shows --------------------------------------------------------


def feature_collection(snapshot: Snapshot) -> dict[str, Any]:
    """One GeoJSON FeatureCollection of what is shown, a `layer` property on every feature."""
    scenario, view = snapshot.scenario, snapshot.view
    records = mapview.shown(scenario, view)
    on = view.layers
    risks = mapview.alerts(scenario, view) or {}
    features: list[dict[str, Any]] = []
    for zone in records.zones:
        layer = mapview.ZONE_LAYERS[zone.control]
        if layer in on:
            features.append(_feature(layer, zone.geometry, _zone_properties(zone)))
    if "routes" in on:
        for item in records.convoys:
            for leg in timeline.legs_of(scenario, item.convoy.id):
                properties = {"id": leg.id, "convoy": leg.convoy, "leg": leg.leg,
                              "from": leg.from_place, "to": leg.to_place,
                              "state": item.state.value, "precision": leg.precision.value,
                              "source": ";".join(leg.source), "quote": leg.quote,
                              **_risk_properties(risks.get(leg.convoy))}  # fmt: skip
                features.append(_feature("routes", leg.geometry, properties))
    if "convoys" in on:
        for item in records.moving:
            assert item.position is not None
            properties = {**_convoy_properties(item), "progress": round(item.progress or 0, 4)}
            features.append(_feature("convoys", item.position, properties))
    if "places" in on:
        for place in records.places:
            features.append(_feature("places", _point(place), _place_properties(place)))
    if "figures" in on:
        for figure in records.figures:
            place = scenario.place(figure.place)
            features.append(_feature("figures", _point(place), _figure_properties(figure)))
    if "events" in on:
        for index in records.events.tolist():
            event = scenario.events[index]
            point = {"type": "Point", "coordinates": [event.longitude, event.latitude]}
            properties = {"layer": "events", **_event_properties(event)}
            features.append({"type": "Feature", "properties": properties, "geometry": point})
    return {"type": "FeatureCollection", "features": features}


def _event_properties(event: Any) -> dict[str, Any]:
    return {name: getattr(event, name) for name in _EVENT_COLUMNS} | {
        "date": event.date.isoformat(), "source": ";".join(event.source)
    }  # fmt: skip


_EVENT_COLUMNS = ("id", "date", "event_type", "sub_event_type", "actor1", "actor2", "location",
                  "admin1", "country", "latitude", "longitude", "fatalities", "notes",
                  "reported_by", "source")  # fmt: skip
"""events.csv's header: the events shown, as imported."""


def _risk_properties(risk: Any) -> dict[str, Any]:
    if risk is None:
        return {}
    return {"risk_level": risk.level, "alert": risk.alert, "risk_reasons": "; ".join(risk.reasons)}


def _feature(layer: str, geometry: Any, properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Feature", "properties": {"layer": layer, **properties},
            "geometry": rfc7946(geometry)}  # fmt: skip


def _point(place: Any) -> Any:
    from shapely.geometry import Point

    return Point(place.longitude, place.latitude)


def _iso(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else ""


def _zone_properties(zone: Any) -> dict[str, Any]:
    return {"id": zone.id, "name": zone.name, "control": zone.control.value,
            "holder": zone.holder, "valid_from": _iso(zone.valid_from),
            "valid_to": _iso(zone.valid_to), "precision": zone.precision.value,
            "source": ";".join(zone.source), "quote": zone.quote}  # fmt: skip


def _convoy_properties(item: Any) -> dict[str, Any]:
    convoy = item.convoy
    counts = {name: str(getattr(convoy, name) or "") for name in CONVOY_COUNTS}
    return {"id": convoy.id, "label": convoy.label, "state": item.state.value,
            "status": convoy.status.value, "origin": convoy.origin,
            "destination": convoy.destination, "depart": _iso(convoy.depart),
            "arrive": _iso(convoy.arrive), **counts, "organisation": convoy.organisation,
            "confidence": convoy.confidence.value, "source": ";".join(convoy.source),
            "quote": convoy.quote}  # fmt: skip


def _convoy_row(
    item: Any, names: dict[str, str], zone: str, risks: dict[str, Any] | None
) -> dict[str, Any]:
    """convoys.csv's row: times in ISO 8601, local with their offset and in UTC."""
    convoy = item.convoy
    row = _convoy_properties(item) | {
        "origin_name": names.get(convoy.origin, ""),
        "destination_name": names.get(convoy.destination, ""),
        "via": ";".join(convoy.via),
        "depart": _local_iso(convoy.depart, zone),
        "depart_utc": _iso(convoy.depart),
        "arrive": _local_iso(convoy.arrive, zone),
        "arrive_utc": _iso(convoy.arrive),
        "time_precision": convoy.time_precision.value,
    }
    if risks is not None:
        risk = risks.get(convoy.id)
        row |= {"risk": risk.level if risk else "", "alert": bool(risk and risk.alert)}
    return row


_CONVOY_COLUMNS = ("id", "label", "state", "status", "origin", "origin_name", "via",
                   "destination", "destination_name", "depart", "depart_utc", "arrive",
                   "arrive_utc", "time_precision", *CONVOY_COUNTS, "organisation", "confidence",
                   "source", "quote")  # fmt: skip
"""convoys.csv's header: the convoys shown, their state at the moment and their facts."""


def _local_iso(moment: datetime | None, zone: str) -> str:
    """'2016-12-15T14:30:00+02:00': the moment in the scenario's time zone, with its offset."""
    return moment.astimezone(ZoneInfo(zone)).isoformat(timespec="seconds") if moment else ""


def _place_properties(place: Any) -> dict[str, Any]:
    return {"id": place.id, "name": place.name, "kind": place.kind.value,
            "precision": place.precision.value, "country_code": place.country_code,
            "admin1": place.admin1, "source": ";".join(place.source)}  # fmt: skip


def _figure_properties(figure: Any) -> dict[str, Any]:
    return {"id": figure.id, "kind": figure.kind.value, "what": figure.what,
            "count": str(figure.count), "low": figure.count.low, "high": figure.count.high,
            "qualifier": figure.count.qualifier.value if figure.count.qualifier else "",
            "place": figure.place, "reported": _iso(figure.reported),
            "attribution": figure.attribution, "source": ";".join(figure.source),
            "quote": figure.quote}  # fmt: skip


_FIGURE_COLUMNS = ("id", "kind", "what", "count", "low", "high", "qualifier", "place", "reported",
                   "attribution", "source", "quote")  # fmt: skip
"""The keys of _figure_properties: figures.csv's header."""


def gpkg_bytes(snapshot: Snapshot) -> bytes:
    """A GeoPackage with one layer per kind of feature shown, as bytes."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "snapshot.gpkg"
        _write_gpkg(snapshot, path)
        return path.read_bytes()


def _write_gpkg(snapshot: Snapshot, path: Path) -> None:
    """One GeoPackage layer per kind of feature shown (zones, routes, … figures, events)."""
    features = feature_collection(snapshot)["features"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for feature in features:
        kind = "zones" if feature["properties"]["layer"].startswith("zones-") else None
        groups.setdefault(kind or feature["properties"]["layer"], []).append(feature)
    if not groups:
        raise ExportError("gpkg: nothing is shown, so there is nothing to export")
    for name, members in groups.items():
        frame = gpd.GeoDataFrame.from_features(members, crs="EPSG:4326")
        options: dict[str, Any] = {"layer": name, "driver": "GPKG"}
        if name == "zones":
            options.update(geometry_type="Unknown", promote_to_multi=False)
        pyogrio.write_dataframe(frame, path, **options)


def csv_zip(snapshot: Snapshot) -> bytes:
    """A zip of convoys.csv, figures.csv and events.csv: what is shown, as tables."""
    scenario, view = snapshot.scenario, snapshot.view
    records = mapview.shown(scenario, view)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        if view.layers & {"routes", "convoys"}:
            risks = mapview.alerts(scenario, view)
            names = {place.id: place.name for place in scenario.places}
            rows = [_convoy_row(item, names, scenario.timezone, risks) for item in records.convoys]
            columns = _CONVOY_COLUMNS + (("risk", "alert") if risks is not None else ())
            archive.writestr("convoys.csv", csv_text(rows, columns))
        if "figures" in view.layers:
            rows = [_figure_properties(figure) for figure in records.figures]
            archive.writestr("figures.csv", csv_text(rows, _FIGURE_COLUMNS))
        if "events" in view.layers and len(records.events):
            events = [_event_properties(scenario.events[i]) for i in records.events.tolist()]
            archive.writestr("events.csv", csv_text(events, _EVENT_COLUMNS))
    return buffer.getvalue()
