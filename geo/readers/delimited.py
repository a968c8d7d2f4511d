"""CSV files (and any table of text rows, a sheet's too) read into raw records of one layer."""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from geo import hxl
from geo._schema import RawRecord
from geo._spreadsheet import restored
from geo.errors import ProblemLog
from geo.readers.acled import is_acled, iso_date
from geo.readers.base import LAYER_GEOMETRY, LINE, POLYGON, Table, row_spot
from geo.readers.safezip import ZipLimits
from geo.readers.text import (
    Row,
    Sniffed,
    checked_keys,
    csv_keys,
    csv_layer,
    filled,
    lines,
    replay,
    sniff,
)

SUFFIXES = {".csv": "csv"}
"""The names this module reads, and the format each is."""


def read(
    path: Path, file: str, layer: str | None, log: ProblemLog, limits: ZipLimits
) -> list[Table]:
    """A CSV file's rows as one table (see `read_sniffed`)."""
    return read_sniffed(sniff(path, file), layer, log)


def read_sniffed(sniffed: Sniffed, layer: str | None, log: ProblemLog) -> list[Table]:
    """A CSV file already decoded and sniffed: what sniffing said, then its rows as one table."""
    chunks = list(read_chunks(sniffed, layer, log, rows=None))
    if not chunks:
        return []
    return [Table(chunks[0].layer, [raw for chunk in chunks for raw in chunk.rows])]


def read_chunks(
    sniffed: Sniffed, layer: str | None, log: ProblemLog, *, rows: int | None
) -> Iterator[Table]:
    """A CSV file already decoded and sniffed: what sniffing said, then its rows as tables of
    one layer, `rows` at a time (None: all in one), numbered as the file numbers them; each
    problem goes to `log` as the rows around it are read. At least one table (it may be
    empty) when the file has a header."""
    replay(sniffed.said, log)
    if sniffed.refused:
        return
    file, content, delimiter = sniffed.file, sniffed.text, sniffed.delimiter
    numbered = _numbered(csv.reader(lines(content), delimiter=delimiter), file, log)
    found = _rows_of(numbered, file, layer, log)
    if found is None:
        return
    target, records, _ = found
    first = True
    while (chunk := list(itertools.islice(records, rows))) or first:
        first = False
        if delimiter == ";":  # spreadsheets that write ';' between cells write decimal commas
            chunk = [_decimal_points(record) for record in chunk]
        yield Table(target, chunk)
        if rows is None:
            return


def _numbered(rows: Iterator[list[str]], file: str, log: ProblemLog) -> Iterator[Row]:
    """Each CSV record with its number (the header is 1); a malformed one is the end, said."""
    number = 0
    try:
        for number, cells in enumerate(rows, start=1):
            yield number, cells
    except csv.Error as error:
        log.error(
            file, f"row {number + 1}" if number else "header", "", "well-formed CSV", str(error)
        )


def read_rows(
    rows: Iterable[Row],
    file: str,
    layer: str | None,
    log: ProblemLog,
    *,
    where: str = "",
    skip_unknown: bool = False,
    columns: Sequence[str] = (),
) -> Table | None:
    """The rows of a table (a CSV file or a sheet) under its header, and an HXL hashtag row if
    it has one, as raw records of one layer; None when it has no rows to read (said in `log`,
    except a sheet skipped for having no column Corridor reads, which is a warning).

    `where` comes before each row's number ("sheet 'IDPs', "); `skip_unknown` skips a table
    none of whose columns Corridor reads, with a warning, instead of refusing every row;
    `columns` names the columns in messages (a sheet's letters; default: 1, 2, 3…).
    """
    found = _rows_of(
        rows, file, layer, log, where=where, skip_unknown=skip_unknown, columns=columns
    )
    if found is None:
        return None
    target, records, source_layer = found
    return Table(target, list(records), source_layer=source_layer)


def _rows_of(
    rows: Iterable[Row],
    file: str,
    layer: str | None,
    log: ProblemLog,
    *,
    where: str = "",
    skip_unknown: bool = False,
    columns: Sequence[str] = (),
) -> tuple[str, Iterator[RawRecord], str] | None:
    """`read_rows`' layer, its raw records as they are read, and the part of the file."""
    rows = iter(rows)
    head = [row for row in itertools.islice(rows, hxl.HASHTAG_ROWS_SCANNED) if filled(row)]
    found = _layout(head, file, where, log)
    if found is None:
        return None
    header, tags, data = found
    target = layer or (hxl.layer_of(tags) if tags else None) or csv_layer(header)
    if LAYER_GEOMETRY[target] in (LINE, POLYGON):
        expected = f"a file with geometry for the {target} layer (GeoJSON, KML, GPX, GeoPackage)"
        got = f"{'a sheet' if where else 'a CSV file'} (it has no geometry)"
        log.error(file, where.rstrip(", "), "", expected, got)
        return None
    acled = target == "events" and is_acled(header)
    implied: dict[str, str] = {}
    if tags and not acled:
        tagged = hxl.tagged_columns(header, tags, target)
        keys, implied = checked_keys(tagged.keys, file, where, log), tagged.implied
    else:
        keys = csv_keys(header, target, file, log, acled=acled, where=where, columns=columns)
    if skip_unknown and not acled and len(set(keys) & set(hxl.TAGS[target])) < 2:
        shown = ", ".join(name for name in header if name) or "none"
        expected = "columns of a layer Corridor reads (this sheet is not read)"
        log.warn(file, where.rstrip(", "), "", expected, shown)
        return None
    records = _csv_records(
        itertools.chain(data, rows), keys, file, log, acled=acled, where=where, implied=implied
    )
    return target, records, where.removeprefix("sheet ").rstrip(", ")


def _layout(
    head: list[Row], file: str, where: str, log: ProblemLog
) -> tuple[list[str], list[hxl.Tag | None], list[Row]] | None:
    """The header, the HXL tags (none: an empty list) and the rows read after them."""
    if not head:
        log.error(file, where.rstrip(", "), "", "a header row naming the columns", "no rows")
        return None
    index = hxl.hashtag_row([cells for _, cells in head])
    if index is None:
        header = [cell.strip() for cell in head[0][1]]
        return header, [], head[1:]
    tags = [hxl.parse(cell) for cell in head[index][1]]
    header = [cell.strip() for cell in head[index - 1][1]] if index else [""] * len(tags)
    if index > 1:
        titles = f"rows {head[0][0]}-{head[index - 2][0]}" if index > 2 else f"row {head[0][0]}"
        log.warn(file, where + titles, "", "the header row first", "titles above it: not read")
    header += [""] * (len(tags) - len(header))
    tags += [None] * (len(header) - len(tags))
    return header, tags, head[index + 1 :]


_DECIMAL_COMMA = re.compile(r"-?\d+,\d+")


def _decimal_points(record: RawRecord) -> RawRecord:
    """Coordinates written with a decimal comma ('36,2012') with a decimal point."""
    cells = dict(record.cells)
    for key in ("latitude", "longitude"):
        value = cells.get(key)
        if isinstance(value, str) and _DECIMAL_COMMA.fullmatch(value.strip()):
            cells[key] = value.strip().replace(",", ".")
    return RawRecord(record.spot, cells, record.geometry)


def _csv_records(
    rows: Iterable[Row],
    keys: list[str | None],
    file: str,
    log: ProblemLog,
    *,
    acled: bool,
    where: str = "",
    implied: Mapping[str, str] | None = None,
) -> Iterator[RawRecord]:
    for number, row in rows:
        if not filled((number, row)):
            continue  # a blank line holds nothing
        if len(row) != len(keys):
            present = {key: cell for key, cell in zip(keys, row, strict=False) if key}
            spot = row_spot(file, f"{where}row {number}", present)
            expected = f"{len(keys)} cells, one per column of the header"
            log.error(file, spot.where, "", expected, f"{len(row)} cells")
            continue
        pairs = zip(keys, row, strict=True)
        cells = {key: restored(value) if value.strip() else "" for key, value in pairs if key}
        for key, value in (implied or {}).items():
            if not cells.get(key):
                cells[key] = value
        if acled and "date" in cells:
            cells["date"] = iso_date(cells["date"])
        yield RawRecord(row_spot(file, f"{where}row {number}", cells), cells)
