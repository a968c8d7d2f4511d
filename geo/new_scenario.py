"""A new, empty scenario for any crisis: its metadata, a first source and a proposed time zone."""

from __future__ import annotations

import math
from datetime import date, datetime, time, timedelta
from functools import cache
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo, available_timezones

from geo import _fields as f
from geo._fields import Spot
from geo.builder import COUNTRIES
from geo.errors import ProblemLog
from geo.importing import slug
from geo.records import Scenario, Source
from geo.scenario import check_scenario, write_scenario

DISCLAIMER = (
    "Positions, lines and zones are approximate, drawn from the reports listed as sources; "
    "they are not surveyed and must not be used for navigation. Boundaries and names do not "
    "imply endorsement or acceptance."
)


@cache
def _zones_by_country() -> dict[str, list[tuple[float, float, str, str]]]:
    """tzdata's zone.tab: per ISO country code, each zone's (lat, lon, name, comment)."""
    text = resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text("utf-8")
    found: dict[str, list[tuple[float, float, str, str]]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        code, where, name, *comment = line.split("\t")
        lat, lon = _iso6709(where)
        found.setdefault(code, []).append((lat, lon, name, comment[0] if comment else ""))
    return found


def _iso6709(text: str) -> tuple[float, float]:
    """'+5026+03031' or '+313200+0350542' as (latitude, longitude) in degrees."""
    split = max(text.rfind("+"), text.rfind("-"))
    return _degrees(text[:split], 2), _degrees(text[split:], 3)


def _degrees(text: str, width: int) -> float:
    sign = -1.0 if text[0] == "-" else 1.0
    digits = text[1:]
    parts = [digits[:width], digits[width : width + 2], digits[width + 2 : width + 4] or "0"]
    whole, minutes, seconds = (int(part) for part in parts)
    return sign * (whole + minutes / 60 + seconds / 3600)


def propose_timezone(country_code: str, near: tuple[float, float] | None = None) -> str | None:
    """The IANA time zone of a country (the one nearest `near` (lat, lon) when it has several,
    else the one tzdata calls "most of" the country, else its first); None for an unknown code."""
    zones = _zones_by_country().get(country_code.upper(), [])
    if not zones:
        return None
    if near is not None:
        return min(zones, key=lambda zone: _distance(zone[:2], near))[2]
    most = [zone for zone in zones if zone[3].lower().startswith("most")]
    return (most or zones)[0][2]


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Degrees apart on a plane scaled by latitude: enough to choose the nearest zone."""
    dlon = (a[1] - b[1]) * math.cos(math.radians((a[0] + b[0]) / 2))
    return math.hypot(a[0] - b[0], dlon)


def new_scenario(
    *,
    title: str,
    timezone: str,
    start: datetime | date,
    end: datetime | date | None = None,
    source: Source,
    disclaimer: str = DISCLAIMER,
    summary: str = "",
    scenario_id: str = "",
    countries: tuple[str, ...] = (),
) -> Scenario:
    """A scenario with no records yet; a date as `start` or `end` means midnight local time.

    With no `end`, the span is the start's day and the next. `countries` (ISO codes) are where
    the crisis is: its reports are read and its names looked up there before it has places.
    ValidationError when the time zone is unknown, the title empty, the span empty or a country
    code unreadable (every problem listed).
    """
    log = ProblemLog()
    where = "new scenario"
    if not title.strip():
        log.error(where, "", "title", "a title", title)
    if timezone not in available_timezones():
        log.error(where, "", "timezone", "an IANA time zone such as 'Europe/Kyiv'", timezone)
    zone = ZoneInfo(timezone) if timezone in available_timezones() else ZoneInfo("UTC")
    begins = _moment(start, zone)
    ends = _moment(end, zone) if end is not None else begins + timedelta(days=2)
    if ends <= begins:
        log.error(
            where, "", "end", f"a moment after the start ({begins.isoformat()})", ends.isoformat()
        )
    codes = f.parse_fields({"countries": list(countries)}, [COUNTRIES], Spot(where, ""), log)
    log.raise_if_errors(where)
    return Scenario(
        id=scenario_id or slug(title) or "new-scenario",
        title=title.strip(),
        summary=summary.strip() or f"{title.strip()}: started in Corridor from its sources.",
        timezone=timezone,
        start=begins,
        end=ends,
        disclaimer=disclaimer.strip() or DISCLAIMER,
        sources=(source,),
        countries=(codes or {}).get("countries", ()),
    )


def _moment(value: datetime | date, zone: ZoneInfo) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=zone)
    return datetime.combine(value, time(0), tzinfo=zone)


def title_line(report: str) -> str:
    """A report's first non-blank line, at most 120 characters: its source's proposed title."""
    return next((line.strip() for line in report.splitlines() if line.strip()), "")[:120]


def source_from(title: str, publisher: str, published: date, *, url: str = "") -> Source:
    """A scenario source with an id made of its publisher's and title's letters."""
    return Source(
        id=slug(f"{publisher} {published:%Y-%m-%d}") or "source-1",
        title=title.strip() or "Report",
        publisher=publisher.strip() or "Unknown",
        published=published,
        url=url.strip(),
    )


def create(scenario: Scenario, parent: Path | str) -> Path:
    """Write the scenario as a new folder `parent/<id>` and check it reads back; the folder must
    not exist yet (FileExistsError names it)."""
    folder = Path(parent) / scenario.id
    if folder.exists():
        raise FileExistsError(f"{folder} already exists; choose another title or id")
    write_scenario(scenario, folder)
    check_scenario(folder, geocode=False).problems.raise_if_errors(str(folder))
    return folder
