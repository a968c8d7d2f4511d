"""The data a snapshot shows, as files: GeoJSON (RFC 7946), a GeoPackage and a zip of CSVs
(times in ISO 8601, formula cells made inert, HXL hashtags on request) with its sources."""

from __future__ import annotations

import io
import tempfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import geopandas as gpd
import pyogrio

from geo import mapview, timeline
from geo._geojson import rfc7946
from geo._spreadsheet import csv_text
from geo.errors import ExportError
from geo.event_table import picked
from geo.hxl import TAGS
from geo.records import CONVOY_COUNTS, Place, Source
from geo.snapshot import Snapshot


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


CONVOY_TAGS: Mapping[str, str] = {
    **TAGS["convoys"], "state": "#x_convoy+state", "origin_name": "#loc+origin+name",
    "destination_name": "#loc+destination+name", "depart_utc": "#date+start+utc",
    "arrive_utc": "#date+end+utc", "risk": "#x_risk+level", "alert": "#x_risk+alert",
}  # fmt: skip
"""convoys.csv's HXL hashtags: the stored fields' (`geo.hxl.TAGS`), the state at the moment,
the places' names, the times in UTC and the route analysis's risk."""
FIGURE_TAGS: Mapping[str, str] = {
    **TAGS["figures"], "low": "#affected+ind+x_low", "high": "#affected+ind+x_high",
    "qualifier": "#meta+qualifier",
}  # fmt: skip
"""figures.csv's HXL hashtags: the stored fields' and the count's low and high ends."""
EVENT_TAGS: Mapping[str, str] = TAGS["events"]
"""events.csv's HXL hashtags (every column is a stored field)."""
PLACE_TAGS: Mapping[str, str] = TAGS["places"]
"""places.csv's HXL hashtags (every column is a stored field)."""
SOURCE_TAGS: Mapping[str, str] = {
    "id": "#meta+source+id", "title": "#meta+source+title",
    "publisher": "#meta+source+publisher", "published": "#date+published",
    "url": "#meta+source+url", "licence": "#meta+source+licence", "note": "#meta+source+note",
}  # fmt: skip
"""sources.csv's HXL hashtags (a source is metadata: `#meta`, its date `#date+published`)."""

_PLACE_COLUMNS = ("id", "name", "aliases", "latitude", "longitude", "admin1", "country_code",
                  "kind", "precision", "source", "quote")  # fmt: skip
"""places.csv's header: the places shown, with their coordinates (WGS 84)."""
_SOURCE_COLUMNS = ("id", "title", "publisher", "published", "url", "licence", "note")
"""sources.csv's header: the scenario's sources that the tables cite."""
README = "README.txt"
"""The zip's text file naming the data's sources, their licences and the disclaimer."""


@dataclass(frozen=True)
class _Table:
    """One CSV of the zip: its name, rows, header and HXL hashtags by column."""

    name: str
    rows: list[dict[str, Any]]
    columns: tuple[str, ...]
    tags: Mapping[str, str]
    cited: frozenset[str]

    def text(self, *, hxl: bool) -> str:
        hashtags = [self.tags[column] for column in self.columns] if hxl else None
        return csv_text(self.rows, self.columns, hashtags=hashtags)


def csv_zip(snapshot: Snapshot) -> bytes:
    """A zip of what is shown as tables (convoys, figures, events, places), the sources they
    cite and README.txt; with `snapshot.hxl`, an HXL hashtag row under every header."""
    tables = _tables(snapshot)
    cited = frozenset[str]().union(*(table.cited for table in tables))
    sources = [source for source in snapshot.scenario.sources if source.id in cited]
    tables.append(_sources_table(sources))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for table in tables:
            archive.writestr(table.name, table.text(hxl=snapshot.hxl))
        archive.writestr(README, readme(snapshot, [table.name for table in tables], sources))
    return buffer.getvalue()


def _tables(snapshot: Snapshot) -> list[_Table]:
    """The tables of the layers switched on, in the zip's order."""
    layers = snapshot.view.layers
    records = mapview.shown(snapshot.scenario, snapshot.view)
    tables = []
    if layers & {"routes", "convoys"}:
        tables.append(_convoys_table(snapshot, records.convoys))
    if "figures" in layers:
        tables.append(_figures_table(records.figures))
    if "events" in layers and len(records.events):
        tables.append(_events_table(picked(snapshot.scenario.events, records.events.tolist())))
    if "places" in layers:
        tables.append(_places_table(records.places))
    return tables


def _cited(records: Iterable[Any]) -> frozenset[str]:
    return frozenset(source for record in records for source in record.source)


def _convoys_table(snapshot: Snapshot, items: list[Any]) -> _Table:
    scenario = snapshot.scenario
    risks = mapview.alerts(scenario, snapshot.view)
    names = {place.id: place.name for place in scenario.places}
    rows = [_convoy_row(item, names, scenario.timezone, risks) for item in items]
    columns = _CONVOY_COLUMNS + (("risk", "alert") if risks is not None else ())
    cited = _cited(item.convoy for item in items)
    return _Table("convoys.csv", rows, columns, CONVOY_TAGS, cited)


def _figures_table(figures: list[Any]) -> _Table:
    rows = [_figure_properties(figure) for figure in figures]
    return _Table("figures.csv", rows, _FIGURE_COLUMNS, FIGURE_TAGS, _cited(figures))


def _events_table(events: list[Any]) -> _Table:
    rows = [_event_properties(event) for event in events]
    return _Table("events.csv", rows, _EVENT_COLUMNS, EVENT_TAGS, _cited(events))


def _places_table(places: list[Place]) -> _Table:
    rows = [_place_row(place) for place in places]
    return _Table("places.csv", rows, _PLACE_COLUMNS, PLACE_TAGS, _cited(places))


def _place_row(place: Place) -> dict[str, Any]:
    return _place_properties(place) | {
        "aliases": ";".join(place.aliases), "latitude": place.latitude,
        "longitude": place.longitude, "quote": place.quote,
    }  # fmt: skip


def _sources_table(sources: Sequence[Source]) -> _Table:
    rows = [_source_row(source) for source in sources]
    return _Table("sources.csv", rows, _SOURCE_COLUMNS, SOURCE_TAGS, frozenset())


def _source_row(source: Source) -> dict[str, Any]:
    return {name: getattr(source, name) for name in _SOURCE_COLUMNS} | {
        "published": source.published.isoformat()
    }  # fmt: skip


def readme(snapshot: Snapshot, files: Sequence[str], sources: Sequence[Source]) -> str:
    """README.txt: what the tables are, the sources they cite with their licences as the
    scenario gives them, and the scenario's disclaimer."""
    scenario, at = snapshot.scenario, snapshot.view.at
    made = snapshot.made.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    hashtags = ", then a row of HXL hashtags (hxlstandard.org)" if snapshot.hxl else ""
    lines = [
        f"{scenario.title} ({scenario.id})",
        f"The data a Corridor map showed at {_local_iso(at, scenario.timezone)} "
        f"({scenario.timezone}), {_iso(at)}; exported on {made}.",
        "",
        f"Files: {', '.join(files)}. Each CSV has a header row{hashtags}.",
        "Times are ISO 8601. A text cell that would start with = + - @ has a ' put before it,",
        "so that a spreadsheet shows it as text.",
        "",
        "Sources, with their licences as the scenario gives them (also in sources.csv):",
        *(_source_line(source) for source in sources),
        "",
        "Disclaimer: " + (scenario.disclaimer.strip() or "the scenario gives none."),
    ]
    return "\n".join(lines) + "\n"


def _source_line(source: Source) -> str:
    facts = [f"- {source.title} ({source.publisher}, {source.published.isoformat()})."]
    if source.url:
        facts.append(f"{source.url} ·")
    facts.append(f"Licence: {source.licence or 'not given'}.")
    return " ".join(facts)
