"""CSV cells a spreadsheet shows as text, never runs as formulas (OWASP "CSV injection")."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_FORMULA = re.compile("'*[=+\\-@\t\r]")
"""A cell a spreadsheet would run (=, +, -, @, tab, return first), after any quotes already
put before it."""


RISKY_FIRST = frozenset("'=+-@\t\r")
"""The first characters of a text `inert` may change (any other text it leaves as it is)."""


def inert(value: Any) -> Any:
    """A text cell with a single quote put before a formula's first character.

    OWASP's advice: Excel, LibreOffice and Google Sheets show the cell as text and hide the
    quote. Text that already starts with quotes before such a character gets one more, so that
    `restored` gives every text back exactly. Numbers are left alone (-5 is a number).
    """
    if isinstance(value, str) and _FORMULA.match(value):
        return "'" + value
    return value


def restored(text: str) -> str:
    """The text `inert` was given: the one quote it put before a formula's first character off."""
    return text[1:] if text.startswith("'") and _FORMULA.match(text) else text


def csv_text(
    rows: Iterable[Mapping[str, Any]],
    columns: Sequence[str],
    *,
    hashtags: Sequence[str] | None = None,
) -> str:
    """The rows under a header row (there even when no row is), every text cell inert.

    `hashtags`, one per column, are written as a row of their own under the header (HXL's
    hashtag row; a tag starts with `#`, which `inert` leaves as it is).
    """
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    if hashtags is not None:
        if len(hashtags) != len(columns):
            raise ValueError(
                f"hashtags: expected {len(columns)}, one per column, got {len(hashtags)}"
            )
        writer.writerow({column: inert(tag) for column, tag in zip(columns, hashtags, strict=True)})
    writer.writerows({key: inert(value) for key, value in row.items()} for row in rows)
    return out.getvalue()
