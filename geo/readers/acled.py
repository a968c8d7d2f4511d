"""ACLED's conflict-event exports: columns renamed to Corridor's event fields, dates as ISO."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

ACLED_MARKERS = frozenset({"event_id_cnty", "event_type", "fatalities"})
"""Columns that together tell an ACLED export from any other CSV of events."""
ACLED_FIELDS = {
    "event_id_cnty": "id",
    "event_date": "date",
    "event_type": "event_type",
    "sub_event_type": "sub_event_type",
    "actor1": "actor1",
    "assoc_actor_1": "assoc_actor_1",
    "actor2": "actor2",
    "assoc_actor_2": "assoc_actor_2",
    "location": "location",
    "admin1": "admin1",
    "country": "country",
    "latitude": "latitude",
    "longitude": "longitude",
    "geo_precision": "geo_precision",
    "time_precision": "time_precision",
    "fatalities": "fatalities",
    "notes": "notes",
    "source": "reported_by",
}
"""ACLED's event columns, renamed to Corridor's event fields. Any column ACLED does not export
is kept, as in every other CSV (validation warns about columns it does not know)."""
ACLED_DROPPED = frozenset({
    "event_id_no_cnty", "year", "disorder_type", "inter1", "inter2", "interaction",
    "civilian_targeting", "iso", "iso3", "region", "admin2", "admin3", "source_scale", "tags",
    "timestamp",
})  # fmt: skip
"""ACLED's coding and bookkeeping columns, not read: the year, which repeats the date;
interaction codes, which repeat the actors' types; ISO codes and region, which repeat the
country; admin2/admin3, finer names for the location, which keeps its name and coordinates;
source scale, tags and ACLED's upload timestamp. None of them is information the renamed
columns lack for the map."""
MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august",
               "september", "october", "november", "december")  # fmt: skip
MONTHS = {
    name: number
    for number, month in enumerate(MONTH_NAMES, start=1)
    for name in (month, month[:3], month[:4])
}
DAY_MONTH_YEAR = re.compile(r"^(\d{1,2})[ -]([A-Za-z]+)\.?[ -](\d{4})$")


def is_acled(header: Sequence[str]) -> bool:
    """Whether a header is an ACLED export's (its event id, type and fatalities, any case)."""
    return {name.lower() for name in header} >= ACLED_MARKERS


def iso_date(value: str) -> str:
    """A date such as 15 December 2016, 15-Dec-2016 or 2016-12-15 as ISO text; other text as is."""
    text = value.strip()
    match = DAY_MONTH_YEAR.match(text)
    try:
        if match:
            month = MONTHS.get(match[2].lower())
            return date(int(match[3]), month, int(match[1])).isoformat() if month else value
        return date.fromisoformat(text).isoformat()
    except ValueError:
        return value
