"""The data a snapshot shows, as files: GeoJSON (RFC 7946), a GeoPackage and a zip of CSVs
(times in ISO 8601, formula cells made inert)."""

from __future__ import annotations

import io
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import geopandas as gpd
import pyogrio

from geo import mapview, timeline
from geo._geojson import rfc7946
from geo._spreadsheet import csv_text
from geo.errors import ExportError
from geo.event_table import picked
from geo.records import CONVOY_COUNTS

if TYPE_CHECKING:
    from geo.export import Snapshot


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
        for event in picked(scenario.events, records.events.tolist()):
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
            chosen = picked(scenario.events, records.events.tolist())
            events = [_event_properties(event) for event in chosen]
            archive.writestr("events.csv", csv_text(events, _EVENT_COLUMNS))
    return buffer.getvalue()
