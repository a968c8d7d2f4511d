"""Arabic times: weekdays, dates in Levantine or Egyptian month names, and clock times."""

from __future__ import annotations

import re
from datetime import date

from geo.reading.arabic_script import DIGITS
from geo.reading.mentions import TimeMention
from geo.reading.rules import date_in_year, weekday_date

WEEKDAYS = {"الاثنين": 0, "الإثنين": 0, "الثلاثاء": 1, "الأربعاء": 2, "الاربعاء": 2,
            "الخميس": 3, "الجمعة": 4, "السبت": 5, "الأحد": 6, "الاحد": 6}  # fmt: skip
MONTHS = {
    "كانون الثاني": 1, "شباط": 2, "آذار": 3, "اذار": 3, "نيسان": 4, "أيار": 5, "ايار": 5,
    "حزيران": 6, "تموز": 7, "آب": 8, "اب": 8, "أيلول": 9, "ايلول": 9, "تشرين الأول": 10,
    "تشرين الاول": 10, "تشرين الثاني": 11, "كانون الأول": 12, "كانون الاول": 12, "يناير": 1,
    "فبراير": 2, "مارس": 3, "أبريل": 4, "ابريل": 4, "إبريل": 4, "مايو": 5, "يونيو": 6,
    "يوليو": 7, "أغسطس": 8, "اغسطس": 8, "سبتمبر": 9, "أكتوبر": 10, "اكتوبر": 10,
    "نوفمبر": 11, "ديسمبر": 12,
}  # fmt: skip
HOURS = {"الواحدة": 1, "الثانية": 2, "الثالثة": 3, "الرابعة": 4, "الخامسة": 5, "السادسة": 6,
         "السابعة": 7, "الثامنة": 8, "التاسعة": 9, "العاشرة": 10, "الحادية عشرة": 11,
         "الثانية عشرة": 12}  # fmt: skip
_WEEKDAY = re.compile(
    r"(?<![\u0621-\u064a])(?:يوم\s+)?(?P<day>" + "|".join(WEEKDAYS) + r")(?![\u0621-\u064a])"
)
_AHEAD = re.compile(r"\s+(?:المقبل|القادم)")
"""'يوم السبت المقبل': next Saturday."""
_MONTH = "|".join(sorted(map(re.escape, MONTHS), key=len, reverse=True))
_DATE = re.compile(rf"(?P<day>[0-9\u0660-\u0669]{{1,2}})\s+(?:من\s+)?(?P<month>{_MONTH})")
_HOUR = "|".join(sorted(HOURS, key=len, reverse=True))
_CLOCK = re.compile(
    rf"الساعة\s+(?P<hour>[0-9\u0660-\u0669]{{1,2}}|{_HOUR})(?:[:.](?P<minute>[0-9\u0660-\u0669]{{2}}))?"
    r"(?:\s+(?:من\s+)?(?P<half>صباح|ظهر|بعد الظهر|عصر|مساء|ليل)\w*)?"
)


def find_times(text: str, published: date | None) -> list[TimeMention]:
    """Weekdays, dates in Levantine or Egyptian month names, and clock times."""
    found = []
    for match in _WEEKDAY.finditer(text):
        future = bool(_AHEAD.match(text, match.end()))
        found.append(TimeMention(match.group(), match.start(), match.end(), "weekday",
                                 weekday_date(WEEKDAYS[match["day"]], published,
                                              future=future)))  # fmt: skip
    for match in _DATE.finditer(text):
        day = int(match["day"].translate(DIGITS))
        found.append(TimeMention(match.group(), match.start(), match.end(), "date",
                                 date_in_year(MONTHS[match["month"]], day, published)))  # fmt: skip
    for match in _CLOCK.finditer(text):
        hour_text = match["hour"]
        hour = HOURS.get(hour_text) or int(hour_text.translate(DIGITS))
        if not 0 <= hour <= 24:
            continue
        if match["half"] in ("مساء", "ليل", "عصر", "بعد الظهر") and hour < 12:
            hour += 12
        minute = int((match["minute"] or "0").translate(DIGITS))
        found.append(TimeMention(match.group(), match.start(), match.end(), "clock", "",
                                 f"{hour % 24:02d}:{minute:02d}", ""))  # fmt: skip
    return sorted(found, key=lambda moment: moment.start)
