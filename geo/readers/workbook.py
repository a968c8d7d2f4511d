"""Excel (.xlsx, .xls) and OpenDocument (.ods) workbooks: each sheet read as a table of text."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from pathlib import Path

from python_calamine import CalamineError, CalamineWorkbook, SheetTypeEnum

from geo.errors import ProblemLog
from geo.readers.base import Table
from geo.readers.delimited import read_rows
from geo.readers.safezip import ZipLimits
from geo.readers.text import Row

SUFFIXES = {
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".xls": "xlsx",  # (calamine reads the older binary workbooks too)
    ".ods": "ods",
}
"""The names this module reads, and the format each is."""
FORMATS = frozenset(SUFFIXES.values())


class Unreadable(Exception):
    """The file is no workbook calamine can open (said in the message)."""


def open_workbook(path: Path) -> CalamineWorkbook:
    """The workbook at `path`, opened once for its sheets' names and rows."""
    try:
        return CalamineWorkbook.from_path(str(path))
    except (CalamineError, OSError, ValueError) as error:
        raise Unreadable(str(error) or type(error).__name__) from None


def worksheets(workbook: CalamineWorkbook) -> list[str]:
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


def sheet_names(path: Path | str) -> list[str]:
    """A workbook's worksheets, in order; [] for a file that is no workbook."""
    try:
        return worksheets(open_workbook(Path(path)))
    except Unreadable:
        return []


def read(
    path: Path,
    file: str,
    layer: str | None,
    log: ProblemLog,
    limits: ZipLimits,
    *,
    sheet: str | None = None,
) -> list[Table]:
    """Every sheet with columns Corridor reads, or the one named, each a table of its own."""
    try:
        book = open_workbook(path)
        names = worksheets(book)
    except Unreadable as error:
        log.error(file, "", "", "an Excel or OpenDocument workbook", f"unreadable: {error}")
        return []
    if sheet is not None and sheet not in names:
        log.error(file, "", "sheet", f"one of the sheets {', '.join(map(repr, names))}", sheet)
        return []
    tables = []
    for name in [sheet] if sheet is not None else names:
        where = f"sheet {name!r}, "
        try:
            rows, letters = _trimmed(list(sheet_rows(book, name)))
        except Unreadable as error:
            log.error(file, where.rstrip(", "), "", "a readable sheet", str(error))
            continue
        if not rows:
            continue  # (an empty sheet holds nothing to say)
        unknown = sheet is None and len(names) > 1
        table = read_rows(
            rows, file, layer, log, where=where, skip_unknown=unknown, columns=letters
        )
        tables += [table] if table is not None else []
    return tables


def _trimmed(rows: list[Row]) -> tuple[list[Row], list[str]]:
    """A sheet's rows without the columns blank from top to bottom (a sheet is a grid, so its
    rows are as wide as its widest; a CSV's are as wide as they are written), and the letters
    of the columns kept."""
    width = max((len(cells) for _, cells in rows), default=0)
    used = [i for i in range(width) if any(i < len(c) and c[i].strip() for _, c in rows)]
    kept = [(n, [cells[i] if i < len(cells) else "" for i in used]) for n, cells in rows]
    return kept, [column_letter(i) for i in used]
