"""Convoy drafts a person reviews: the report marked, the drafts as rows, the reviewed rows added
to a scenario (with their places and a source), and sentences a scenario already holds."""

from __future__ import annotations

import hashlib
import itertools
import re
from dataclasses import replace
from datetime import date
from typing import Any

from shapely.geometry import LineString

from geo import _schema as s
from geo import names
from geo._fields import Spot
from geo.errors import ProblemLog
from geo.extract import Extraction, PlaceMention, count_only, is_people, is_vehicle
from geo.home import scenario_homes
from geo.records import Route, RoutePrecision, Source
from geo.safe_html import marked_text


def highlighted(text: str, found: Extraction) -> str:
    """The report as HTML, every character escaped, its places and figures marked."""
    marks = [(p.start, p.end, "place", p.name) for p in found.places]
    marks += [(f.start, f.end, "figure", f.what) for f in found.figures]
    return marked_text(text, marks)


def review_rows(found: Extraction, scenario: Any | None) -> list[dict[str, Any]]:
    """`draft_rows`, each with the convoy of `scenario` that already holds its sentence."""
    rows = draft_rows(found)
    for row in rows:
        row["already in workspace"] = (repeats(scenario, row["sentence"]) or "") if scenario else ""
    return rows


def left_out(scenario: Any, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows whose sentence no convoy of `scenario` holds yet, and a note on each other."""
    fresh, notes = [], []
    for row in rows:
        again = repeats(scenario, str(row["sentence"]))
        if again is None:
            fresh.append(row)
        else:
            notes.append(
                f"Left out “{row['label']}”: its sentence is already the source of convoy {again}."
            )
    return fresh, notes


def add_to_scenario(
    scenario: Any,
    found: Extraction,
    rows: list[dict[str, Any]],
    *,
    title: str,
    published: date,
) -> Any:
    """The scenario with the reviewed convoy rows added, with their places and a new source.

    Each row (from the review table: label, origin, destination, via, status, confidence,
    vehicles, people, sentence) goes through the same validation as a scenario file; a
    ValidationError lists every problem and nothing is added.
    """
    digest = hashlib.sha256(f"{title}|{published}".encode()).hexdigest()[:6]
    source_id = f"report-{published:%Y%m%d}-{digest}"
    source = Source(source_id, title or "Report pasted in Corridor", "Entered by a Corridor user",
                    published, note="Added from the dashboard's 'From a report' page")  # fmt: skip
    by_name = {place.name: place for place in found.places}
    known_places = {place.id: place for place in scenario.places}
    ids = {place.name: place.id for place in scenario.places}
    home = next(iter(scenario_homes(scenario)), "")  # for a place read without a country
    place_raws = []
    for row in rows:
        for name in [row.get("origin"), row.get("destination"), *_split(row.get("via"))]:
            if name and name not in ids and name in by_name:
                ids[name] = _free_id(_slug(name), set(known_places) | set(ids.values()))
                place_raws.append(_place_raw(by_name[name], ids[name], source_id, row, home))
    convoy_raws = [
        _convoy_raw(row, number, ids, source_id) for number, row in enumerate(rows, start=1)
    ]
    log = ProblemLog()
    known = s.Known(sources={*(x.id for x in scenario.sources), source_id},
                    places={*known_places, *ids.values()},
                    convoys={c.id for c in scenario.convoys})  # fmt: skip
    places = s.build(s.PLACES, place_raws, known, log)
    convoys = s.build(s.CONVOYS, convoy_raws, known, log)
    log.raise_if_errors("the reviewed drafts")
    every_place = {place.id: place for place in (*scenario.places, *places)}
    routes = [leg for convoy in convoys for leg in _straight_legs(convoy, every_place, source_id)]
    return replace(
        scenario,
        sources=(*scenario.sources, source),
        places=(*scenario.places, *places),
        convoys=(*scenario.convoys, *convoys),
        routes=(*scenario.routes, *routes),
    )


def _straight_legs(convoy: Any, places: dict[str, Any], source_id: str) -> list[Any]:
    """Straight, approximate legs origin → via → destination, so the convoy shows on the map."""
    stops = [convoy.origin, *convoy.via, convoy.destination] if convoy.origin else []
    legs = []
    for number, (start, end) in enumerate(itertools.pairwise(stops), start=1):
        a, b = places[start], places[end]
        line = LineString([(a.longitude, a.latitude), (b.longitude, b.latitude)])
        legs.append(Route(f"{convoy.id}-leg{number}", convoy.id, number, start, end,
                          RoutePrecision.APPROXIMATE, (source_id,), line,
                          quote=convoy.quote))  # fmt: skip
    return legs


def draft_rows(found: Extraction) -> list[dict[str, Any]]:
    """The convoy drafts as rows a person reviews and edits before anything is added."""
    rows = []
    for number, draft in enumerate(found.convoys, start=1):
        inside = [
            f for f in found.figures if draft.start <= f.start < draft.start + len(draft.sentence)
        ]
        vehicles = [f for f in inside if is_vehicle(f)]
        people = [f for f in inside if is_people(f)]
        rows.append({
            "add": False,
            "label": draft_label(number, draft.origin, draft.destination),
            "origin": draft.origin, "destination": draft.destination, "via": ";".join(draft.via),
            "status": "planned", "confidence": "low",
            "vehicles": count_only(vehicles[0]) if vehicles else "",
            "people": count_only(people[0]) if people else "",
            "time": draft.time, "sentence": draft.sentence,
        })  # fmt: skip
    return rows


def draft_label(number: int, origin: str, destination: str) -> str:
    """'Convoy 2: Aleppo to Idlib', 'Convoy 2 to Idlib', 'Convoy 2 from Aleppo' or 'Convoy 2'."""
    if origin and destination:
        return f"Convoy {number}: {origin} to {destination}"
    if destination:
        return f"Convoy {number} to {destination}"
    return f"Convoy {number} from {origin}" if origin else f"Convoy {number}"


def repeats(scenario: Any, sentence: str) -> str | None:
    """The convoy of `scenario` whose quote already holds `sentence` (a draft read twice)."""
    wanted = _plain(sentence)
    if len(wanted) < 20:
        return None
    return next((c.id for c in scenario.convoys if wanted in _plain(c.quote)), None)


def _plain(text: str) -> str:
    """Text compared as words: case, quotes, dashes and spacing aside."""
    return " ".join(re.findall(r"\w+", text.lower()))


def _split(value: Any) -> list[str]:
    return [part.strip() for part in str(value or "").split(";") if part.strip()]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", names.normalise(name)).strip("-") or "place"


def _free_id(base: str, taken: set[str]) -> str:
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}-{number}", number + 1
    return candidate


def _place_raw(
    place: PlaceMention, place_id: str, source_id: str, row: dict[str, Any], home: str
) -> Any:
    cells = {
        "id": place_id, "name": place.name, "kind": place.kind,
        "latitude": place.latitude, "longitude": place.longitude,
        "country_code": place.country_code or home, "precision": place.precision,
        "source": source_id, "quote": row.get("sentence", ""),
    }  # fmt: skip
    return s.RawRecord(Spot("report", f"place {place.name!r}"), cells)


def _convoy_raw(row: dict[str, Any], number: int, ids: dict[str, str], source_id: str) -> Any:
    cells = {
        "id": f"{source_id}-convoy-{number}",
        "label": row.get("label") or f"Convoy {number} from the report",
        "origin": ids.get(row.get("origin") or "", ""),
        "destination": ids.get(row.get("destination") or "", row.get("destination") or ""),
        "via": ";".join(ids.get(name, name) for name in _split(row.get("via"))),
        "time_precision": "approximate",
        "status": row.get("status") or "planned",
        "vehicles": row.get("vehicles") or "",
        "people": row.get("people") or "",
        "source": source_id,
        "quote": row.get("sentence", ""),
        "confidence": row.get("confidence") or "low",
    }
    return s.RawRecord(Spot("review table", f"row {number}"), cells)
