"""The offline vector base map: Natural Earth outlines and GeoNames towns in data/basemap."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from geo.errors import AssetsMissingError
from geo.safe_html import esc
from geo.settings import DATA_DIR

BASEMAP_DIR = DATA_DIR / "basemap"
FILES = ("countries", "governorates", "towns")
ATTRIBUTION = "Outlines: Natural Earth (public domain) · Place names © GeoNames, CC BY 4.0"


@cache
def layers() -> dict[str, dict[str, Any]]:
    """Each base map file as a GeoJSON FeatureCollection (read once per process)."""
    found = {}
    for name in FILES:
        path = BASEMAP_DIR / f"{name}.geojson"
        if not path.is_file():
            raise AssetsMissingError(
                f"{path} is missing; rebuild it with `.venv/bin/python scripts/build_basemap.py`"
            )
        found[name] = json.loads(path.read_text(encoding="utf-8"))
    return found


GLOBAL = "CORRIDOR_BASEMAP"


@cache
def script() -> str:
    """The base map as a script defining window.CORRIDOR_BASEMAP (loaded once per page)."""
    data = layers()
    towns = [
        [
            f["geometry"]["coordinates"][1],
            f["geometry"]["coordinates"][0],
            esc(f["properties"]["name"]),
            esc(f["properties"].get("name_ar", "")),
        ]
        for f in data["towns"]["features"]
    ]
    payload = {"countries": data["countries"], "governorates": data["governorates"], "towns": towns}
    text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    safe = text.replace("</", "<\\/")  # no "</script>" can end the script early
    return f"window.{GLOBAL} = {safe};\n"
