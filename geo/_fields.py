"""Field parsers and the row-to-record builder shared by every reader."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any, TypeVar

from geo.errors import ProblemLog
from geo.records import COUNT_GRAMMAR, Count

T = TypeVar("T")
R = TypeVar("R")

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
LIST_SEPARATOR = ";"


class FieldError(ValueError):
    """A value that does not fit its field; the message says what was expected."""


def is_blank(value: object) -> bool:
    """True for a missing cell: None, NaN, or text that is only white space."""
    if type(value) is str:  # most cells: tested first
        return not value.strip()
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e]")
"""Control characters no name or quote holds: NUL (which cuts text short in C libraries),
other C0 controls, and the bidirectional embeddings and overrides that disguise text
(U+202E before 'gnp.exe' shows it as 'exe.png'); direction marks and isolates, which Arabic
uses, pass."""
_VISIBLE = re.compile("[^\\s\u200b-\u200f\u2060-\u2064\u2066-\u2069\ufeff]")
"""A character that shows: not white space, zero-width or a direction mark."""


def text(value: object) -> str:
    if not isinstance(value, str):
        raise FieldError("text")
    control = _CONTROL.search(value)
    if control:
        raise FieldError(f"text without control characters (this has U+{ord(control[0]):04X})")
    if not _VISIBLE.search(value):
        raise FieldError("visible text (this is only zero-width or direction characters)")
    return value.strip()


WEB_ADDRESS = re.compile(r"^https?://[^\s<>\"'`]+$", re.IGNORECASE)


def web_address(value: object) -> str:
    """An http(s) address: never javascript:, data: or anything a link could run."""
    address = text(value)
    if not WEB_ADDRESS.match(address):
        raise FieldError("a web address starting with http:// or https://")
    return address


def identifier(value: object) -> str:
    if not isinstance(value, str) or not ID_PATTERN.match(value.strip()):
        raise FieldError("an id of letters, digits, '-', '_' or '.'")
    return value.strip()


def identifiers(value: object) -> tuple[str, ...]:
    items = split_list(value)
    for item in items:
        identifier(item)
    return items


def split_list(value: object) -> tuple[str, ...]:
    """A ';'-separated cell, or a JSON list of strings, as a tuple of stripped items."""
    if isinstance(value, list | tuple):
        parts = [str(item) for item in value]
    elif isinstance(value, str):
        parts = value.split(LIST_SEPARATOR)
    else:
        raise FieldError(f"a list separated by '{LIST_SEPARATOR}'")
    return tuple(part.strip() for part in parts if part.strip())


def choice(kind: type[StrEnum]) -> Callable[[object], StrEnum]:
    allowed = ", ".join(member.value for member in kind)

    def parse(value: object) -> StrEnum:
        try:
            return kind(str(value).strip())
        except ValueError:
            raise FieldError(f"one of {allowed}") from None

    return parse


def number(low: float, high: float) -> Callable[[object], float]:
    def parse(value: object) -> float:
        try:
            result = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise FieldError(f"a number from {low:g} to {high:g}") from None
        if not low <= result <= high or math.isnan(result):
            raise FieldError(f"a number from {low:g} to {high:g}")
        return result

    return parse


def positive_integer(value: object) -> int:
    if isinstance(value, bool):
        raise FieldError("a whole number from 1 up")
    try:
        result = int(str(value).strip())
    except ValueError:
        raise FieldError("a whole number from 1 up") from None
    if result < 1:
        raise FieldError("a whole number from 1 up")
    if result > LARGEST:
        raise FieldError(f"a whole number from 1 to {LARGEST}")
    return result


def whole_number(value: object) -> int:
    """A count of things such as fatalities: 0, 1, 2 … (ACLED writes them as plain numbers)."""
    if isinstance(value, bool):
        raise FieldError("a whole number from 0 up")
    try:
        number_value = float(str(value).strip())
    except ValueError:
        raise FieldError("a whole number from 0 up") from None
    if not number_value.is_integer() or number_value < 0:
        raise FieldError("a whole number from 0 up")
    if number_value > LARGEST:
        raise FieldError(f"a whole number from 0 to {LARGEST}")
    return int(number_value)


LARGEST = 2**63 - 1
"""The largest whole number a GeoPackage's INTEGER holds (larger ones were stored as this)."""


def level(low: int, high: int) -> Callable[[object], int]:
    """A small whole number on a scale, such as ACLED's precision codes 1-3."""

    def parse(value: object) -> int:
        try:
            result = whole_number(value)
        except FieldError:
            raise FieldError(f"a whole number from {low} to {high}") from None
        if not low <= result <= high:
            raise FieldError(f"a whole number from {low} to {high}")
        return result

    return parse


def count(value: object) -> Count:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return Count(value, value)
    try:
        return Count.parse(str(value))
    except ValueError:
        raise FieldError(f"{COUNT_GRAMMAR} (whole numbers, not negative, low <= high)") from None


MOMENT_EXPECTED = "an ISO 8601 date-time with a UTC offset, such as 2016-12-15T14:30+02:00"


def moment(value: object) -> datetime:
    """An ISO 8601 date-time with an offset (or a TOML offset date-time), returned in UTC."""
    if isinstance(value, datetime):
        parsed = value
    else:
        raw = str(value).strip()
        try:
            parsed = datetime.fromisoformat(raw)
        except ValueError:
            raise FieldError(MOMENT_EXPECTED) from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise FieldError(MOMENT_EXPECTED + " (this one has no offset)")
    return parsed.astimezone(UTC)


def day(value: object) -> date:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise FieldError("a date as YYYY-MM-DD") from None


class Reference:
    """A parser of a cell that names other records: one id, or ids separated by ';' (many),
    each among the known ones. The schema finds reference fields by this class, to check a
    record built earlier against the ids a workspace holds now."""

    def __init__(self, known: Collection[str], what: str, *, many: bool = False) -> None:
        self.known, self.what, self.many = known, what, many

    def __call__(self, value: object) -> Any:
        if not self.many:
            item = identifier(value)
            if item not in self.known:
                raise FieldError(f"the id of a {self.what}")
            return item
        items = split_list(value)
        missing = [item for item in items if item not in self.known]
        if missing:
            unknown = ", ".join(missing)
            raise FieldError(
                f"ids separated by ';', each the id of a {self.what} (unknown: {unknown})"
            )
        return tuple(identifier(item) for item in items)


def reference(known: Collection[str], what: str) -> Reference:
    return Reference(known, what)


def references(known: Collection[str], what: str) -> Reference:
    return Reference(known, what, many=True)


@dataclass(frozen=True)
class Field:
    """One column or property: its name, its parser, and whether it must be filled."""

    name: str
    parse: Callable[[object], Any]
    required: bool = True
    attribute: str = ""

    @property
    def key(self) -> str:
        return self.attribute or self.name


@dataclass(frozen=True)
class Spot:
    """Where a row or feature is: the file and a readable position in it."""

    file: str
    where: str


def parse_fields(
    raw: Mapping[str, object],
    fields: Sequence[Field],
    spot: Spot,
    log: ProblemLog,
    memo: Memo | None = None,
) -> dict[str, Any] | None:
    """Parse every field of one row; log each problem; None when any field failed.

    `memo` (one per batch of rows checked against the same fields) keeps what a text cell
    parsed to, so that a value repeated down a column (a kind, a country, a source) is parsed
    once.
    """
    values: dict[str, Any] = {}
    ok = True
    for field in fields:
        value = raw.get(field.name)
        if (not value.strip()) if type(value) is str else is_blank(value):
            if field.required:
                log.error(
                    spot.file, spot.where, field.name, "a value (the field is required)", value
                )
                ok = False
            continue
        try:
            made = memo.made(field) if memo is not None and type(value) is str else None
            if made is None or memo is None:
                found = field.parse(value)
            else:
                found = made.get(value, _MISSING)
                if found is _MISSING:
                    found = memo.parse(field, value)
            if type(found) is _Refused:
                raise FieldError(found.expected)  # (a new one: raising one again grows its trace)
            values[field.key] = found
        except FieldError as error:
            log.error(spot.file, spot.where, field.name, str(error), value)
            ok = False
    return values if ok else None


class Memo:
    """What each field's parser made of the text cells it met (its answer, or why it refused),
    up to `KEPT` values a field: a column of unique values (ids, coordinates) stops being kept
    once it has shown it does not repeat."""

    KEPT = 2_000

    def __init__(self) -> None:
        self._made: dict[str, dict[object, Any] | None] = {}

    def made(self, field: Field) -> dict[object, Any] | None:
        """The field's answers so far; None once it has stopped keeping them."""
        try:
            return self._made[field.name]
        except KeyError:
            made: dict[object, Any] = {}
            self._made[field.name] = made
            return made

    def parse(self, field: Field, value: object) -> Any:
        """Parse a value not kept yet, and keep the answer (a refusal as `_Refused`)."""
        try:
            found = field.parse(value)
        except FieldError as error:
            found = _Refused(str(error))
        made = self._made[field.name]
        if made is not None:
            made[value] = found
            if len(made) >= self.KEPT:
                self._made[field.name] = None
        return found


@dataclass(frozen=True)
class _Refused:
    expected: str


_MISSING = object()


def check_columns(
    present: Collection[str], fields: Sequence[Field], file: str, log: ProblemLog
) -> None:
    """Report missing required columns and unknown ones (which would otherwise be lost)."""
    names = {field.name for field in fields}
    for field in fields:
        if field.required and field.name not in present:
            log.error(file, "header", field.name, "this column", "no such column")
    for name in present:
        if name not in names and name:
            log.warn(
                file,
                "header",
                name,
                f"one of the columns {', '.join(sorted(names))}",
                "an unknown column (its values are not read)",
            )
