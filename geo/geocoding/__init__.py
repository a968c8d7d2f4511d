"""Place names to places: `OfflineGeocoder` (geopy's interface) over `default()`, and `Fallback`."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from geo.geocoding.gazetteer import Gazetteer, default
    from geo.geocoding.offline import OfflineGeocoder, candidates, nearest_entries
    from geo.geocoding.online import Fallback, nominatim

__all__ = [
    "Fallback",
    "Gazetteer",
    "OfflineGeocoder",
    "candidates",
    "default",
    "nearest_entries",
    "nominatim",
]

_MODULES = {
    "Gazetteer": "gazetteer",
    "default": "gazetteer",
    "OfflineGeocoder": "offline",
    "candidates": "offline",
    "nearest_entries": "offline",
    "Fallback": "online",
    "nominatim": "online",
}


def __getattr__(name: str) -> Any:
    """An export, imported when first asked for: `geo.geocoding.names` alone loads no geopy."""
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_MODULES[name]}"), name)
    globals()[name] = value
    return value
