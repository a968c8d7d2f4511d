"""A map view in a link's query and back: what a copied dashboard URL opens on."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from geo.mapview.place_labels import LABEL_LANGUAGES, LabelLanguage
from geo.mapview.view import ALL_LAYERS, BASES, DEFAULT_LAYERS, MapView
from geo.messages import LANGUAGES

MIN_ZOOM, MAX_ZOOM = 4, 18
"""The zooms the map allows (a link asking for another is not followed)."""


@dataclass(frozen=True)
class Link:
    """What a link asks for; each part it leaves out or gets wrong is None (or the default)."""

    at: datetime | None = None
    layers: frozenset[str] = frozenset(DEFAULT_LAYERS)
    base: str = "offline"
    convoy: str | None = None
    center: tuple[float, float] | None = None
    zoom: float | None = None
    language: str = "en"
    labels: str = LabelLanguage.ENGLISH.value


def read(params: Mapping[str, str], convoys: Iterable[str] = ()) -> Link:
    """The link's view from its query (`convoys`: the ids a `convoy` may name)."""
    wanted = params.get("layers")
    layers = set(ALL_LAYERS) & set(wanted.split(",")) if wanted is not None else DEFAULT_LAYERS
    convoy = params.get("convoy")
    labels = params.get("labels")
    return Link(
        at=moment(params.get("at")),
        layers=frozenset(layers),
        base=params["base"] if params.get("base") in BASES else "offline",
        convoy=convoy if convoy in set(convoys) else None,
        center=center(params.get("center")),
        zoom=zoom(params.get("zoom")),
        language=params["lang"] if params.get("lang") in LANGUAGES else "en",
        labels=labels if labels in LABEL_LANGUAGES else "en",
    )


def query(
    view: MapView,
    *,
    center: tuple[float, float] | None = None,
    zoom: float | None = None,
    language: str = "en",
) -> dict[str, str]:
    """The query of a link to `view` seen at `center` and `zoom` (what `read` reads back)."""
    params = {
        "at": view.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ"),
        "layers": ",".join(key for key in ALL_LAYERS if key in view.layers),
        "base": view.base,
    }
    if center:
        params["center"] = f"{center[0]:.5f},{center[1]:.5f}"
    if zoom is not None:
        params["zoom"] = f"{zoom:g}"
    if view.selected:
        params["convoy"] = view.selected
    if language != "en":
        params["lang"] = language
    if view.labels is not LabelLanguage.ENGLISH:
        params["labels"] = view.labels.value
    return params


def moment(text: str | None) -> datetime | None:
    """An ISO 8601 time with its offset; None for none, nonsense or a time without an offset."""
    try:
        found = datetime.fromisoformat(text) if text else None
    except ValueError:
        return None
    return found if found and found.tzinfo else None


def center(text: str | None) -> tuple[float, float] | None:
    """ "lat,lon" in degrees; None unless both are numbers on the globe."""
    try:
        lat, lon = (float(part) for part in (text or "").split(","))
    except ValueError:
        return None
    return (lat, lon) if -90 <= lat <= 90 and -180 <= lon <= 180 else None


def zoom(text: str | None) -> float | None:
    """A zoom the map allows (MIN_ZOOM to MAX_ZOOM, halves included); else None."""
    try:
        found = float(text) if text else None
    except ValueError:
        return None
    return found if found is not None and MIN_ZOOM <= found <= MAX_ZOOM else None
