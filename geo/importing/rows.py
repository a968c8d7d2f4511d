"""A file's rows filled in and checked against the scenario: defaults, place names, times, ids."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from geo import _schema as s
from geo import event_table
from geo._fields import Spot, is_blank
from geo.errors import ProblemLog
from geo.geocoding import names
from geo.home import scenario_homes
from geo.importing.options import FIGURE_PLACE_CELLS, MOMENT_FIELDS, ORDER, PLACE_FIELDS, Options
from geo.records import PlaceKind, Scenario


class Context:
    """What rows of one import are checked against, and the places their names created."""

    def __init__(
        self, scenario: Scenario, source_id: str, file: str, options: Options, geocoder: Any
    ) -> None:
        self.scenario, self.source_id, self.file, self.options = scenario, source_id, file, options
        self._geocoder = geocoder
        self.ids: dict[str, set[str]] = {
            layer: set(event_table.ids(getattr(scenario, layer))) for layer in ORDER
        }  # (any layer's records: `ids` reads an EventTable's column, others' records)
        self.ids["sources"] = {r.id for r in scenario.sources} | {source_id}
        self.existing = {layer: set(ids) for layer, ids in self.ids.items()}
        self.by_name = _place_names(scenario)
        self.new_places: list[Any] = []
        self.convoy_ends = {c.id: (c.origin, c.destination) for c in scenario.convoys}
        self.legs: dict[str, int] = {}
        self.located: dict[int, tuple[str, str]] = {}
        """Country and governorate of the place rows given by coordinates alone, by the id of
        the row's raw record (`locate`)."""
        self.localised = False
        """Whether a time without an offset was read in the scenario's time zone (said once)."""
        self.numbers: dict[tuple[str, str], int] = {}
        """The last number given to an id made from each (layer, name)."""
        for route in scenario.routes:
            self.legs[route.convoy] = max(self.legs.get(route.convoy, 0), route.leg)

    @property
    def geocoder(self) -> Any:
        if self._geocoder is None:
            from geo.geocoding import OfflineGeocoder

            homes = scenario_homes(self.scenario)
            self._geocoder = OfflineGeocoder(country_bias=homes[0] if homes else None)
        return self._geocoder

    def known(self) -> s.Known:
        return s.Known(
            sources=self.ids["sources"], places=self.ids["places"], convoys=self.ids["convoys"]
        )

    def added(self, layer: str, records: list[Any]) -> None:
        self.ids[layer] |= {record.id for record in records}
        if layer == "convoys":
            self.convoy_ends.update({c.id: (c.origin, c.destination) for c in records})
        if layer == "places":
            for place in records:
                for written in (place.name, *place.aliases):
                    self.by_name.setdefault(names.normalise(written), place.id)

    def locate(self, raws: list[s.RawRecord]) -> None:
        """Find at once the nearest gazetteer place of every place row that has coordinates but
        no country code (one by one, 300,000 rows took 47 s); `fill` then takes them from here.
        """
        from geo.geocoding import OfflineGeocoder, nearest_entries

        offline = isinstance(self.geocoder, OfflineGeocoder)
        if "country_code" in self.options.defaults or not offline:
            return
        kept, points = [], []
        for raw in raws:
            if not is_blank(raw.cells.get("country_code")):
                continue
            cells = {"latitude": raw.cells.get("latitude"), "longitude": raw.cells.get("longitude")}
            if raw.spot.where in self.options.swap:
                cells["latitude"], cells["longitude"] = cells["longitude"], cells["latitude"]
            point = _point(cells)
            if point is not None:
                kept.append(id(raw))
                points.append(point)
        if not points:
            return
        latitudes, longitudes = zip(*points, strict=True)
        rows = nearest_entries(self.geocoder, latitudes, longitudes)
        places = self.geocoder.gazetteer
        for key, row in zip(kept, rows.tolist(), strict=True):
            if row >= 0:
                self.located[key] = (places.country_codes[row], places.admin1[row])

    def fill(self, layer: str, raw: s.RawRecord, log: ProblemLog) -> s.RawRecord | None:
        """The row with defaults and resolved place names; None (reported) when it cannot be."""
        cells = {k: v for k, v in raw.cells.items() if not is_blank(v)}
        for key, value in self.options.defaults.items():
            cells.setdefault(key, value)
        cells.setdefault("source", self.source_id)
        if raw.spot.where in self.options.swap and {"latitude", "longitude"} <= set(cells):
            cells["latitude"], cells["longitude"] = cells["longitude"], cells["latitude"]
        if layer == "places" and "country_code" not in cells and id(raw) in self.located:
            cells["country_code"], admin1 = self.located[id(raw)]  # (see `locate`)
            cells.setdefault("admin1", admin1)
        self._localise(layer, cells, raw.spot, log)
        filler = getattr(self, f"_fill_{layer}", None)
        if filler is not None and not filler(cells, raw.spot, log):
            return None
        for name in PLACE_FIELDS.get(layer, ()):
            if name in cells and not self._resolve_places(cells, name, raw.spot, log):
                return None
        if "id" not in cells:
            cells["id"] = self._new_id(layer, cells)
        if not isinstance(cells["id"], str | int):
            log.error(raw.spot.file, raw.spot.where, "id", "a text or a whole number", cells["id"])
            return None
        if cells["id"] in self.existing.get(layer, set()) and layer != "events":
            expected = f"an id not already in the scenario's {layer} (nothing is overwritten)"
            log.error(raw.spot.file, raw.spot.where, "id", expected, cells["id"])
            return None
        return s.RawRecord(raw.spot, cells, raw.geometry)

    def _localise(self, layer: str, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> None:
        """Times a file gives without a UTC offset (a spreadsheet's dates: 2025-05-01) read in
        the scenario's time zone, said once per file."""
        for name in MOMENT_FIELDS.get(layer, ()):
            value = cells.get(name)
            local = _local_moment(value, self.scenario.timezone)
            if local is None:
                continue
            cells[name] = local
            if not self.localised:
                self.localised = True
                expected = "times with a UTC offset, such as 2016-12-15T14:30+02:00"
                got = f"{value!r} and others without one: read in {self.scenario.timezone}"
                log.warn(spot.file, spot.where, name, expected, got)

    def _fill_places(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        cells.setdefault("precision", "approximate")
        has_point = "latitude" in cells and "longitude" in cells
        nearest = _nearest(self.geocoder, cells) if "country_code" not in cells else None
        if has_point and nearest is not None:
            cells["country_code"] = nearest.raw["country_code"]
            cells.setdefault("admin1", nearest.raw["admin1"])
        if not has_point and "name" in cells:
            found = self.geocoder.geocode(
                str(cells["name"]), country_codes=cells.get("country_code")
            )
            if found is None:
                expected = "coordinates, or a name the offline gazetteer knows"
                log.error(spot.file, spot.where, "name", expected, cells["name"])
                return False
            _take_location(cells, found)
            log.warn(spot.file, spot.where, "latitude", _geocoded(cells["name"], found), None)
        cells.setdefault("kind", PlaceKind.POINT.value)
        return True

    def _fill_convoys(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        cells.setdefault("time_precision", "approximate")
        cells.setdefault("confidence", "low")
        cells.setdefault("quote", f"{spot.where} of {self.file}")
        if "label" not in cells and "id" in cells:
            cells["label"] = str(cells["id"])
        return True

    def _fill_routes(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        convoy = str(cells.get("convoy", ""))
        origin, destination = self.convoy_ends.get(convoy, ("", ""))
        if origin:
            cells.setdefault("from", origin)
        if destination:
            cells.setdefault("to", destination)
        if convoy and "leg" not in cells:
            self.legs[convoy] = self.legs.get(convoy, 0) + 1
            cells["leg"] = str(self.legs[convoy])
        traced = spot.where.startswith(("track", "route #"))
        cells.setdefault("precision", "traced" if traced else "approximate")
        return True

    def _fill_zones(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        cells.setdefault("precision", "approximate")
        cells.setdefault("name", f"Zone from {self.file}, {spot.where}")
        return True

    def _fill_figures(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        cells.setdefault("quote", f"{spot.where} of {self.file}")
        where = {key: cells.pop(key) for key in FIGURE_PLACE_CELLS if key in cells}
        point = _point(where)
        given = [key for key in ("latitude", "longitude") if key in where]
        if given and point is None:
            expected = "the point of the figure's place in degrees (latitude, longitude)"
            log.error(spot.file, spot.where, given[0], expected, where[given[0]])
            return False
        text = str(cells.get("place", "")).strip()
        if point is not None and text and self._known_place(text) is None:
            cells["place"] = self._place_at(text, point, where, spot)
        return True

    def _known_place(self, text: str) -> str | None:
        if text in self.ids["places"]:
            return text
        return self.by_name.get(names.normalise(text))

    def _place_at(
        self, text: str, point: tuple[float, float], where: dict[str, Any], spot: Spot
    ) -> str:
        """A new place named `text` at the point its row gives (an IOM DTM table's location);
        its country and province from the row, or else from the nearest gazetteer place."""
        cells: dict[str, Any] = {"name": text, "source": self.source_id, "kind": "point"}
        cells["latitude"], cells["longitude"] = point
        cells.update({k: v for k, v in where.items() if k in ("admin1", "country_code")})
        nearest = _nearest(self.geocoder, cells) if "country_code" not in cells else None
        if nearest is not None:
            cells["country_code"] = nearest.raw["country_code"]
            cells.setdefault("admin1", nearest.raw["admin1"])
        cells["precision"] = "approximate"
        cells["quote"] = f"{text!r} at {point[0]}, {point[1]} in {self.file}, {spot.where}"
        cells["id"] = self._new_id("places", cells)
        built = s.build(s.PLACES, [s.RawRecord(spot, cells)], self.known(), ProblemLog())
        if not built:
            return text  # (then the name is resolved as any other: geocoded, or refused)
        self.new_places += built
        self.added("places", built)
        return str(built[0].id)

    def _resolve_places(
        self, cells: dict[str, Any], name: str, spot: Spot, log: ProblemLog
    ) -> bool:
        written = [part.strip() for part in str(cells[name]).split(";") if part.strip()]
        resolved = []
        for text in written:
            place_id = self._place_id(text, spot)
            if place_id is None:
                expected = "a place id, or a place name the offline gazetteer knows"
                log.error(spot.file, spot.where, name, expected, text)
                return False
            resolved.append(place_id)
        cells[name] = ";".join(resolved)
        return True

    def _place_id(self, text: str, spot: Spot) -> str | None:
        if text in self.ids["places"]:
            return text
        key = names.normalise(text)
        if key in self.by_name:
            return self.by_name[key]
        found = self.geocoder.geocode(text)
        if found is None:
            return None
        cells: dict[str, Any] = {"name": text, "source": self.source_id}
        _take_location(cells, found)
        cells["quote"] = f"{text!r} in {self.file}, {spot.where}; " + _geocoded(text, found)
        cells["id"] = self._new_id("places", cells)
        place_log = ProblemLog()
        built = s.build(s.PLACES, [s.RawRecord(spot, cells)], self.known(), place_log)
        if not built:
            return None
        self.new_places += built
        self.added("places", built)
        return str(built[0].id)

    def _new_id(self, layer: str, cells: dict[str, Any]) -> str:
        base = slug(str(cells.get("name") or cells.get("label") or layer.rstrip("s")))
        number = self.numbers.get((layer, base), 1)
        candidate, number = unique(base, self.ids[layer], number)
        self.numbers[layer, base] = number
        self.ids[layer].add(candidate)
        return candidate


def _place_names(scenario: Scenario) -> dict[str, str]:
    found: dict[str, str] = {}
    for place in scenario.places:
        for written in (place.id, place.name, *place.aliases):
            found.setdefault(names.normalise(written), place.id)
    return found


def _take_location(cells: dict[str, Any], location: Any) -> None:
    raw = location.raw
    cells["latitude"], cells["longitude"] = location.latitude, location.longitude
    cells.setdefault("country_code", raw.get("country_code") or "")
    cells.setdefault("admin1", raw.get("admin1") or "")
    kind = raw.get("kind") if raw.get("kind") in set(PlaceKind) else PlaceKind.POINT.value
    cells.setdefault("kind", kind)
    precise = raw.get("precision") == "exact" and not raw.get("uncertain")
    cells["precision"] = "centroid" if precise else "approximate"


def _local_moment(value: object, zone: str) -> str | None:
    """A date or date-time written without a UTC offset, as one in `zone` (None: any other)."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime.combine(value, time())
    elif isinstance(value, str) and value.strip():
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    else:
        return None
    if parsed.tzinfo is not None:
        return None
    try:
        return parsed.replace(tzinfo=ZoneInfo(zone)).isoformat()
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _nearest(geocoder: Any, cells: dict[str, Any]) -> Any:
    point = _point(cells)
    return None if point is None else geocoder.reverse(point)


def _point(cells: dict[str, Any]) -> tuple[float, float] | None:
    """The row's (latitude, longitude) when both are numbers on the globe."""
    try:
        point = (float(cells["latitude"]), float(cells["longitude"]))
    except (KeyError, TypeError, ValueError):
        return None
    if not (-90 <= point[0] <= 90 and -180 <= point[1] <= 180):
        return None
    return point


def _geocoded(name: object, location: Any) -> str:
    raw = location.raw
    text = (
        f"coordinates, so {name!r} was geocoded offline: {raw['name']} ({raw['id']}), "
        f"{location.latitude:.5f}, {location.longitude:.5f}, score {raw['score']:.2f}"
    )
    if raw.get("ambiguous"):
        text += "; AMBIGUOUS"
    return text + ("; UNCERTAIN" if raw.get("uncertain") else "")


def unique(base: str, taken: set[str], number: int = 1) -> tuple[str, int]:
    """`base`, or `base-2`, `base-3` … the first not taken, counting on from `number` (so that
    N rows named alike get their ids in linear time, not by counting from 1 each time)."""
    candidate = base if number == 1 else f"{base}-{number}"
    while candidate in taken:
        number += 1
        candidate = f"{base}-{number}"
    return candidate, number


def slug(text: str) -> str:
    """Lower-case ASCII letters, digits and '-': an id made from a name (never empty)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    found = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:48].strip("-")
    return found or "item"
