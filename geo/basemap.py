"""The offline vector base map: Natural Earth outlines and GeoNames towns in data/basemap."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from geo.errors import AssetsMissingError
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
