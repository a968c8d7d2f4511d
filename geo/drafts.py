"""Convoy drafts a person reviews: the report marked, the drafts as rows, the reviewed rows added
to a scenario (with their places and a source), and sentences a scenario already holds."""

from __future__ import annotations

import hashlib
import itertools
import re
import unicodedata
import zoneinfo
from dataclasses import replace
from datetime import date, datetime, time, timedelta
from typing import Any

from shapely.geometry import LineString

from geo import _schema as s
from geo._fields import Spot
from geo.errors import ProblemLog
from geo.geocoding import names
from geo.home import scenario_homes
from geo.reading import (
    ConvoyDraft,
    Extraction,
    FigureMention,
    PlaceMention,
    count_only,
    is_people,
    is_vehicle,
)
from geo.records import ConvoyStatus, Route, RoutePrecision, Source, TimePrecision
from geo.safe_html import marked_text


def highlighted(text: str, found: Extraction) -> str:
    """The report as HTML, every character escaped, its places and figures marked."""
    marks = [(p.start, p.end, "place", p.name) for p in found.places]
    marks += [(f.start, f.end, "figure", f.what) for f in found.figures]
    return marked_text(text, marks)


def review_rows(
    found: Extraction, scenario: Any | None, *, published: date | None = None
) -> list[dict[str, Any]]:
    """`draft_rows` (times in the scenario's zone), each with the convoy of `scenario` that
    already holds its sentence."""
    zone = scenario.timezone if scenario is not None else "UTC"
    rows = draft_rows(found, published=published, timezone=zone)
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


def draft_rows(
    found: Extraction, *, published: date | None = None, timezone: str = "UTC"
) -> list[dict[str, Any]]:
    """The convoy drafts as rows a person reviews and edits before anything is added.

    Each row holds the status its verbs give (`status_of`), the departure and arrival the
    sentence dates (`draft_times`: ISO 8601 in `timezone`, a clock time read on the
    sentence's date or else on `published`), and its vehicles by kind (buses, ambulances,
    other vehicles).
    """
    rows = []
    for number, draft in enumerate(found.convoys, start=1):
        inside = [f for f in found.figures if _in_sentence(f.start, draft)]
        kinds = _vehicles_by_kind([f for f in inside if is_vehicle(f)])
        people = [f for f in inside if is_people(f)]
        status = status_of(draft.sentence)
        depart, arrive, precision = draft_times(found, draft, status=status,
                                                published=published, timezone=timezone)  # fmt: skip
        rows.append({
            "add": False,
            "label": draft_label(number, draft.origin, draft.destination),
            "origin": draft.origin, "destination": draft.destination, "via": ";".join(draft.via),
            "status": status, "confidence": "low",
            "depart": depart, "arrive": arrive, "time_precision": precision,
            "vehicles": kinds["vehicles"], "buses": kinds["buses"],
            "ambulances": kinds["ambulances"],
            "people": count_only(people[0]) if people else "",
            "time": draft.time, "sentence": draft.sentence,
        })  # fmt: skip
    return rows


def _in_sentence(start: int, draft: ConvoyDraft) -> bool:
    return draft.start <= start < draft.start + len(draft.sentence)


# --- status from the verbs -----------------------------------------------------------------

_WORDS_AR = r"(?<![\w])[وف]?(?:{})(?![\w])"
_ARRIVED = re.compile(
    r"\b(?:arrived|reached|got\s+to|pulled\s+into)\b"
    + "|" + _WORDS_AR.format("وصلت|وصل|وصلوا|وصلتا|بلغت|بلغ|دخلت|دخل"),
    re.IGNORECASE,
)  # fmt: skip
_LEFT = re.compile(
    r"\b(?:left|set\s+(?:off|out)|departed|headed|heading|on\s+(?:its|their)\s+way"
    r"|crossed|drove|were\s+driven|moved\s+out|pulled\s+out)\b"
    + "|" + _WORDS_AR.format("غادرت|غادر|غادروا|انطلقت|انطلق|خرجت|خرج|خرجوا|اتجهت|اتجه"
                             "|توجهت|توجه|متجهة|في\\s+طريقها"),
    re.IGNORECASE,
)  # fmt: skip
_PLANNED = re.compile(
    r"\b(?:(?:were|was|are|is)\s+preparing|prepar(?:e|es|ing)\s+to|will|(?:are|is|were|was)"
    r"\s+(?:expected|due|scheduled|set|about)\s+to|plan(?:s|ned)?\s+to|awaiting|waiting\s+to)\b"
    + "|" + _WORDS_AR.format("تستعد|يستعد|تستعدان|ستغادر|سيغادر|ستنطلق|سينطلق|ستصل|من\\s+المقرر"
                             "|من\\s+المتوقع|يتوقع|ينتظر|تنتظر"),
    re.IGNORECASE,
)  # fmt: skip


def status_of(sentence: str) -> str:
    """The convoy status a sentence's verbs give (a ConvoyStatus value).

    "arrived", "reached" (وصلت) → arrived; "left", "set off", "departed", "headed to"
    (غادرت، انطلقت، اتجهت) → under way; "were preparing", "will leave", "are expected to"
    (تستعد، ستغادر) → planned, also when nothing says. A future word after the movement
    ("left Aleppo under a deal that will…") leaves it under way.
    """
    if _ARRIVED.search(sentence):
        return ConvoyStatus.ARRIVED.value
    left, planned = _LEFT.search(sentence), _PLANNED.search(sentence)
    if left and (planned is None or left.start() < planned.start()):
        return ConvoyStatus.UNDER_WAY.value
    return ConvoyStatus.PLANNED.value


# --- departure and arrival -----------------------------------------------------------------

MIDDAY = time(12, 0)
"""The hour given to a day the report names without a clock time (precision 'estimated')."""


def draft_times(
    found: Extraction,
    draft: ConvoyDraft,
    *,
    status: str,
    published: date | None,
    timezone: str,
) -> tuple[str, str, str]:
    """(departure, arrival, time precision) of a draft, read from its sentence's times.

    Departure and arrival are ISO 8601 in `timezone` ('' when the sentence dates none): the
    first clock time on the sentence's first date (else on `published`), or that date at
    midday ('estimated'). A second time is the arrival when the sentence also says the
    convoy arrived; the only time of a convoy that only "arrived" is its arrival.
    """
    moments = [t for t in found.times if _in_sentence(t.start, draft)]
    days = [date.fromisoformat(t.date) for t in moments if t.kind != "clock" and t.date]
    clocks = [time.fromisoformat(t.local_time) for t in moments if t.kind == "clock"]
    day = days[0] if days else published
    if day is None or not (days or clocks):
        return "", "", TimePrecision.APPROXIMATE.value
    zone = zoneinfo.ZoneInfo(timezone)
    if clocks:
        found_at = [datetime.combine(day, clock, zone) for clock in clocks[:2]]
        precision = TimePrecision.APPROXIMATE.value
    else:
        found_at = [datetime.combine(when, MIDDAY, zone) for when in days[:2]]
        precision = TimePrecision.ESTIMATED.value
    shown = [moment.isoformat(timespec="minutes") for moment in found_at]
    if status != ConvoyStatus.ARRIVED.value:
        return shown[0], "", precision
    if not _LEFT.search(draft.sentence):
        return "", shown[-1], precision
    if len(found_at) == 2 and found_at[1] > found_at[0]:
        return shown[0], shown[1], precision
    return shown[0], "", precision


# --- the scenario's time span --------------------------------------------------------------


def outside_span(scenario: Any, rows: list[dict[str, Any]], *, published: date) -> str | None:
    """A question for the user when the drafts' times (or, for a row without any, the
    publication date) fall outside the scenario's span; None when every one is inside.

    The check is pure: the page shows the message and asks before adding anything.
    """
    zone = zoneinfo.ZoneInfo(scenario.timezone)
    start, end = scenario.start.astimezone(zone), scenario.end.astimezone(zone)
    outside: list[str] = []
    for row in rows:
        moments = [_moment(row.get(name)) for name in ("depart", "arrive")]
        read = [moment.astimezone(zone) for moment in moments if moment is not None]
        if read:
            clock = _cell(row.get("time_precision")) != TimePrecision.ESTIMATED.value
            outside += [_spoken(m, time_too=clock) for m in read if not start <= m <= end]
            continue
        day_start = datetime.combine(published, time(0, 0), zone)
        if day_start + timedelta(days=1) <= start or day_start >= end:
            outside.append(_spoken(day_start, time_too=False))
    if not outside:
        return None
    dates = ", ".join(dict.fromkeys(outside))
    return (f"The report is dated {dates}, outside the time span of scenario {scenario.id} "
            f"({_spoken(start, time_too=True)} to {_spoken(end, time_too=True)}, "
            f"{scenario.timezone}).")  # fmt: skip


def _moment(value: Any) -> datetime | None:
    """A cell's ISO 8601 date-time with an offset, or None (a bad one is left to the schema)."""
    try:
        moment = datetime.fromisoformat(str(value or "").strip())
    except ValueError:
        return None
    return moment if moment.utcoffset() is not None else None


def _spoken(moment: datetime, *, time_too: bool) -> str:
    day = f"{moment.day} {moment:%B %Y}"
    return f"{day} {moment:%H:%M}" if time_too else day


_FIRST_LINE_DATES = (
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), ("year", "month", "day")),
    (re.compile(r"\b(\d{1,2})\s+([A-Z][a-z]+)\.?,?\s+(\d{4})\b"), ("day", "name", "year")),
    (re.compile(r"\b([A-Z][a-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})\b"), ("name", "day", "year")),
)
_MONTHS = {
    name: number
    for number in range(1, 13)
    for name in (date(2000, number, 1).strftime("%B").lower(),
                 date(2000, number, 1).strftime("%b").lower())
}  # fmt: skip


def first_line_date(text: str) -> date | None:
    """The date the report's first non-empty line gives ('Published: 2016-12-16',
    'SARAQIB, Syria, 3 March 2025', 'March 3, 2025'), None when it gives none."""
    line = next((line for line in text.splitlines() if line.strip()), "")
    for pattern, parts in _FIRST_LINE_DATES:
        for match in pattern.finditer(line):
            cells = dict(zip(parts, match.groups(), strict=True))
            month = _MONTHS.get(cells.get("name", "").lower()) or int(cells.get("month", 0))
            try:
                return date(int(cells["year"]), month, int(cells["day"]))
            except ValueError:
                continue
    return None


# --- vehicles by kind ----------------------------------------------------------------------

_BUSES = re.compile(r"\b(?:mini|micro)?bus(?:es|ses|loads?)?\b|coaches|حافل", re.IGNORECASE)
_AMBULANCES = re.compile(r"\bambulances?\b|إسعاف|اسعاف", re.IGNORECASE)


def vehicle_kind(figure: FigureMention) -> str:
    """The convoy field a vehicle figure fills: 'buses', 'ambulances' or 'vehicles'.

    An Arabic "13 سيارة إسعاف" counts سيارة (car) followed by إسعاف: the word after the noun
    in the figure's sentence is read too.
    """
    after = re.search(re.escape(figure.what) + r"\s+(\S+)", figure.sentence)
    words = f"{figure.what} {after[1] if after else ''}"
    if _AMBULANCES.search(words):
        return "ambulances"
    return "buses" if _BUSES.search(figure.what) else "vehicles"


def _vehicles_by_kind(figures: list[FigureMention]) -> dict[str, str]:
    """The first count of each kind: {'vehicles': 'nearly 30', 'buses': '', ...}."""
    kinds = {"vehicles": "", "buses": "", "ambulances": ""}
    for figure in figures:
        kind = vehicle_kind(figure)
        kinds[kind] = kinds[kind] or count_only(figure)
    return kinds


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


_LETTERS = str.maketrans({
    "ß": "ss", "æ": "ae", "ø": "o", "đ": "d", "ð": "d", "þ": "th", "ł": "l", "ı": "i",
    "‘": "", "’": "", "ʿ": "", "ʾ": "", "'": "",
    # Arabic (consonants as the UN romanisation writes them without marks; long vowels)
    "ا": "a", "أ": "a", "إ": "i", "آ": "a", "ٱ": "a", "ب": "b", "ت": "t", "ث": "th", "ج": "j",
    "ح": "h", "خ": "kh", "د": "d", "ذ": "dh", "ر": "r", "ز": "z", "س": "s", "ش": "sh",
    "ص": "s", "ض": "d", "ط": "t", "ظ": "z", "ع": "", "غ": "gh", "ف": "f", "ق": "q", "ك": "k",
    "ل": "l", "م": "m", "ن": "n", "ه": "h", "ة": "a", "و": "w", "ي": "y", "ى": "a", "ء": "",
    "ؤ": "", "ئ": "", "پ": "p", "چ": "ch", "ژ": "zh", "گ": "g", "ک": "k", "ی": "y",
})  # fmt: skip


def _slug(name: str) -> str:
    """An id of the name's own letters: 'Bab al-Hawa crossing' → 'bab-al-hawa-crossing',
    'Qal‘at al Maḑīq' → 'qalat-al-madiq', 'حلب' → 'hlb'; 'place' when none is left."""
    latin = names.to_latin(name)  # (Cyrillic as the gazetteer reads it: 'Київ' → 'kyiv')
    letters = unicodedata.normalize("NFKD", latin.lower().translate(_LETTERS))
    plain = letters.encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", plain).strip("-") or "place"


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
        "depart": _cell(row.get("depart")),
        "arrive": _cell(row.get("arrive")),
        "time_precision": _cell(row.get("time_precision")) or "approximate",
        "status": row.get("status") or "planned",
        "vehicles": _cell(row.get("vehicles")),
        "buses": _cell(row.get("buses")),
        "ambulances": _cell(row.get("ambulances")),
        "people": row.get("people") or "",
        "source": source_id,
        "quote": row.get("sentence", ""),
        "confidence": row.get("confidence") or "low",
    }
    return s.RawRecord(Spot("review table", f"row {number}"), cells)


def _cell(value: Any) -> str:
    """A review-table cell as text: '' for an empty one (None, or NaN from the editor)."""
    return "" if value is None or value != value else str(value).strip()
