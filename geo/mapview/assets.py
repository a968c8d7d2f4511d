"""Leaflet, its plugins and the offline base map for maps: inlined or served locally, no CDN ever.

Two ways to ship them with a map: inlined as data: URIs (standalone files, exports, tests), or
as URLs under a base (the dashboard publishes the files into Streamlit's static folder once).
"""

from __future__ import annotations

import base64
import mimetypes
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from geo._atomic import atomic_path
from geo.errors import AssetsMissingError
from geo.mapview._script import Text
from geo.settings import ASSETS_DIR, CHECKOUT, PROJECT_ROOT

GENERATED = "corridor"
"""The package name of assets Corridor makes itself (the offline base map as a script)."""

MODULES = ASSETS_DIR
INSTALL_HINT = (
    "run `make install` (it runs `npm ci --prefix assets`)"
    if CHECKOUT
    else "this installed Corridor was built without them: run `make install` in its checkout, "
    "then `pip install .` again"
)
_CSS_URL = re.compile(r"""url\(\s*(['"]?)(?!data:|#|https?:)([^'")]+)\1\s*\)""")


@dataclass(frozen=True)
class Asset:
    """One file of an npm package, pinned in assets/package.json."""

    package: str
    path: str

    @property
    def file(self) -> Path:
        return MODULES / self.package / self.path

    @property
    def relative(self) -> str:
        return f"{self.package}/{self.path}"


LEAFLET_JS = Asset("leaflet", "dist/leaflet.js")
LEAFLET_CSS = Asset("leaflet", "dist/leaflet.css")
ANT_PATH_JS = Asset("leaflet-ant-path", "dist/leaflet-ant-path.js")
FULLSCREEN_JS = Asset("leaflet.fullscreen", "Control.FullScreen.js")
FULLSCREEN_CSS = Asset("leaflet.fullscreen", "Control.FullScreen.css")
MEASURE_JS = Asset("leaflet-measure", "dist/leaflet-measure.js")
MEASURE_CSS = Asset("leaflet-measure", "dist/leaflet-measure.css")
CLUSTER_JS = Asset("leaflet.markercluster", "dist/leaflet.markercluster.js")
CLUSTER_CSS = Asset("leaflet.markercluster", "dist/MarkerCluster.css")
CLUSTER_DEFAULT_CSS = Asset("leaflet.markercluster", "dist/MarkerCluster.Default.css")
DRAW_JS = Asset("leaflet-draw", "dist/leaflet.draw.js")
DRAW_CSS = Asset("leaflet-draw", "dist/leaflet.draw.css")  # its sprites are in dist/images
SUPERCLUSTER_JS = Asset("supercluster", "dist/supercluster.min.js")
BASEMAP_JS = Asset(GENERATED, "basemap.js")

# What each folium class needs instead of its CDN links, by the folium class name.
OFFLINE: dict[str, tuple[list[tuple[str, Asset]], list[tuple[str, Asset]]]] = {
    "Map": ([("leaflet", LEAFLET_JS)], [("leaflet_css", LEAFLET_CSS)]),
    "AntPath": ([("antpath", ANT_PATH_JS)], []),
    "Fullscreen": (
        [("Control.Fullscreen.js", FULLSCREEN_JS)],
        [("Control.FullScreen.css", FULLSCREEN_CSS)],
    ),
    "MeasureControl": (
        [("leaflet_measure_js", MEASURE_JS)],
        [("leaflet_measure_css", MEASURE_CSS)],
    ),
    "MarkerCluster": (
        [("markerclusterjs", CLUSTER_JS)],
        [("markerclustercss", CLUSTER_CSS), ("markerclusterdefaultcss", CLUSTER_DEFAULT_CSS)],
    ),
    "Draw": ([("leaflet_draw_js", DRAW_JS)], [("leaflet_draw_css", DRAW_CSS)]),
}
OFFLINE["FastMarkerCluster"] = OFFLINE["MarkerCluster"]
OFFLINE["OfflineBase"] = ([("corridor_basemap", BASEMAP_JS)], [])
OFFLINE["Items"] = ([("antpath", ANT_PATH_JS)], [])
OFFLINE["EventPoints"] = ([("supercluster", SUPERCLUSTER_JS)], [])


def content(asset: Asset) -> bytes:
    """The asset's bytes: a file of an installed npm package, or made by Corridor."""
    if asset.package == GENERATED:
        from geo.mapview import basemap

        return basemap.script().encode("utf-8")
    if not asset.file.is_file():
        raise AssetsMissingError(
            f"map asset {asset.package}/{asset.path} is missing; {INSTALL_HINT}"
        )
    return asset.file.read_bytes()


SCRIPT_ORDER = (
    LEAFLET_JS,
    ANT_PATH_JS,
    FULLSCREEN_JS,
    MEASURE_JS,
    CLUSTER_JS,
    DRAW_JS,
    SUPERCLUSTER_JS,
    BASEMAP_JS,
)
STYLE_ORDER = (
    LEAFLET_CSS,
    FULLSCREEN_CSS,
    MEASURE_CSS,
    CLUSTER_CSS,
    CLUSTER_DEFAULT_CSS,
    DRAW_CSS,
)
STREAMLIT_STATIC = PROJECT_ROOT / "static" / "vendor"
"""Where the dashboard publishes the bundles: Streamlit serves static/ at /app/static/."""
STREAMLIT_URL = "../../app/static/vendor"
"""The same folder as a map inside streamlit-folium's iframe (at /component/…) reaches it."""
STREAMLIT_EVENTS = PROJECT_ROOT / "static" / "events"
"""Where the dashboard publishes a map's many events (geo.mapview.event_points.layer_data),
served beside it."""
STREAMLIT_EVENTS_URL = "../../app/static/events"
BUNDLE_JS = "corridor/bundle.js"
BUNDLE_CSS = "corridor/bundle.css"
LEAN_JS = "corridor/map.js"
LEAN_CSS = "corridor/map.css"
"""A bundle without the drawing tools and folium's marker clusters, which only the Import and
edit page's map uses: the dashboard's map loads 100 KB less script before it draws."""
LEAN_LEFT_OUT = (DRAW_JS, DRAW_CSS, CLUSTER_JS, CLUSTER_CSS, CLUSTER_DEFAULT_CSS)


def _style(asset: Asset) -> bytes:
    """A stylesheet with the images it uses inlined (so it works from any address)."""
    css = content(asset).decode("utf-8")
    return _inline_css_urls(css, asset.file.parent).encode("utf-8")


@cache
def bundle(assets: tuple[Asset, ...]) -> bytes:
    """Scripts joined in load order, or stylesheets joined with their images inlined."""
    if all(asset.path.endswith(".css") for asset in assets):
        return b"\n".join(_style(asset) for asset in assets)
    return b"\n;\n".join(content(asset) for asset in assets)


@cache
def bundle_uri(assets: tuple[Asset, ...]) -> str:
    styles = all(asset.path.endswith(".css") for asset in assets)
    kind = "text/css" if styles else "text/javascript"
    return f"data:{kind};base64,{base64.b64encode(bundle(assets)).decode('ascii')}"


def publish(folder: Path) -> None:
    """Write the full script and style bundles under `folder`, for a web server to serve."""
    _write_if_changed(folder / BUNDLE_JS, bundle(SCRIPT_ORDER))
    _write_if_changed(folder / BUNDLE_CSS, bundle(STYLE_ORDER))
    _write_if_changed(folder / LEAN_JS, bundle(_lean(SCRIPT_ORDER)))
    _write_if_changed(folder / LEAN_CSS, bundle(_lean(STYLE_ORDER)))


def _lean(order: tuple[Asset, ...]) -> tuple[Asset, ...]:
    return tuple(asset for asset in order if asset not in LEAN_LEFT_OUT)


def _write_if_changed(target: Path, body: bytes) -> None:
    if target.is_file() and target.read_bytes() == body:
        return
    with atomic_path(target) as temporary:  # (a name of its own: two servers may publish)
        temporary.write_bytes(body)


def _inline_css_urls(css: str, folder: Path) -> str:
    def inline(match: re.Match[str]) -> str:
        target = (folder / match[2]).resolve()
        if not target.is_file():
            return match[0]
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        encoded = base64.b64encode(target.read_bytes()).decode("ascii")
        return f"url('data:{kind};base64,{encoded}')"

    return _CSS_URL.sub(inline, css)


def needed(element: Any) -> tuple[list[Asset], list[Asset]]:
    """The scripts and stylesheets a folium element needs instead of its CDN links."""
    own: tuple[list[Asset], list[Asset]] | None = getattr(element, "offline_assets", None)
    if own is not None:  # an element that decides for itself
        return own
    for cls in type(element).__mro__:
        if cls.__name__ in OFFLINE:
            scripts, styles = OFFLINE[cls.__name__]
            return [asset for _, asset in scripts], [asset for _, asset in styles]
    if getattr(element, "default_js", None) or getattr(element, "default_css", None):
        raise AssetsMissingError(
            f"{type(element).__name__} would load its code from a CDN; add it to geo.mapview.assets"
        )
    return [], []


def make_tree_offline(root: Any, base_url: str | None = None) -> None:
    """Replace every CDN link in a folium tree by one script and one stylesheet on the root.

    With no `base_url` they are inlined as data: URIs holding just what the tree needs;
    otherwise they are bundles that `publish` wrote under `base_url`: the lean one unless the
    tree draws (leaflet-draw) or clusters markers with folium, then the full one.
    """
    scripts: set[Asset] = set()
    styles: set[Asset] = set()
    for element in _walk(root):
        wanted_scripts, wanted_styles = needed(element)
        scripts.update(wanted_scripts)
        styles.update(wanted_styles)
        if hasattr(element, "default_js"):
            element.default_js, element.default_css = [], []
    if base_url is None:
        script = bundle_uri(tuple(a for a in SCRIPT_ORDER if a in scripts))
        style = bundle_uri(tuple(a for a in STYLE_ORDER if a in styles))
    else:
        lean = not (scripts | styles) & set(LEAN_LEFT_OUT)
        script = f"{base_url}/{LEAN_JS if lean else BUNDLE_JS}"
        style = f"{base_url}/{LEAN_CSS if lean else BUNDLE_CSS}"
        figure: Any = root.get_root()
        figure.header.add_child(Text(f"<style>{leaflet_css()}</style>"), name="leaflet_css")
    root.default_js = [("corridor_bundle", script)]
    root.default_css = [("corridor_bundle_css", style)]


@cache
def leaflet_css() -> str:
    """Leaflet's own stylesheet, for a map that links its bundles.

    streamlit-folium adds a map's stylesheet links and runs its script at once; with Leaflet's
    rules in the page's head from the start, the map is laid out as it will be shown when its
    script measures it (the first view is framed clear of the controls without waiting).
    """
    return _style(LEAFLET_CSS).decode("utf-8").replace("</", "<\\/")


def _walk(element: Any) -> list[Any]:
    found = [element]
    for child in getattr(element, "_children", {}).values():
        found += _walk(child)
    return found
