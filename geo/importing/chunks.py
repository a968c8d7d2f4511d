"""A file read into rows and checked: a clean CSV by columns, other CSVs by chunks, others whole."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, MutableMapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from pathlib import Path
from typing import Any, Self, overload

from geo import _schema as s
from geo import readers
from geo._fields import Spot
from geo.errors import Problem, ProblemLog
from geo.importing.options import FIGURE_PLACE_CELLS, KINDS, ORDER, UNZIPPED_LIMITS, Options
from geo.importing.rows import Context
from geo.readers import columnar


def read_file(
    path: Path,
    label: str,
    size: int,
    options: Options,
    context: Context,
    log: ProblemLog,
    records: dict[str, Sequence[Any]],
) -> int:
    """Read the file into `records`, each problem logged; the rows read."""
    read = _read(path, label, size, options, context, log)
    if isinstance(read, columnar.Read):
        records.update({layer: [] for layer in ORDER}, events=read.events)
        read_cells = [s.RawRecord(Spot(label, ""), dict.fromkeys(read.columns, ""))]
        _warn_unread_columns("events", read_cells, label, log)
        return len(read.events)
    if isinstance(read, list):
        return _read_rows(read, label, context, log, records)
    return _read_chunks(read, label, context, log, records, keep=not options.check_only)


def _read(
    path: Path, label: str, size: int, options: Options, context: Context, log: ProblemLog
) -> columnar.Read | list[readers.Table] | Iterator[readers.Table]:
    """The file's events read a column at a time when it is a clean CSV of events (see
    `geo.readers.columnar`), else a CSV's rows read a chunk at a time, else its raw tables
    read row by row; a CSV's text is read and sniffed once for all."""
    sniffed = _sniffed(path, label, size, options)
    fast = _read_columns(sniffed, label, options, context)
    if fast is not None:
        return fast
    if sniffed is not None and options.sheet is None:
        return readers.read_chunks(sniffed, log=log, layer=options.layer, rows=CHUNK_ROWS)
    if size > options.max_bytes:
        expected = f"a file of at most {options.max_bytes / 2**20:g} MB"
        log.error(label, "", "", expected, f"{size / 2**20:.1f} MB")
        return []
    limits = replace(UNZIPPED_LIMITS, max_total_bytes=4 * options.max_bytes)
    return readers.read_file(
        path,
        log=log,
        name=label,
        layer=options.layer,
        limits=limits,
        sheet=options.sheet,
        sniffed=sniffed,
    )


def _sniffed(path: Path, label: str, size: int, options: Options) -> readers.Sniffed | None:
    """A CSV file's text and separator, read once (None for other files, or one too large)."""
    if size > options.max_bytes or readers.format_of(label) != "csv":
        return None
    return readers.sniff(path, label)


def _read_columns(
    sniffed: readers.Sniffed | None, label: str, options: Options, context: Context
) -> columnar.Read | None:
    if sniffed is None or options.swap:
        return None
    return columnar.read_events(
        sniffed, label, layer=options.layer, defaults=options.defaults,
        source_id=context.source_id, known=context.known(),
    )  # fmt: skip


def _read_rows(
    tables: Sequence[readers.Table],
    label: str,
    context: Context,
    log: ProblemLog,
    records: dict[str, Sequence[Any]],
) -> int:
    """The raw tables checked row by row into `records`, each problem logged; the rows read."""
    raws: dict[str, list[s.RawRecord]] = {layer: [] for layer in ORDER}
    for table in tables:
        raws[table.layer] += table.rows
        _warn_unread_columns(table.layer, table.rows, label, log)
    rows = sum(len(items) for items in raws.values()) + _dropped(log, raws)
    context.locate(raws["places"])
    for layer in ORDER:
        filled = [context.fill(layer, raw, log) for raw in raws[layer]]
        kept = [raw for raw in filled if raw is not None]
        known = context.known()
        built = s.build(KINDS[layer], kept, known, log)
        context.added(layer, built)
        records[layer] = built
    records["places"] = [*context.new_places, *records["places"]]
    return rows


CHUNK_ROWS = 16_384
"""Rows of a CSV file checked at once on the row-by-row path (issue 40: three million places
held as raw rows at once took 5.7 GB); tests make it small to cross chunk boundaries."""


def _read_chunks(
    chunks: Iterator[readers.Table],
    label: str,
    context: Context,
    log: ProblemLog,
    records: dict[str, Sequence[Any]],
    *,
    keep: bool,
) -> int:
    """A CSV file's rows (all of one layer) checked a chunk at a time into `records`, every
    problem logged as the whole file read at once logs it (what reading said, the columns
    not read, then each row's problems); the rows read. `keep`: False to count what would be
    added but places, convoys … (not events) without holding them."""
    filling, building = ProblemLog(), ProblemLog()  # (said after the reader's, as they were)
    made: dict[str, list[Any]] = {layer: [] for layer in ORDER}
    counted = dict.fromkeys(ORDER, 0)
    seen = _Seen()  # (ids built in earlier chunks: each used once in the file)
    head: list[s.RawRecord] | None = None
    layer, rows, said = "places", 0, len(log)
    for table in chunks:
        layer = table.layer
        head = table.rows[:UNREAD_SCANNED] if head is None else head
        rows += len(table.rows) + _dropped_among(list(log)[said:], table.rows)
        said = len(log)
        if layer == "places":
            context.located = {}  # (keyed by the id() of rows that are gone after a chunk)
            context.locate(table.rows)
        if not isinstance(context.ids[layer], _Ids):  # (one set of the ids built: `_Ids`)
            context.ids[layer] = _Ids(context.ids[layer], seen)
        filled = [context.fill(layer, raw, filling) for raw in table.rows]
        kept = [raw for raw in filled if raw is not None]
        del filled
        built = s.build(KINDS[layer], kept, context.known(), building, seen=seen)
        seen.settle(built)
        context.added(layer, built)
        counted[layer] += len(built)
        if keep or layer == "events":
            made[layer] += built
    rows += _dropped_among(list(log)[said:], [])  # (a malformed row that ended the file)
    _warn_unread_columns(layer, head or [], label, log)
    log.extend(filling)
    log.extend(building)
    for name in ORDER:
        records[name] = made[name] if keep or name == "events" else _Counted(counted[name])
    if keep:
        records["places"] = [*context.new_places, *records["places"]]
    else:
        records["places"] = _Counted(len(context.new_places) + counted["places"])
    return rows


class _Seen(MutableMapping[str, str]):
    """The ids a file's rows were built with, and where each row was ("row 12 (id 'p1')" held
    as 12: three million places' rows as text took 240 MB)."""

    def __init__(self) -> None:
        self._rows: dict[str, int | str] = {}
        self._fresh: set[str] = set()
        """Ids set since the last `settle` (the chunk being built)."""
        self._refused: set[str] = set()
        """Ids of rows built and then refused (their record failed a check)."""

    def settle(self, built: Sequence[Any]) -> None:
        """The chunk just built: the ids set for it whose record is not among `built` were
        refused (so not `accepted`)."""
        self._refused |= self._fresh - {record.id for record in built}
        self._fresh = set()

    def accepted(self, key: object) -> bool:
        """Whether `key` is the id of a record built and kept in an earlier chunk."""
        return key in self._rows and key not in self._fresh and key not in self._refused

    def __getitem__(self, key: str) -> str:
        where = self._rows[key]
        return f"row {where} (id {key!r})" if isinstance(where, int) else where

    def __setitem__(self, key: str, where: str) -> None:
        number = where.removeprefix("row ").partition(" ")[0]
        plain = number.isascii() and number.isdigit() and f"row {int(number)} (id {key!r})"
        self._rows[key] = int(number) if plain == where else where
        self._fresh.add(key)

    def __delitem__(self, key: str) -> None:
        del self._rows[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: object) -> bool:
        return key in self._rows


class _Ids(set[str]):
    """A layer's ids as `Context.ids` holds them while a file is read in chunks: those of the
    scenario and those made (held here), and those of the records built and kept (held once,
    by the `_Seen` of the file's ids: three million places' ids in a set beside it took
    130 MB more). Only `in`, `add`, `|=`, iteration and `len` are what they seem."""

    def __init__(self, ids: set[str], seen: _Seen) -> None:
        super().__init__(ids)
        self._seen = seen

    def __contains__(self, key: object) -> bool:
        return set.__contains__(self, key) or self._seen.accepted(key)

    def add(self, key: str) -> None:
        if not self._seen.accepted(key):
            set.add(self, key)

    def __ior__(self, other: AbstractSet[Any]) -> Self:  # type: ignore[override,misc]
        for key in other:
            self.add(key)
        return self

    def __iter__(self) -> Iterator[str]:
        kept = (key for key in self._seen if self._seen.accepted(key))
        return itertools.chain(
            set.__iter__(self), (k for k in kept if not set.__contains__(self, k))
        )

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Counted(Sequence[Any]):
    """As many records as a dry run counted, none of them held (`Options.check_only`)."""

    def __init__(self, count: int) -> None:
        self._count = count

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        raise TypeError("a dry run's records are counted, not kept (Options.check_only)")


def _dropped_among(problems: Sequence[Problem], handed: Sequence[s.RawRecord]) -> int:
    """Rows the reader could not hand on at all, among `problems` said while `handed` were
    read (`_dropped` for one chunk)."""
    spots = {(p.file, p.where) for p in problems
             if p.severity == "error" and p.where and p.where != "header"}  # fmt: skip
    return len(spots - {(raw.spot.file, raw.spot.where) for raw in handed})


UNREAD_SHOWN = 8
"""Names of columns that are not read, listed in the warning (the rest are counted)."""
UNREAD_SCANNED = 1000
"""Rows whose cells are looked at for columns not read."""


def _warn_unread_columns(layer: str, rows: list[s.RawRecord], file: str, log: ProblemLog) -> None:
    """One warning naming the columns of a file that no field of its layer reads."""
    known = set(s.field_names(KINDS[layer])) | {"latitude", "longitude"}
    known |= set(FIGURE_PLACE_CELLS) if layer == "figures" else set()
    present = dict.fromkeys(key for raw in rows[:UNREAD_SCANNED] for key in raw.cells)
    unread = [key for key in present if key not in known]
    if not unread:
        return
    shown = ", ".join(unread[:UNREAD_SHOWN])
    more = f" and {len(unread) - UNREAD_SHOWN:,} more" if len(unread) > UNREAD_SHOWN else ""
    expected = f"columns that {layer} have ({', '.join(sorted(known))})"
    log.warn(file, "", "", expected, f"{len(unread):,} others, not read: {shown}{more}")


def _dropped(log: ProblemLog, raws: dict[str, list[s.RawRecord]]) -> int:
    """Rows the reader could not hand on at all (each has an error naming it)."""
    handed = {(raw.spot.file, raw.spot.where) for rows in raws.values() for raw in rows}
    spots = {(p.file, p.where) for p in log.errors if p.where and p.where != "header"}
    return len(spots - handed)
