"""The rules every report language shares: skipping odd items, counting, "between", dates."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from geo.reading.mentions import FigureMention, Skipped
from geo.records import Count, Qualifier

UNREADABLE = (ValueError, KeyError, IndexError, TypeError, ArithmeticError)
"""What reading one item of odd copy can raise; the item is skipped, the report goes on."""
SPEECH = r"(?:said|says|told|added|warned|announced|reported|stated)"

FigureReader = Callable[[str, int, re.Match[str]], FigureMention | None]
"""Reads one match of a figure pattern in (sentence, the sentence's offset, match)."""


def skip(skipped: list[Skipped] | None, kind: str, text: str, start: int, error: Exception) -> None:
    """Note an item that could not be read (or raise, when nobody collects them)."""
    if skipped is None:
        raise error
    skipped.append(Skipped(kind, text.strip(), start, f"{type(error).__name__}: {error}"))


def read_figures(
    sentences: list[tuple[int, str]],
    skipped: list[Skipped] | None,
    *,
    pattern: re.Pattern[str],
    read: FigureReader,
) -> list[FigureMention]:
    """The figures `read` makes of every match of `pattern` in each (offset, sentence)."""
    found = []
    for offset, sentence in sentences:
        for match in pattern.finditer(sentence):
            try:
                figure = read(sentence, offset, match)
            except UNREADABLE as error:
                skip(skipped, "figure", sentence, offset + match.start(), error)
                continue
            if figure:
                found.append(figure)
    return found


def attribution(sentence: str) -> str:
    """Who the sentence says said it, or ''."""
    match = re.search(r"according to (?:the )?([^,.;]+)", sentence)
    if match:
        return match[1].strip()
    match = re.search(rf"[”\"],?\s*(?:the\s+)?([^”\"]+?),?\s+{SPEECH}\b", sentence)
    if match:
        return match[1].strip(" ,")
    match = re.search(rf"([A-Z][^,”\"]*?)\s+{SPEECH}\b", sentence)
    if match:
        return match[1].strip(" ,")
    match = re.search(rf"\b{SPEECH}\s+(?:the\s+)?([A-Z][^,.”\"]+)", sentence)
    return match[1].strip() if match else ""


def between(
    items: list[Any], starts: list[int], start: int, end: int, *, before: int = 0
) -> list[Any]:
    """The items (sorted, starting at `starts`) that start in [start, end), and `before` more."""
    first, last = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
    return items[max(0, first - before) : last]


def count_only(figure: FigureMention) -> str:
    """The figure in the scenario files' count grammar ('nearly 30', '1500-5000')."""
    low = figure.value if figure.value is not None else figure.low
    high = figure.value if figure.value is not None else figure.high
    qualifier = Qualifier(figure.qualifier) if figure.qualifier else None
    return str(Count(low or 0, high or 0, qualifier))


def count_text(figure: FigureMention) -> str:
    """The count and what it counts: 'nearly 30 vehicles'."""
    return f"{count_only(figure)} {figure.what}"


def counts_of(figures: list[FigureMention], kind: str) -> list[str]:
    """`count_text` of each figure whose reader read its noun as `kind` ('vehicles', ...)."""
    return [count_text(figure) for figure in figures if figure.kind == kind]


def weekday_date(weekday: int, published: date | None, *, future: bool = False) -> str:
    """The date of the weekday (0 is Monday) nearest the publication: before it, or after it
    when the sentence speaks of the future ("will meet Friday")."""
    if published is None:
        return ""
    if future:
        ahead = (weekday - published.weekday()) % 7
        return (published + timedelta(days=ahead)).isoformat()
    back = (published.weekday() - weekday) % 7
    return (published - timedelta(days=back)).isoformat()


def date_in_year(month: int, day: int, published: date | None) -> str:
    """The day of a month nearest the publication: in its year, or the next when that is
    more than 180 days before it ('' without a publication or for no such day)."""
    if published is None:
        return ""
    try:
        when = date(published.year, month, day)
    except ValueError:
        return ""
    if (published - when).days > 180:
        when = date(published.year + 1, month, day)
    return when.isoformat()
