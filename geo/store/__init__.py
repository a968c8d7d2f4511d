"""Workspaces: one store interface (`Workspace`), a GeoPackage and a PostGIS backend."""

from __future__ import annotations

from pathlib import Path

from geo.store.base import LOADED_KEPT, LOCK_SECONDS, Notifications, Version, Workspace
from geo.store.geocode_cache import GeocodeCache
from geo.store.geopackage import GeoPackageWorkspace
from geo.store.layout import (
    CRS,
    FID,
    GEOCODE_CACHE_LAYER,
    KINDS_BY_NAME,
    LAYERS,
    POSITION_FIELDS,
    POSITIONS_LAYER,
    SCENARIO_ID,
    SCENARIOS_LAYER,
    TABLES,
    TIME_FIELDS,
    Layer,
    LayerInfo,
    Window,
)
from geo.store.positions import add_positions, positions

URL_SCHEMES = ("postgresql://", "postgres://")
"""A workspace named by a URL of these is in PostGIS (`geo.store.postgis`)."""

__all__ = [
    "CRS",
    "FID",
    "GEOCODE_CACHE_LAYER",
    "KINDS_BY_NAME",
    "LAYERS",
    "LOADED_KEPT",
    "LOCK_SECONDS",
    "POSITIONS_LAYER",
    "POSITION_FIELDS",
    "SCENARIOS_LAYER",
    "SCENARIO_ID",
    "TABLES",
    "TIME_FIELDS",
    "URL_SCHEMES",
    "GeoPackageWorkspace",
    "GeocodeCache",
    "Layer",
    "LayerInfo",
    "Notifications",
    "Version",
    "Window",
    "Workspace",
    "add_positions",
    "copy_workspace",
    "holds_workspace",
    "open_workspace",
    "positions",
]


def open_workspace(location: Path | str, *, lock_seconds: float = LOCK_SECONDS) -> Workspace:
    """The workspace at `location`: a `postgresql://` URL (text) is a PostGIS schema, anything
    else a GeoPackage's path (the only place one is told from the other)."""
    if isinstance(location, str) and location.startswith(URL_SCHEMES):
        from geo.store.postgis import PostgisWorkspace  # (psycopg loaded only when needed)

        return PostgisWorkspace(location, lock_seconds=lock_seconds)
    return GeoPackageWorkspace(location, lock_seconds=lock_seconds)


def copy_workspace(source: Path | str, target: Path | str, *, replace: bool = False) -> list[str]:
    """Copy every layer of a workspace, GeoPackage ↔ PostGIS (or PostGIS → PostGIS), in one
    transaction or one atomic file; the layers copied, each with its row count."""
    layers = open_workspace(source).export_layers()
    return open_workspace(target).import_layers(layers, replace=replace)


def holds_workspace(location: Path | str) -> bool:
    """Whether a GeoPackage path or a PostGIS URL holds a workspace already."""
    return open_workspace(location).exists()
