"""Leaflet and its plugins, installed from the npm registry and inlined into maps: no CDN, ever."""

from __future__ import annotations

import base64
import mimetypes
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from geo.errors import AssetsMissingError
from geo.settings import PROJECT_ROOT

MODULES = PROJECT_ROOT / "assets" / "node_modules"
INSTALL_HINT = "run `make install` (it runs `npm ci --prefix assets`)"
_CSS_URL = re.compile(r"""url\(\s*(['"]?)(?!data:|#|https?:)([^'")]+)\1\s*\)""")


@dataclass(frozen=True)
class Asset:
    """One file of an npm package, pinned in assets/package.json."""

    package: str
    path: str

    @property
    def file(self) -> Path:
        return MODULES / self.package / self.path


LEAFLET_JS = Asset("leaflet", "dist/leaflet.js")
LEAFLET_CSS = Asset("leaflet", "dist/leaflet.css")
JQUERY_JS = Asset("jquery", "dist/jquery.min.js")  # folium's Popup uses jQuery
ANT_PATH_JS = Asset("leaflet-ant-path", "dist/leaflet-ant-path.js")
FULLSCREEN_JS = Asset("leaflet.fullscreen", "Control.FullScreen.js")
FULLSCREEN_CSS = Asset("leaflet.fullscreen", "Control.FullScreen.css")
MEASURE_JS = Asset("leaflet-measure", "dist/leaflet-measure.js")
MEASURE_CSS = Asset("leaflet-measure", "dist/leaflet-measure.css")
CLUSTER_JS = Asset("leaflet.markercluster", "dist/leaflet.markercluster.js")
CLUSTER_CSS = Asset("leaflet.markercluster", "dist/MarkerCluster.css")
CLUSTER_DEFAULT_CSS = Asset("leaflet.markercluster", "dist/MarkerCluster.Default.css")

# What each folium class needs instead of its CDN links, by the folium class name.
OFFLINE: dict[str, tuple[list[tuple[str, Asset]], list[tuple[str, Asset]]]] = {
    "Map": ([("leaflet", LEAFLET_JS), ("jquery", JQUERY_JS)], [("leaflet_css", LEAFLET_CSS)]),
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
}
OFFLINE["FastMarkerCluster"] = OFFLINE["MarkerCluster"]


@cache
def data_uri(asset: Asset) -> str:
    """The file as a data: URI; a stylesheet has its own images inlined too."""
    if not asset.file.is_file():
        raise AssetsMissingError(
            f"map asset {asset.package}/{asset.path} is missing; {INSTALL_HINT}"
        )
    content = asset.file.read_bytes()
    if asset.path.endswith(".css"):
        content = _inline_css_urls(content.decode("utf-8"), asset.file.parent).encode("utf-8")
    kind = "text/css" if asset.path.endswith(".css") else "text/javascript"
    return f"data:{kind};base64,{base64.b64encode(content).decode('ascii')}"


def _inline_css_urls(css: str, folder: Path) -> str:
    def inline(match: re.Match[str]) -> str:
        target = (folder / match[2]).resolve()
        if not target.is_file():
            return match[0]
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        encoded = base64.b64encode(target.read_bytes()).decode("ascii")
        return f"url('data:{kind};base64,{encoded}')"

    return _CSS_URL.sub(inline, css)


def make_offline(element: Any) -> Any:
    """Point a folium element's JS and CSS at inlined local copies instead of CDNs."""
    for cls in type(element).__mro__:
        if cls.__name__ in OFFLINE:
            scripts, styles = OFFLINE[cls.__name__]
            element.default_js = [(name, data_uri(asset)) for name, asset in scripts]
            element.default_css = [(name, data_uri(asset)) for name, asset in styles]
            return element
    if getattr(element, "default_js", None) or getattr(element, "default_css", None):
        raise AssetsMissingError(
            f"{type(element).__name__} would load its code from a CDN; add it to geo.assets"
        )
    return element


def make_tree_offline(root: Any) -> None:
    """make_offline on an element and everything below it."""
    make_offline(root)
    for child in getattr(root, "_children", {}).values():
        make_tree_offline(child)
