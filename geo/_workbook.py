"""Sheets of an Excel (.xlsx, .xls) or OpenDocument (.ods) workbook as rows of text cells."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from pathlib import Path

from python_calamine import CalamineError, CalamineWorkbook, SheetTypeEnum

__all__ = ["Unreadable", "cell_text", "column_letter", "open_workbook", "sheet_names", "sheet_rows"]


class Unreadable(Exception):
    """The file is no workbook calamine can open (said in the message)."""


def open_workbook(path: Path) -> CalamineWorkbook:
    """The workbook at `path`, opened once for its sheets' names and rows."""
    try:
        return CalamineWorkbook.from_path(str(path))
    except (CalamineError, OSError, ValueError) as error:
        raise Unreadable(str(error) or type(error).__name__) from None


def sheet_names(workbook: CalamineWorkbook) -> list[str]:
    """The workbook's worksheets in their order (chart sheets and macro sheets left out)."""
    return [
        sheet.name for sheet in workbook.sheets_metadata if sheet.typ == SheetTypeEnum.WorkSheet
    ]


def sheet_rows(workbook: CalamineWorkbook, sheet: str) -> Iterator[tuple[int, list[str]]]:
    """Each row of a sheet as the spreadsheet numbers it (from 1), its cells as text."""
    try:
        values = workbook.get_sheet_by_name(sheet).to_python(skip_empty_area=False)
    except (CalamineError, ValueError) as error:
        raise Unreadable(str(error) or type(error).__name__) from None
    for number, row in enumerate(values, start=1):
        yield number, [cell_text(value) for value in row]


def cell_text(value: object) -> str:
    """A cell as a CSV would hold it: 12 for 12.0, dates and times in ISO 8601, TRUE/FALSE."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return repr(value)
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time() else value.isoformat()
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    return "" if value is None else str(value)


def column_letter(index: int) -> str:
    """A column's letters as a spreadsheet shows them: 0 is A, 26 is AA."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters
