"""Events from a CSV read, filled and checked a column at a time; None wherever a row must speak."""

from __future__ import annotations

import csv
import functools
import itertools
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from geo import _schema as s
from geo import hxl
from geo._spreadsheet import restored
from geo.errors import ProblemLog
from geo.event_table import EventTable, from_cells
from geo.readers.acled import is_acled, iso_date
from geo.readers.base import suffix_of
from geo.readers.delimited import SUFFIXES
from geo.readers.text import Sniffed, csv_keys, csv_layer, lines, sniff

CHUNK_ROWS = 65_536
"""Rows checked and typed at once (issue 40): only one chunk's text columns are held beside
the file's text and the typed events made so far (a million ACLED rows held whole as text
columns, twice over, peaked at 2.4 GB). Tests make it small to cross chunk boundaries."""


@functools.cache
def _blank() -> str:
    """A cell that is only white space as Python's str.strip() sees it (RE2 syntax)."""
    space = (f"\\x{{{code:x}}}" for code in range(sys.maxunicode + 1) if chr(code).isspace())
    return f"^[{''.join(space)}]*$"


@dataclass(frozen=True)
class Read:
    """A file's events, checked, and what the import reports about the file."""

    events: EventTable
    columns: tuple[str, ...]
    """The cell keys of the file's columns that are read, in order (for the unread warning)."""


def read_events(
    source: Path | Sniffed,
    label: str,
    *,
    layer: str | None,
    defaults: Mapping[str, str],
    source_id: str,
    known: s.Known,
) -> Read | None:
    """The events of a CSV file (its path, or the file as `sniff` read it) as the row-by-row
    import would make them, with `defaults` for blank cells and `source_id` where the source
    is blank; None when it would report anything (then the row-by-row path reads it, reusing
    what was sniffed, and says it row by row).

    A million ACLED rows made a million dicts three times over (read, filled, parsed) before a
    record was built. Here Arrow's CSV reader splits the rows by the rules of Python's (so
    cells are exactly what the row-by-row path sees; Python's splits what Arrow's cannot) into
    Arrow columns, and every cell rule of that path (blank cells, spreadsheet quotes, ACLED's
    dates, defaults, the parsers) is applied to each distinct value of a column. Whenever that
    path would say anything about the file (an encoding guessed, a row of the wrong length, a
    cell refused, an id repeated, an id to make), this gives up.
    """
    if suffix_of(label) not in SUFFIXES or layer not in (None, "events"):
        return None
    sniffed = source if isinstance(source, Sniffed) else sniff(source, label)
    if sniffed.said:
        return None  # (an encoding guessed, another separator, or not a readable text file)
    quiet = ProblemLog()
    content, delimiter = sniffed.text, sniffed.delimiter
    untagged = _untagged(content, delimiter)
    if untagged is None:
        return None  # (a hashtag row elsewhere: the row-by-row path reads it by its tags)
    content = untagged
    rows = csv.reader(lines(content), delimiter=delimiter)
    try:
        header = [cell.strip() for cell in next(rows, [])]
    except csv.Error:
        return None
    if not header or (layer or csv_layer(header)) != "events":
        return None
    acled = is_acled(header)
    keys = csv_keys(header, "events", label, quiet, acled=acled)
    read = [key for key in keys if key]
    if (
        len(quiet)
        or len(set(read)) != len(read)
        or not all(isinstance(value, str) for value in defaults.values())
    ):  # (two columns read as one field: the row path keeps the last without a word)
        return None
    chunks = _split_chunks(content, delimiter, keys)
    try:
        events = _chunked_events(chunks, acled=acled, defaults=defaults, source_id=source_id,
                                 known=known)  # fmt: skip
    except _Unsplit:  # (Arrow's reader cannot split it as Python's does: Python's tries)
        events = _chunked_events(_columns(rows, keys), acled=acled, defaults=defaults,
                                 source_id=source_id, known=known)  # fmt: skip
    if events is None:
        return None
    return Read(events, tuple(key for key in keys if key))


def _chunked_events(
    chunks: Iterator[dict[str, pa.Array] | None],
    *,
    acled: bool,
    defaults: Mapping[str, str],
    source_id: str,
    known: s.Known,
) -> EventTable | None:
    """The events of each chunk of cells checked and typed in turn (only one chunk's text
    columns held at a time), then joined; None when any chunk would be reported, or an id
    repeats across chunks."""
    tables: list[pa.Table] = []
    for cells in chunks:
        events = None if cells is None else _events(cells, acled, defaults, source_id, known)
        if events is None:
            return None
        tables.append(events.table)
    if not tables:
        return None
    table = pa.concat_tables(tables)
    del tables
    ids = table.column("id")
    if pc.count_distinct(ids).as_py() != len(ids):
        return None
    return EventTable(table)


def _events(
    cells: dict[str, pa.Array],
    acled: bool,
    defaults: Mapping[str, str],
    source_id: str,
    known: s.Known,
) -> EventTable | None:
    """One chunk's text columns as events, every cell rule of the row-by-row path applied."""
    if not len(cells.get("id", ())):
        return None
    size = len(next(iter(cells.values())))
    cells = {key: _normalised(column) for key, column in cells.items()}
    if acled and "date" in cells:
        cells["date"] = _mapped(cells["date"], iso_date)
    for key, value in {**defaults, "source": defaults.get("source", source_id)}.items():
        cells[key] = _filled(cells.get(key), value, size)
    if pc.any(pc.equal(cells["id"], "")).as_py():
        return None  # an id to make: the row-by-row path makes them
    return from_cells(cells, known, size=size)


def _untagged(content: str, delimiter: str) -> str | None:
    """The file without an HXL hashtag row right under its header (an ACLED export from HDX:
    its columns are read by their names); None when a hashtag row is anywhere else."""
    try:
        head = list(itertools.islice(
            csv.reader(lines(content), delimiter=delimiter),
            hxl.HASHTAG_ROWS_SCANNED,
        ))  # fmt: skip
    except csv.Error:
        return None  # (the row-by-row path says what is wrong)
    index = hxl.hashtag_row(head)
    if index is None:
        return content
    parts = content.split("\n", 2)
    if index != 1 or len(parts) < 2 or not is_acled(head[0]):
        return None
    if next(csv.reader([parts[1]], delimiter=delimiter), None) != head[1]:
        return None  # (the tags' row is not one line as written)
    return parts[0] + "\n" + (parts[2] if len(parts) > 2 else "")


class _Unsplit(Exception):
    """Arrow's reader cannot split the file as Python's does (Python's may)."""


class _Refused(Exception):
    """Python's reader would refuse the file (a cell over its size limit)."""


_UNSPLIT: dict[str, pa.Array] = {}
"""`_split`'s answer when Arrow's reader cannot split the file (Python's may)."""


def _split(content: str, delimiter: str, keys: list[str | None]) -> dict[str, pa.Array] | None:
    """The rows (after the header) as a column of text per read key, all at once (see
    `_split_chunks`); None when Python's reader would refuse the file, `_UNSPLIT` when Arrow's
    cannot split it as Python's does."""
    parts: dict[str, list[pa.Array]] = {key: [] for key in keys if key}
    try:
        for chunk in _split_chunks(content, delimiter, keys):
            if chunk is None:
                return None
            for key, column in chunk.items():
                parts[key].append(column)
    except _Unsplit:
        return _UNSPLIT
    return {key: pa.concat_arrays(arrays) for key, arrays in parts.items()}


def _split_chunks(
    content: str, delimiter: str, keys: list[str | None]
) -> Iterator[dict[str, pa.Array] | None]:
    """The rows (after the header) as a column of text per read key, CHUNK_ROWS at a time,
    split by Arrow's CSV reader with the rules of Python's (a million rows: 10 s -> 1 s); a
    None when Python's would refuse the file (a cell over its size limit); raises `_Unsplit`
    when Arrow's cannot split it as Python's does (rows of other lengths among them, a
    byte-order mark Arrow would drop: then Python's reader tries)."""
    if content.startswith("\ufeff"):
        raise _Unsplit
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:
        raise _Unsplit from None
    block = _block_size(data)
    if block is None:
        raise _Unsplit
    options = {
        "read_options": pacsv.ReadOptions(autogenerate_column_names=True, block_size=block),
        "parse_options": pacsv.ParseOptions(
            delimiter=delimiter,
            quote_char='"',
            double_quote=True,
            escape_char=False,
            newlines_in_values=True,
            ignore_empty_lines=True,
        ),
        "convert_options": pacsv.ConvertOptions(
            column_types={f"f{index}": pa.string() for index in range(len(keys))},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    }
    try:
        for chunk in _rechunked(_batches(data, options, len(keys))):
            yield {key: chunk.column(index).chunk(0) for index, key in enumerate(keys) if key}
    except _Refused:
        yield None


def _batches(data: bytes, options: dict[str, Any], width: int) -> Iterator[pa.RecordBatch]:
    """The file's record batches after its header row, read a block at a time; `_Unsplit`
    when Arrow cannot read them, they are not `width` columns, or there is no row;
    `_Refused` when a cell (the header's too) is longer than Python's reader takes."""
    rows = 0
    limit = csv.field_size_limit()
    try:
        reader = pacsv.open_csv(pa.BufferReader(pa.py_buffer(data)), **options)
        if len(reader.schema) != width:
            raise _Unsplit
        for batch in reader:
            if any(
                (pc.max(pc.utf8_length(column)).as_py() or 0) > limit for column in batch.columns
            ):
                raise _Refused
            if not rows and batch.num_rows:
                batch, rows = batch.slice(1), 1  # (its first row is the header)
            rows += batch.num_rows
            if batch.num_rows:
                yield batch
    except pa.ArrowInvalid:
        raise _Unsplit from None
    if rows < 2:
        raise _Unsplit


def _rechunked(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.Table]:
    """The batches gathered into tables of CHUNK_ROWS rows (the last may hold fewer), each
    one chunk per column."""
    held: list[pa.RecordBatch] = []
    count = 0
    for batch in batches:
        held.append(batch)
        count += batch.num_rows
        while count >= CHUNK_ROWS:
            table = pa.Table.from_batches(held)
            yield table.slice(0, CHUNK_ROWS).combine_chunks()
            rest = table.slice(CHUNK_ROWS)
            held, count = rest.to_batches(), rest.num_rows
    if count:
        yield pa.Table.from_batches(held).combine_chunks()


BLOCK_BYTES = 1 << 20
"""Arrow's CSV reader reads this many bytes at a time (its default)."""


def _block_size(data: bytes) -> int | None:
    """A block size near BLOCK_BYTES at which no block ends between a CR and its LF: Arrow's
    reader then drops the LF even inside quotes (apache/arrow#51368). None when none of a few
    sizes tried is clear of them."""
    text = np.frombuffer(data, dtype=np.uint8)
    for size in range(BLOCK_BYTES, BLOCK_BYTES + 16):
        ends = np.arange(size, len(text), size)
        if not ((text[ends - 1] == ord("\r")) & (text[ends] == ord("\n"))).any():
            return size
    return None


def _columns(
    rows: Iterator[list[str]], keys: list[str | None]
) -> Iterator[dict[str, pa.Array] | None]:
    """The rows as a column of text per read key, CHUNK_ROWS at a time; a None when a row is
    not one cell a column (or none is read)."""
    read = [(index, key) for index, key in enumerate(keys) if key]
    if not read:
        yield None
        return
    width = len(keys)
    given = False
    try:
        while batch := list(itertools.islice(rows, CHUNK_ROWS)):
            batch = [row for row in batch if row]  # a blank line holds nothing
            if any(len(row) != width for row in batch):
                yield None
                return
            if not batch:
                continue
            split = list(zip(*batch, strict=True))
            given = True
            yield {key: pa.array(split[index], pa.string()) for index, key in read}
    except csv.Error:
        yield None
        return
    if not given:
        yield None


def _normalised(column: pa.Array) -> pa.Array:
    """Cells as the row-by-row import sees them once filled: a quote a spreadsheet put before a
    formula's first character taken off (`restored`), then white space alone blank (a quote
    before a tab leaves a blank cell, which takes the import's default)."""
    if pc.any(pc.starts_with(column, "'")).as_py():
        column = _mapped(column, restored)
    blank = pc.match_substring_regex(column, _blank())
    if pc.any(blank).as_py():
        column = pc.if_else(blank, "", column)
    return column


def _filled(column: pa.Array | None, value: str, size: int) -> pa.Array:
    """A blank cell (or a column the file lacks) given the import's default."""
    if column is None:
        return pa.array([value] * size, pa.string())
    return pc.if_else(pc.equal(column, ""), value, column)


def _mapped(column: pa.Array, change: Callable[[str], str]) -> pa.Array:
    """`change` applied to each distinct cell once."""
    distinct = pc.unique(column)
    made = pa.array([change(value) for value in distinct.to_pylist()], pa.string())
    return made.take(pc.index_in(column, value_set=distinct))
