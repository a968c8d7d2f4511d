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

from geo.errors import AssetsMissingError
from geo.settings import PROJECT_ROOT

GENERATED = "corridor"
"""The package name of assets Corridor makes itself (the offline base map as a script)."""

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
}
OFFLINE["FastMarkerCluster"] = OFFLINE["MarkerCluster"]
OFFLINE["OfflineBase"] = ([("corridor_basemap", BASEMAP_JS)], [])
OFFLINE["Items"] = ([("antpath", ANT_PATH_JS)], [])


def content(asset: Asset) -> bytes:
    """The asset's bytes: a file of an installed npm package, or made by Corridor."""
    if asset.package == GENERATED:
        from geo import basemap

        return basemap.script().encode("utf-8")
    if not asset.file.is_file():
        raise AssetsMissingError(
            f"map asset {asset.package}/{asset.path} is missing; {INSTALL_HINT}"
        )
    return asset.file.read_bytes()


@cache
def data_uri(asset: Asset) -> str:
    """The asset as a data: URI; a stylesheet has its own images inlined too."""
    body = content(asset)
    if asset.path.endswith(".css"):
        body = _inline_css_urls(body.decode("utf-8"), asset.file.parent).encode("utf-8")
    kind = "text/css" if asset.path.endswith(".css") else "text/javascript"
    return f"data:{kind};base64,{base64.b64encode(body).decode('ascii')}"


def publish(folder: Path) -> None:
    """Copy every asset (and the images its stylesheets use) under `folder`, for serving."""
    for scripts, styles in OFFLINE.values():
        for _, asset in (*scripts, *styles):
            _write_if_changed(folder / asset.relative, content(asset))
            if asset.path.endswith(".css"):
                for image in _css_images(asset):
                    relative = image.relative_to(MODULES)
                    _write_if_changed(folder / relative, image.read_bytes())


def _css_images(asset: Asset) -> list[Path]:
    css = content(asset).decode("utf-8")
    found = [(asset.file.parent / match[2]).resolve() for match in _CSS_URL.finditer(css)]
    return [path for path in found if path.is_file()]


def _write_if_changed(target: Path, body: bytes) -> None:
    if target.is_file() and target.read_bytes() == body:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_bytes(body)
    temporary.replace(target)


def _inline_css_urls(css: str, folder: Path) -> str:
    def inline(match: re.Match[str]) -> str:
        target = (folder / match[2]).resolve()
        if not target.is_file():
            return match[0]
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        encoded = base64.b64encode(target.read_bytes()).decode("ascii")
        return f"url('data:{kind};base64,{encoded}')"

    return _CSS_URL.sub(inline, css)


def make_offline(element: Any, base_url: str | None = None) -> Any:
    """Point a folium element's JS and CSS at local copies instead of CDNs.

    With no `base_url` they are inlined as data: URIs; otherwise they are URLs under it (files
    that `publish` wrote).
    """

    def locate(asset: Asset) -> str:
        return data_uri(asset) if base_url is None else f"{base_url}/{asset.relative}"

    for cls in type(element).__mro__:
        if cls.__name__ in OFFLINE:
            scripts, styles = OFFLINE[cls.__name__]
            element.default_js = [(name, locate(asset)) for name, asset in scripts]
            element.default_css = [(name, locate(asset)) for name, asset in styles]
            return element
    if getattr(element, "default_js", None) or getattr(element, "default_css", None):
        raise AssetsMissingError(
            f"{type(element).__name__} would load its code from a CDN; add it to geo.assets"
        )
    return element


def make_tree_offline(root: Any, base_url: str | None = None) -> None:
    """make_offline on an element and everything below it."""
    make_offline(root, base_url)
    for child in getattr(root, "_children", {}).values():
        make_tree_offline(child, base_url)
