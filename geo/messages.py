"""The dashboard's own words in its interface languages: a small message catalogue."""

from __future__ import annotations

import csv
import re
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from geo.errors import Problem, ValidationError
from geo.settings import DATA_DIR

CATALOGUE_DIR = DATA_DIR / "interface"
LANGUAGES = {"en": "English", "ar": "العربية"}
"""Interface languages, each named in itself; English is the source of every message."""
RIGHT_TO_LEFT = frozenset({"ar"})


def direction(language: str) -> str:
    """'rtl' for a right-to-left language, else 'ltr' (the HTML dir attribute)."""
    return "rtl" if language in RIGHT_TO_LEFT else "ltr"


FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE = "\u2068", "\u2069"


def isolated(text: object, language: str) -> str:
    """`text` set apart from the words around it in a right-to-left language, so that a date,
    a path or an English name keeps its own order ('2016-12-15 13:00 UTC', not 'UTC 13:00 …').
    """
    if direction(language) != "rtl":
        return str(text)
    return f"{FIRST_STRONG_ISOLATE}{text}{POP_DIRECTIONAL_ISOLATE}"


def say(language: str, message: str, **values: object) -> str:
    """`message` in `language`, its {placeholders} filled with the values, each isolated."""
    template = words(language)(message)
    return template.format(**{name: isolated(value, language) for name, value in values.items()})


@dataclass(frozen=True)
class Words:
    """The messages of one interface language: `words("Held by")`, `words("{n} convoys", n=3)`.

    What a map, a legend or a popup says, in the language its reader chose (English when a
    message has no entry); `rtl` tells whether its text runs right to left.
    """

    language: str = "en"

    def __call__(self, message: str, **values: object) -> str:
        return say(self.language, message, **values) if values else words(self.language)(message)

    @property
    def rtl(self) -> bool:
        return self.language in RIGHT_TO_LEFT

    @property
    def dir(self) -> str:
        """The HTML dir attribute of text in this language."""
        return direction(self.language)


def words(language: str) -> Callable[[str], str]:
    """A function giving a message in `language`: the English text when it has no entry."""
    table = catalogue(language) if language != "en" else {}
    return lambda message: table.get(message, message)


@cache
def catalogue(language: str, folder: Path = CATALOGUE_DIR) -> dict[str, str]:
    """English message → its translation, read from `<folder>/<language>.csv`."""
    if language not in LANGUAGES:
        expected = f"one of {', '.join(LANGUAGES)}"
        raise ValidationError([Problem("interface", "", "language", expected, language)])
    path = folder / f"{language}.csv"
    column = language_column(language)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    table, problems = {}, []
    for number, row in enumerate(rows, start=2):
        english, translated = row.get("english") or "", row.get(column) or ""
        where = f"row {number}"
        if not english or not translated:
            problems.append(Problem(str(path), where, column, "a message and its translation", row))
        elif placeholders(english) != placeholders(translated):
            expected = f"the placeholders {sorted(placeholders(english))}"
            problems.append(Problem(str(path), where, column, expected, translated))
        else:
            table[english] = translated
    if problems:
        raise ValidationError(problems, subject=str(path))
    return table


def language_column(language: str) -> str:
    return {"ar": "arabic"}.get(language, language)


def placeholders(message: str) -> set[str]:
    """The {names} a message is formatted with."""
    return {name for _, name, _, _ in string.Formatter().parse(message) if name}


UNIT = re.compile(r"^(?P<what>.+) \((?P<unit>[^()]+)\)$")
"""A table heading with its unit: "length (km)", "departs (UTC)", "off route (m)"."""


def headings(language: str, columns: Iterable[object]) -> dict[str, str]:
    """Each table column's heading in `language`: its own entry, else its words and its unit
    (in brackets) each from the catalogue ("government (km)" → "الحكومة (كم)")."""
    say = words(language)
    named = {}
    for column in map(str, columns):
        heading = say(column)
        unit = UNIT.match(column)
        if heading == column and unit is not None:
            heading = f"{say(unit['what'])} ({say(unit['unit'])})"
        named[column] = heading
    return named
