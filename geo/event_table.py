"""A scenario's events kept as Arrow columns: a read-only sequence of Event made when asked."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import shapely

from geo import _fields as f
from geo import _schema as s
from geo.records import Event, from_checked_columns

SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("date", pa.date32()),
        ("event_type", pa.string()),
        ("latitude", pa.float64()),
        ("longitude", pa.float64()),
        ("source", pa.list_(pa.string())),
        ("sub_event_type", pa.string()),
        ("actor1", pa.string()),
        ("actor2", pa.string()),
        ("location", pa.string()),
        ("admin1", pa.string()),
        ("country", pa.string()),
        ("fatalities", pa.int64()),
        ("notes", pa.string()),
        ("reported_by", pa.string()),
        ("geo_precision", pa.int64()),
        ("time_precision", pa.int64()),
    ]
)
"""One column per field of Event, in its order."""
assert SCHEMA.names == [field.name for field in dataclasses.fields(Event)]
_DEFAULTS = {
    field.name: field.default
    for field in dataclasses.fields(Event)
    if field.default is not dataclasses.MISSING
}
_VALUES = operator.attrgetter(*SCHEMA.names)
BATCH = 8_192
"""Events made at a time while iterating."""


class EventTable(Sequence[Event]):
    """Events as columns (a million take tens of megabytes, where Event records took gigabytes);
    indexing or iterating makes each Event when it is asked for. Equal to any sequence of the
    same events in the same order, a tuple among them."""

    __slots__ = ("_table",)

    def __init__(self, table: pa.Table) -> None:
        if table.schema != SCHEMA:
            raise TypeError(f"expected columns {SCHEMA}, got {table.schema}")
        self._table = table.combine_chunks()

    @classmethod
    def from_records(cls, events: Iterable[Event]) -> EventTable:
        rows = [_VALUES(event) for event in events]  # (astuple would copy each value deeply)
        columns: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else []
        columns = columns or [[] for _ in SCHEMA.names]
        arrays = [pa.array(col, type=spec.type) for col, spec in zip(columns, SCHEMA, strict=True)]
        return cls(pa.Table.from_arrays(arrays, schema=SCHEMA))

    def pick(self, indexes: Iterable[int]) -> list[Event]:
        """The events at these positions, made at once (one at a time, each is a slice of
        every column: 2,000 took 0.46 s)."""
        rows = pa.array(list(indexes), pa.int64())
        return _events(self._table.take(rows)) if len(rows) else []

    def by_id(self, ids: Iterable[str]) -> dict[str, Event]:
        """The events with these ids, by id (ids it does not hold are left out)."""
        wanted = pa.array(sorted({i for i in ids if isinstance(i, str)}), pa.string())
        rows = pc.indices_nonzero(pc.is_in(self.column("id"), value_set=wanted))
        return {event.id: event for event in _events(self._table.take(rows))}

    def edited(self, after: Mapping[str, Event | None]) -> EventTable:
        """The table after edits: an event of `after` replaces the one with its id where it
        stands, or goes last when new; None removes it (as a commit orders records). Only the
        edited events are made into columns."""
        order = list(after)
        changed = [after[rid] for rid in order]
        fresh = EventTable.from_records([event for event in changed if event is not None])
        slot = np.cumsum([event is not None for event in changed]) - 1 + len(self)
        slot = np.where([event is None for event in changed], -1, slot)  # -1: removed
        found = pc.index_in(self.column("id"), value_set=pa.array(order, pa.string()))
        which = found.to_numpy(zero_copy_only=False)
        which = np.where(np.isnan(which), -2, which).astype(np.int64) if found.null_count else which
        rows = np.arange(len(self), dtype=np.int64)
        touched = which >= 0
        rows[touched] = slot[which[touched]]
        present = set(pc.filter(self.column("id"), touched).to_pylist())
        added = [slot[i] for i, rid in enumerate(order) if rid not in present and slot[i] >= 0]
        taken = np.concatenate([rows[rows >= 0], np.array(added, dtype=np.int64)])
        both = pa.concat_tables([self._table, fresh._table])
        return EventTable(both.take(pa.array(taken, pa.int64())))

    def appended(self, other: EventTable) -> EventTable:
        """This table with `other`'s events after its own (an import's new events)."""
        return EventTable(pa.concat_tables([self._table, other._table]))

    @classmethod
    def from_columns(cls, columns: Mapping[str, Any]) -> EventTable:
        """From one array or list per field; fields left out get Event's defaults."""
        size = len(columns["id"])
        arrays = []
        for field in SCHEMA:
            values = columns.get(field.name)
            if values is None:
                values = [_DEFAULTS[field.name]] * size
            arrays.append(pa.array(values, type=field.type))
        return cls(pa.Table.from_arrays(arrays, schema=SCHEMA))

    def cells(self) -> list[dict[str, Any]]:
        """Each event's cells as `_schema.to_cells` makes them from an Event (its fields'
        order, sources joined by ';'), from the columns (no Event made)."""
        names = s.field_names(s.EVENTS)
        columns = [self.cell_column(name).to_pylist() for name in names]
        return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]

    def cell_column(self, name: str) -> pa.Array:
        """A field's column as cells hold it: the sources joined by ';', the rest as they are
        (what events.csv and the workspace layer store)."""
        column = self.column(name)
        return pc.binary_join(column, f.LIST_SEPARATOR) if name == "source" else column

    @property
    def table(self) -> pa.Table:
        return self._table

    def column(self, name: str) -> pa.Array:
        return (
            self._table.column(name).chunk(0)
            if len(self)
            else pa.array([], SCHEMA.field(name).type)
        )

    def __len__(self) -> int:
        return int(self._table.num_rows)

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> EventTable: ...

    def __getitem__(self, index: int | slice) -> Event | EventTable:
        if isinstance(index, slice):
            rows = np.arange(len(self))[index]
            return EventTable(self._table.take(pa.array(rows, type=pa.int64())))
        position = operator.index(index)  # (a float or text is refused, as by a tuple)
        if position < 0:
            position += len(self)
        if not 0 <= position < len(self):
            raise IndexError(f"event {index} of {len(self)}")
        return _events(self._table.slice(position, 1))[0]

    def __iter__(self) -> Iterator[Event]:
        for start in range(0, len(self), BATCH):
            yield from _events(self._table.slice(start, BATCH))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventTable):
            return bool(self._table.equals(other._table))
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # (equal to tuples, whose hashes it cannot give)

    def __repr__(self) -> str:
        return f"EventTable({len(self):,} events)"


def same_facts(events: EventTable, earlier: EventTable) -> pa.Array:
    """For each event, whether `earlier` holds one with its id and the same facts (every field
    but its sources: which source cites an event is not a fact of it)."""
    if not len(events) or not len(earlier):
        return pa.array([False] * len(events), pa.bool_())
    rows = pc.index_in(events.column("id"), value_set=earlier.column("id"))
    same = pc.is_valid(rows)
    before = earlier.table.take(rows.fill_null(0))
    for name in SCHEMA.names:
        if name in ("id", "source"):
            continue
        now, then = events.column(name), before.column(name).combine_chunks()
        equal = pc.fill_null(pc.equal(now, then), False)
        same = pc.and_(same, pc.or_(equal, pc.and_(pc.is_null(now), pc.is_null(then))))
    return same


def picked(events: Sequence[Event], indexes: Iterable[int]) -> list[Event]:
    """The events at these positions, of a tuple or an EventTable."""
    if isinstance(events, EventTable):
        return events.pick(indexes)
    return [events[i] for i in indexes]


def ids(events: Sequence[Event]) -> list[str]:
    """Every event's id (an EventTable's from its column: no Event made)."""
    if isinstance(events, EventTable):
        return list(events.column("id").to_pylist())
    return [event.id for event in events]


def _events(rows: pa.Table) -> list[Event]:
    """Events made from checked columns: their fields set as a dataclass sets them, without
    the frozen dataclass's per-field guard (a million took 8.9 s through `Event(...)`)."""
    columns = rows.to_pydict()
    columns["source"] = [tuple(items) for items in columns["source"]]
    return from_checked_columns(Event, list(columns), columns.values())


def checked(
    columns: Mapping[str, pa.Array], geometry: pa.Array, known: s.Known
) -> EventTable | None:
    """Events read from a workspace layer, checked a column at a time by the same parsers a row
    would meet (each distinct value once); None when any cell would be refused, or an id
    repeats, so that the rows are checked one by one and each problem told where it is.

    `geometry` (well-known binary) gives the coordinates, as it does for a row."""
    longitude, latitude = _coordinates(geometry)
    if not (_within(latitude, 90) and _within(longitude, 180)):
        return None
    given = {"latitude": pa.array(latitude), "longitude": pa.array(longitude)}
    return from_cells(columns, known, size=len(geometry), given=given)


def from_cells(
    columns: Mapping[str, pa.Array],
    known: s.Known,
    *,
    size: int,
    given: Mapping[str, pa.Array] | None = None,
) -> EventTable | None:
    """Events from cells as a file or layer holds them (a column per field; a field without
    one is blank), checked a column at a time as `checked` does; None when any cell would be
    refused or an id repeats. `given`: columns already made (coordinates from shapes)."""
    arrays: dict[str, pa.Array] = dict(given or {})
    for spec in s.EVENTS.fields(known):
        if spec.name in arrays:
            continue
        column = columns.get(spec.name)
        if column is None:
            column = pa.nulls(size)
        parsed = _parsed(spec, column, SCHEMA.field(spec.key).type)
        if parsed is None:
            return None
        arrays[spec.key] = parsed
    ids = arrays["id"]
    if pc.count_distinct(ids).as_py() != len(ids):
        return None
    return EventTable(pa.Table.from_arrays([arrays[name] for name in SCHEMA.names], schema=SCHEMA))


_EDGE = (
    "\\x00-\\x20\\x7f\\x85\\xa0\\x{1680}\\x{2000}-\\x{200f}\\x{2028}-\\x{202f}"
    "\\x{205f}-\\x{2064}\\x{2066}-\\x{2069}\\x{3000}\\x{feff}"
)
"""What a text may not start or end with: white space as Python's strip() sees it, control
characters, zero-width and direction marks (RE2 syntax)."""
_CONTROL = "\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f\\x{202a}-\\x{202e}"
_AS_THEY_ARE: dict[Any, str] = {
    f.identifier: "^[A-Za-z0-9][A-Za-z0-9_.-]*$",
    f.text: f"^[^{_EDGE}](?:[^{_CONTROL}]*[^{_EDGE}])?$",
}
"""Patterns of cells a parser gives back unchanged (`f.identifier`: an id with nothing to
strip; `f.text`: no control character, and a first and last character that show), tested
by Arrow on the whole column at once; a cell that does not match is parsed by Python."""


def _kept_as_they_are(spec: f.Field, column: pa.Array, kind: pa.DataType) -> pa.Array | None:
    """The column itself when every cell is one its parser gives back unchanged (blanks being
    the default ''); None when Python must look at some."""
    pattern = _AS_THEY_ARE.get(spec.parse)
    if pattern is None or column.type != kind or kind != pa.string():
        return None
    if column.null_count and (spec.required or _DEFAULTS[spec.key] != ""):
        return None
    matched = pc.match_substring_regex(column, pattern)
    if not pc.all(matched).as_py():  # (nulls skipped)
        return None
    return pc.fill_null(column, "") if column.null_count else column


def _coordinates(geometry: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Longitudes and latitudes of points in well-known binary: read straight from the bytes
    when every one is a little-endian 2D point (21 bytes), else through shapely."""
    if isinstance(geometry, pa.ExtensionArray):
        geometry = geometry.storage
    if geometry.type == pa.binary() and geometry.null_count == 0 and len(geometry):
        sizes = pc.binary_length(geometry).to_numpy()
        data = np.frombuffer(geometry.buffers()[2], dtype=np.uint8)
        offsets = np.frombuffer(geometry.buffers()[1], dtype=np.int32)
        offsets = offsets[geometry.offset : geometry.offset + len(geometry)]
        if np.all(sizes == WKB_POINT_BYTES):
            rows = data[offsets[:, None] + np.arange(WKB_POINT_BYTES)]
            if np.all(rows[:, :5] == WKB_POINT_HEAD):
                xy = rows[:, 5:].copy().view("<f8")
                return xy[:, 0], xy[:, 1]
    wkb = np.asarray(geometry.to_numpy(zero_copy_only=False), dtype=object)
    points = shapely.from_wkb(wkb)
    return shapely.get_x(points), shapely.get_y(points)


WKB_POINT_BYTES = 21
WKB_POINT_HEAD = np.array([1, 1, 0, 0, 0], dtype=np.uint8)
"""Little-endian, geometry type 1 (a 2D point)."""


def _within(values: np.ndarray, limit: float) -> bool:
    return bool(np.all((values >= -limit) & (values <= limit)))  # (NaN: false)


CHUNK = 65_536
"""Distinct values parsed at a time (a million unique ids as Python text at once took
hundreds of megabytes while loading)."""


def _parsed(spec: f.Field, column: pa.Array, kind: pa.DataType) -> pa.Array | None:
    """The column as the field's parser makes each cell (blank: the record's default); None
    when a cell is refused."""
    kept = _kept_as_they_are(spec, column, kind)
    if kept is not None:
        return kept
    distinct = pc.unique(column)
    kept_as_it_was = column.type == kind
    made = []
    for start in range(0, len(distinct), CHUNK):
        values = distinct.slice(start, CHUNK).to_pylist()
        chunk = []
        for value in values:
            if (not value.strip()) if type(value) is str else f.is_blank(value):
                if spec.required:
                    return None
                chunk.append(_DEFAULTS[spec.key])
                continue
            try:
                chunk.append(spec.parse(value))
            except f.FieldError:
                return None
        kept_as_it_was = kept_as_it_was and chunk == values
        made.append(pa.array(chunk, type=kind))
    if kept_as_it_was and len(distinct) == len(column):
        return column  # (every value unique and kept as it was: ids, notes)
    where = pc.index_in(column, value_set=distinct, skip_nulls=False)
    return pa.concat_arrays(made or [pa.array([], kind)]).take(where)


def cells_json(events: EventTable, text: Callable[[dict[str, Any]], str]) -> pa.Array:
    """Each event's cells (`EventTable.cells`) as JSON text, as `text` writes a row (orjson's:
    text escaped only where JSON must, floats as Python writes them), made a column at a time;
    the rows holding a value that Arrow writes another way (a control character, a float that
    is tiny or huge, or not a number) are given to `text`."""
    parts: list[Any] = []
    odd = np.zeros(len(events), dtype=bool)
    for number, name in enumerate(s.field_names(s.EVENTS)):
        written, unusual = _json_column(events.cell_column(name))
        parts += [("{" if number == 0 else ",") + f'"{name}":', written]
        odd |= unusual
    joined = pc.binary_join_element_wise(*parts, "}", "")
    if odd.any():
        rows = np.flatnonzero(odd)
        made = [text(row) for row in EventTable(events.table.take(pa.array(rows))).cells()]
        joined = pc.replace_with_mask(joined, pa.array(odd), pa.array(made, pa.string()))
    return joined


def _json_column(column: pa.Array) -> tuple[pa.Array, npt.NDArray[np.bool_]]:
    """A column's values as JSON text, and which rows Arrow would write otherwise."""
    kind, size = column.type, len(column)
    unusual = np.zeros(size, dtype=bool)
    if pa.types.is_string(kind):
        text = np.frombuffer(column.buffers()[2] or b"", dtype=np.uint8)  # (every row's bytes)
        if (text < 0x20).any():
            unusual = _true(pc.match_substring_regex(column, r"[\x00-\x1f]"))
        if ((text == ord('"')) | (text == ord("\\"))).any():
            column = pc.replace_substring(column, "\\", "\\\\")
            column = pc.replace_substring(column, '"', '\\"')
        written = pc.binary_join_element_wise('"', column, '"', "")
    elif pa.types.is_date32(kind):
        written = pc.binary_join_element_wise('"', pc.cast(column, pa.string()), '"', "")
    elif pa.types.is_integer(kind):
        written = pc.cast(column, pa.string())
    elif pa.types.is_floating(kind):
        magnitude = pc.abs(column)
        whole = pc.equal(pc.floor(column), column)
        written = pc.cast(column, pa.string())
        if _true(whole).any():  # (Arrow writes 33.0 as '33')
            written = pc.if_else(whole, pc.binary_join_element_wise(written, ".0", ""), written)
        usual = pc.and_(
            pc.is_finite(column),
            pc.or_(
                pc.equal(column, 0),
                pc.and_(pc.greater_equal(magnitude, 1e-4), pc.less(magnitude, 1e9)),
            ),
        )
        unusual = ~_true(usual) & _true(pc.is_valid(column))
    else:
        return pa.repeat(pa.scalar("", pa.string()), size), np.ones(size, dtype=bool)
    return (
        pc.if_else(pc.is_null(column), "null", written) if column.null_count else written
    ), unusual


def _true(mask: pa.Array) -> npt.NDArray[np.bool_]:
    """A boolean column as numpy, nulls as False."""
    return np.asarray(mask.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
