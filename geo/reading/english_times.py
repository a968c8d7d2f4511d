"""English times: weekdays, clock times (with their GMT or UTC) and dates, resolved."""

from __future__ import annotations

import re
from datetime import date

from geo.reading.english_words import MONTHS, WEEKDAYS
from geo.reading.mentions import Skipped, TimeMention
from geo.reading.rules import UNREADABLE, date_in_year, skip, weekday_date

_CLOCK = re.compile(
    r"(?<![\d,])(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<half>am|pm|a\.m\.|p\.m\.)(?!\w)"
    r"(?:\s*\((?P<utc>\d{4})\s*(?:GMT|UTC)\))?",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"(?P<month>" + "|".join(m.capitalize() for m in MONTHS) + r")\s+(?P<day>\d{1,2})\b"
    r"|(?P<day2>\d{1,2})\s+(?P<month2>" + "|".join(m.capitalize() for m in MONTHS) + r")\b"
)
_WEEKDAY = re.compile(
    r"\b(?P<day>" + "|".join(d.capitalize() for d in WEEKDAYS) + r")(?:['’]?s)?"
    r"(?:\s+(?P<part>morning|afternoon|evening|night))?\b"
)


def find_times(
    text: str, published: date | None, skipped: list[Skipped] | None = None
) -> list[TimeMention]:
    """Weekdays, clock times (with GMT/UTC equivalent) and dates, resolved where possible."""
    readers = ((_WEEKDAY, _weekday_mention), (_CLOCK, _clock_mention), (_DATE, _date_mention))
    found = []
    for pattern, read in readers:
        for match in pattern.finditer(text):
            try:
                found.append(read(text, match, published))
            except UNREADABLE as error:
                skip(skipped, "time", match.group(), match.start(), error)
    return sorted(found, key=lambda moment: moment.start)


_FUTURE = re.compile(
    r"\b(?:will|shall|would|'ll|next|until|till|expected|due|scheduled|set\s+to|plans?\s+to"
    r"|(?:is|are)\s+to)\b[^.;]{0,40}$",
    re.IGNORECASE,
)
"""Words before a weekday that put it after the publication: 'will leave on Friday',
'the truce holds until Saturday', 'next Monday'."""
_PAST = re.compile(r"\b(?:last|had|lasted|remained)\b[^.;]{0,40}$", re.IGNORECASE)


def _weekday_mention(text: str, match: re.Match[str], published: date | None) -> TimeMention:
    before = text[max(0, match.start() - 60) : match.start()]
    future = bool(_FUTURE.search(before)) and not _PAST.search(before)
    when = weekday_date(WEEKDAYS.index(match["day"].lower()), published, future=future)
    return TimeMention(match.group(), match.start(), match.end(), "weekday", when)


def _clock_mention(text: str, match: re.Match[str], published: date | None) -> TimeMention:
    hour = int(match["hour"])
    if not 1 <= hour <= 12:
        raise ValueError(f"a 12-hour clock time needs an hour from 1 to 12, got {hour}")
    hour = hour % 12 + (12 if match["half"].lower().startswith("p") else 0)
    local = f"{hour:02d}:{int(match['minute'] or 0):02d}"
    utc = f"{match['utc'][:2]}:{match['utc'][2:]}" if match["utc"] else ""
    return TimeMention(match.group(), match.start(), match.end(), "clock", "", local, utc)


def _date_mention(text: str, match: re.Match[str], published: date | None) -> TimeMention:
    month = MONTHS[(match["month"] or match["month2"]).lower()]
    day = int(match["day"] or match["day2"])
    when = date_in_year(month, day, published)
    return TimeMention(match.group(), match.start(), match.end(), "date", when)
