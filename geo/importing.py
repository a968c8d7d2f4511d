"""Importing a user's file into a workspace scenario: each row goes in or is reported, none lost."""

from __future__ import annotations

import csv
import io
import re
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any, overload
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pyarrow as pa
import pyarrow.compute as pc

from geo import _schema as s
from geo import changes, event_table, names, readers
from geo._collector import pausing
from geo._fields import Spot, is_blank
from geo._spreadsheet import inert
from geo.changes import Edit
from geo.errors import Problem, ProblemLog
from geo.event_table import EventTable
from geo.home import scenario_homes
from geo.readers import ZipLimits, columnar
from geo.records import PlaceKind, Scenario, Source
from geo.store import Workspace

ORDER = ("places", "convoys", "routes", "figures", "zones", "events")
"""Layers in the order they are read: places first, so that later rows can name them."""
KINDS = {kind.name: kind for kind in (s.PLACES, s.CONVOYS, s.ROUTES, s.FIGURES, s.ZONES, s.EVENTS)}
PLACE_FIELDS = {"convoys": ("origin", "destination", "via"), "routes": ("from", "to"),
                "figures": ("place",)}  # fmt: skip
"""Fields that refer to places: an id, or a name resolved to a place (made when new)."""
MOMENT_FIELDS = {"convoys": ("depart", "arrive"), "figures": ("reported",),
                 "zones": ("valid_from", "valid_to")}  # fmt: skip
"""Fields that hold a moment (a time with its UTC offset)."""
FIGURE_PLACE_CELLS = ("latitude", "longitude", "admin1", "country_code")
"""Cells of a figure's row that say where its place is (IOM DTM tables give them)."""
SWAPPED = "look swapped"
"""Words in a place warning whose row a one-click fix can swap (see `Options.swap`)."""
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
"""The largest file accepted (Streamlit's server.maxUploadSize says the same to the browser)."""
UNZIPPED_LIMITS = ZipLimits(max_total_bytes=4 * MAX_UPLOAD_BYTES)
"""A zip may hold four times the upload limit once unpacked (a zipped Shapefile packs about
three to one); more is refused from its directory, before a byte is unpacked."""


@dataclass(frozen=True)
class Options:
    """How to read a file.

    Attributes
    ----------
    layer
        The layer every row goes to (None: guessed from the file).
    defaults
        Values for cells a file leaves blank, by field name (e.g. control, holder, valid_from
        for traced zones; convoy for a GPS track; status for a convoy list).
    swap
        Rows (their ``where``, as reported) whose latitude and longitude are to be swapped.
    max_bytes
        The largest file read.
    """

    layer: str | None = None
    defaults: Mapping[str, str] = field(default_factory=dict)
    swap: frozenset[str] = frozenset()
    max_bytes: int = MAX_UPLOAD_BYTES
    """The largest file read (a zip may hold four times this once unpacked): the browser's
    upload limit unless a command line reading the user's own file says more."""
    sheet: str | None = None
    """The one sheet of a workbook to read (None: every sheet with columns Corridor reads)."""
    check_only: bool = False
    """A dry run: a CSV file's rows are read, checked and counted a chunk at a time, and only
    its events are kept (the places, convoys … it adds are counted, not held: the `Prepared`
    cannot be committed)."""


@dataclass(frozen=True)
class Prepared:
    """What a file would add to a scenario: the valid new records, and every problem found."""

    file: str
    source: Source
    records: dict[str, Sequence[Any]]
    problems: tuple[Problem, ...]
    rows: int
    rejected: tuple[str, ...]
    """Rows and features left out (file, where), each with at least one error in `problems`."""
    swappable: tuple[str, ...]
    """Rows whose latitude and longitude look swapped (a warning; see `Options.swap`)."""
    named_places: int = 0
    """New places made from names in other rows (a convoy's origin …), among records["places"]."""
    revised: tuple[Any, ...] = ()
    """Events already in the scenario that the file gives differently (a newer export): they
    replace the scenario's, each change logged."""
    unchanged: int = 0
    """Events already in the scenario that the file gives as they are (left alone)."""
    checked_only: bool = False
    """Whether only counted (`Options.check_only`): records other than events not kept."""

    @property
    def accepted(self) -> int:
        """The file's valid rows: new records (places made from names not counted), revised
        events and unchanged ones."""
        made = sum(len(records) for name, records in self.records.items() if name != "sources")
        return made - self.named_places + len(self.revised) + self.unchanged

    @property
    def action(self) -> str:
        """What committing would do, in words: 'Add 3 valid record(s)', or with a newer export
        of known events 'Add 1 and update 1 record(s) (10 unchanged)'."""
        return self._said("Add", "valid record(s)", "update")

    @property
    def done(self) -> str:
        """What committing did, in words: 'Added 3 record(s)' …"""
        return self._said("Added", "record(s)", "updated")

    def _said(self, add: str, records: str, update: str) -> str:
        if not self.revised and not self.unchanged:
            return f"{add} {self.accepted} {records}"
        new, kept = self.accepted - len(self.revised) - self.unchanged, self.unchanged
        return f"{add} {new} and {update} {len(self.revised)} record(s) ({kept} unchanged)"

    @property
    def writes(self) -> bool:
        """Whether committing would change anything."""
        return self.accepted - self.unchanged > 0

    def report_csv(self) -> str:
        """Every problem as CSV (file, where, field, expected, actual, severity)."""
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["file", "where", "field", "expected", "actual", "severity"])
        for problem in self.problems:
            actual = "" if problem.actual is None else str(problem.actual)
            cells = [problem.file, problem.where, problem.field, problem.expected, actual,
                     problem.severity]  # fmt: skip
            writer.writerow([inert(cell) for cell in cells])
        return buffer.getvalue()

    def summary(self) -> str:
        counts = ", ".join(f"{len(v)} {k}" for k, v in self.records.items() if v and k != "sources")
        made = f", {self.named_places} of them places named in rows" if self.named_places else ""
        warnings = sum(p.severity == "warning" for p in self.problems)
        again = (
            f"; {len(self.revised)} events updated, {self.unchanged} unchanged"
            if self.revised or self.unchanged
            else ""
        )
        return (
            f"{self.file}: {self.accepted} of {self.rows} rows valid "
            f"({counts or 'nothing'}{made}{again}); {len(self.rejected)} rejected, "
            f"{warnings} warning(s)"
        )


def prepare_upload(data: bytes, name: str, scenario: Scenario, **options: Any) -> Prepared:
    """`prepare` for a file's bytes as uploaded under `name` (read from a temporary copy whose
    suffix is the name's when it is one of `readers.UPLOAD_TYPES`); `options` as `prepare`
    takes them."""
    suffix = Path(name).suffix.lower()
    suffix = suffix if suffix[1:] in readers.UPLOAD_TYPES else ""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"upload{suffix}"
        path.write_bytes(data)
        return prepare(path, scenario, name=name, **options)


def upload_sheets(data: bytes, name: str) -> list[str]:
    """The sheets of an uploaded workbook, in order ([] for any other file)."""
    suffix = Path(name).suffix.lower()
    if readers.SUFFIXES.get(suffix) not in readers.WORKBOOKS:
        return []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"upload{suffix}"
        path.write_bytes(data)
        return readers.sheet_names(path)


@pausing
def prepare(
    path: Path | str,
    scenario: Scenario,
    *,
    name: str | None = None,
    options: Options | None = None,
    who: str = "",
    geocoder: Any = None,
) -> Prepared:
    """Read a file and check each row against the scenario, as an import would add it.

    Blank cells get the options' defaults, then Corridor's: a new source naming the file,
    generated ids, ``approximate`` precision, ``low`` confidence, the file and row as quote.
    Place names where a place id is expected are matched to the scenario's places or geocoded
    offline into new places.
    """
    path = Path(path)
    options = options or Options()
    label = name or path.name
    log = ProblemLog()
    source = _source(label, scenario, who)
    context = _Context(scenario, source.id, label, options, geocoder)
    records: dict[str, Sequence[Any]] = {"sources": [source]}
    size = path.stat().st_size if path.is_file() else 0
    rows = _read_file(path, label, size, options, context, log, records)
    records["events"], revised, unchanged = _revisions(records["events"], scenario)
    _warn_vanished([records["events"], revised, unchanged], scenario, label, log)
    problems = tuple(log)
    return Prepared(
        file=label,
        source=source,
        records=records,
        problems=problems,
        rows=rows,
        rejected=_rejected(problems),
        swappable=tuple(
            p.where for p in problems if p.severity == "warning" and SWAPPED in p.expected
        ),
        named_places=len(context.new_places),
        revised=tuple(revised),
        unchanged=len(unchanged),
        checked_only=options.check_only,
    )


def _read_file(
    path: Path,
    label: str,
    size: int,
    options: Options,
    context: _Context,
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
    path: Path, label: str, size: int, options: Options, context: _Context, log: ProblemLog
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
    sniffed: readers.Sniffed | None, label: str, options: Options, context: _Context
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
    context: _Context,
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
    context: _Context,
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
        filled = [context.fill(layer, raw, filling) for raw in table.rows]
        kept = [raw for raw in filled if raw is not None]
        del filled
        built = s.build(KINDS[layer], kept, context.known(), building, seen=seen)
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

    def __getitem__(self, key: str) -> str:
        where = self._rows[key]
        return f"row {where} (id {key!r})" if isinstance(where, int) else where

    def __setitem__(self, key: str, where: str) -> None:
        number = where.removeprefix("row ").partition(" ")[0]
        plain = number.isascii() and number.isdigit() and f"row {int(number)} (id {key!r})"
        self._rows[key] = int(number) if plain == where else where

    def __delitem__(self, key: str) -> None:
        del self._rows[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: object) -> bool:
        return key in self._rows


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


@pausing
def commit_import(
    workspace: Workspace,
    scenario_id: str,
    prepared: Prepared,
    *,
    who: str,
    read: changes.ReadMark | None = None,
) -> Sequence[changes.Change]:
    """Add a prepared file's valid records to the workspace in one logged transaction.

    `read`: where the change log stood before the scenario the file was prepared against was
    read; an event it revises that someone changed since is refused (ConflictError)."""
    if prepared.checked_only:
        raise ValueError(
            f"{prepared.file}: prepared as a dry run (Options.check_only), its records counted "
            "and not kept; prepare it again without check_only to import it"
        )
    with s.cells_kept():
        return _commit_import(workspace, scenario_id, prepared, who=who, read=read)


def _commit_import(
    workspace: Workspace,
    scenario_id: str,
    prepared: Prepared,
    *,
    who: str,
    read: changes.ReadMark | None,
) -> Sequence[changes.Change]:
    edits = []
    added = None
    for name in ("sources", *ORDER):
        kind = s.SOURCES if name == "sources" else KINDS[name]
        records = prepared.records.get(name, [])
        if isinstance(records, EventTable):  # (added as columns, logged from them)
            added = records
            continue
        for record in records:
            cells = s.to_cells(record, kind)
            if kind.geometry:
                cells["geometry"] = record.geometry
            edits.append(Edit("add", name, record.id, cells, record=record))
    for event in prepared.revised:
        cells = {k: v for k, v in s.to_cells(event, s.EVENTS).items() if k != "id"}
        edits.append(Edit("update", "events", event.id, cells))
    note = f"import of {prepared.file} ({prepared.accepted} records)"
    return changes.commit(workspace, scenario_id, edits, who=who, note=note, added=added, read=read)


# --- a newer export of the same events ----------------------------------------------------


def _revisions(
    events: Sequence[Any], scenario: Scenario
) -> tuple[Sequence[Any], Sequence[Any], Sequence[Any]]:
    """The file's events split into new ones, revised ones (an id the scenario has, with other
    facts) and unchanged ones; which source cites an event does not count as a fact. An
    EventTable's new and unchanged events stay tables (only the revised ones are made)."""
    if isinstance(events, EventTable):
        return _table_revisions(events, scenario)
    if isinstance(scenario.events, EventTable):  # (only the file's ids made into records)
        earlier = scenario.events.by_id(event.id for event in events)
    else:
        earlier = {event.id: event for event in scenario.events}
    new: list[Any] = []
    revised: list[Any] = []
    unchanged: list[Any] = []
    for event in events:
        before = earlier.get(event.id)
        if before is None:
            new.append(event)
        elif replace(event, source=before.source) == before:
            unchanged.append(event)
        else:
            revised.append(event)
    return new, revised, unchanged


def _table_revisions(
    events: EventTable, scenario: Scenario
) -> tuple[EventTable, Sequence[Any], Sequence[Any]]:
    """`_revisions` of a table: against a scenario's table, compared a column at a time (only
    the revised events are made: 100,000 compared one by one took 5 s)."""
    known = (
        scenario.events.column("id")
        if isinstance(scenario.events, EventTable)
        else pa.array(event_table.ids(scenario.events), pa.string())
    )
    had = pc.is_in(events.column("id"), value_set=known)
    new = EventTable(events.table.filter(pc.invert(had)))
    earlier = EventTable(events.table.filter(had))
    if not isinstance(scenario.events, EventTable):
        _, revised, unchanged = _revisions(list(earlier), scenario)
        return new, revised, unchanged
    same = event_table.same_facts(earlier, scenario.events)
    revised_rows = EventTable(earlier.table.filter(pc.invert(same)))
    return new, list(revised_rows), EventTable(earlier.table.filter(same))


VANISHED_SHOWN = 10


def _warn_vanished(
    parts: Sequence[Sequence[Any]], scenario: Scenario, file: str, log: ProblemLog
) -> None:
    """Events of the scenario that a newer export of the same countries and dates no longer
    has (ACLED deletes some on review): named in a warning, and kept. `parts`: the file's
    new, revised and unchanged events."""
    if not scenario.events:
        return
    present = [row for part in parts for row in _ids_countries_days(part)]
    if not present:
        return
    ids = {rid for rid, _, _ in present}
    countries = {country for _, country, _ in present}
    first, last = min(day for _, _, day in present), max(day for _, _, day in present)
    gone = [
        rid
        for rid, country, day in _ids_countries_days(scenario.events)
        if rid not in ids and country in countries and first <= day <= last
    ]
    if gone:
        shown = ", ".join(gone[:VANISHED_SHOWN]) + (" …" if len(gone) > VANISHED_SHOWN else "")
        where = ", ".join(sorted(countries))
        expected = f"every event the scenario has for {where} from {first} to {last}"
        log.warn(file, "", "id", expected, f"{len(gone):,} no longer in this file (kept): {shown}")


def _ids_countries_days(events: Sequence[Any]) -> Iterable[tuple[str, str, date]]:
    """Each event's id, country and date (from an EventTable's columns, no Event made)."""
    if isinstance(events, EventTable):
        columns = (events.column(name).to_pylist() for name in ("id", "country", "date"))
        return zip(*columns, strict=True)
    return ((event.id, event.country, event.date) for event in events)


# --- filling in what a file leaves blank --------------------------------------------------


class _Context:
    """What rows of one import are checked against, and the places their names created."""

    def __init__(
        self, scenario: Scenario, source_id: str, file: str, options: Options, geocoder: Any
    ) -> None:
        self.scenario, self.source_id, self.file, self.options = scenario, source_id, file, options
        self._geocoder = geocoder
        self.ids: dict[str, set[str]] = {
            layer: set(event_table.ids(getattr(scenario, layer))) for layer in ORDER
        }  # (any layer's records: `ids` reads an EventTable's column, others' records)
        self.ids["sources"] = {r.id for r in scenario.sources} | {source_id}
        self.existing = {layer: set(ids) for layer, ids in self.ids.items()}
        self.by_name = _place_names(scenario)
        self.new_places: list[Any] = []
        self.convoy_ends = {c.id: (c.origin, c.destination) for c in scenario.convoys}
        self.legs: dict[str, int] = {}
        self.located: dict[int, tuple[str, str]] = {}
        """Country and governorate of the place rows given by coordinates alone, by the id of
        the row's raw record (`locate`)."""
        self.localised = False
        """Whether a time without an offset was read in the scenario's time zone (said once)."""
        self.numbers: dict[tuple[str, str], int] = {}
        """The last number given to an id made from each (layer, name)."""
        for route in scenario.routes:
            self.legs[route.convoy] = max(self.legs.get(route.convoy, 0), route.leg)

    @property
    def geocoder(self) -> Any:
        if self._geocoder is None:
            from geo.geocoding import OfflineGeocoder

            homes = scenario_homes(self.scenario)
            self._geocoder = OfflineGeocoder(country_bias=homes[0] if homes else None)
        return self._geocoder

    def known(self) -> s.Known:
        return s.Known(
            sources=self.ids["sources"], places=self.ids["places"], convoys=self.ids["convoys"]
        )

    def added(self, layer: str, records: list[Any]) -> None:
        self.ids[layer] |= {record.id for record in records}
        if layer == "convoys":
            self.convoy_ends.update({c.id: (c.origin, c.destination) for c in records})
        if layer == "places":
            for place in records:
                for written in (place.name, *place.aliases):
                    self.by_name.setdefault(names.normalise(written), place.id)

    def locate(self, raws: list[s.RawRecord]) -> None:
        """Find at once the nearest gazetteer place of every place row that has coordinates but
        no country code (one by one, 300,000 rows took 47 s); `fill` then takes them from here.
        """
        from geo.geocoding import OfflineGeocoder, nearest_entries

        offline = isinstance(self.geocoder, OfflineGeocoder)
        if "country_code" in self.options.defaults or not offline:
            return
        kept, points = [], []
        for raw in raws:
            if not is_blank(raw.cells.get("country_code")):
                continue
            cells = {"latitude": raw.cells.get("latitude"), "longitude": raw.cells.get("longitude")}
            if raw.spot.where in self.options.swap:
                cells["latitude"], cells["longitude"] = cells["longitude"], cells["latitude"]
            point = _point(cells)
            if point is not None:
                kept.append(id(raw))
                points.append(point)
        if not points:
            return
        latitudes, longitudes = zip(*points, strict=True)
        rows = nearest_entries(self.geocoder, latitudes, longitudes)
        places = self.geocoder.gazetteer
        for key, row in zip(kept, rows.tolist(), strict=True):
            if row >= 0:
                self.located[key] = (places.country_codes[row], places.admin1[row])

    def fill(self, layer: str, raw: s.RawRecord, log: ProblemLog) -> s.RawRecord | None:
        """The row with defaults and resolved place names; None (reported) when it cannot be."""
        cells = {k: v for k, v in raw.cells.items() if not is_blank(v)}
        for key, value in self.options.defaults.items():
            cells.setdefault(key, value)
        cells.setdefault("source", self.source_id)
        if raw.spot.where in self.options.swap and {"latitude", "longitude"} <= set(cells):
            cells["latitude"], cells["longitude"] = cells["longitude"], cells["latitude"]
        if layer == "places" and "country_code" not in cells and id(raw) in self.located:
            cells["country_code"], admin1 = self.located[id(raw)]  # (see `locate`)
            cells.setdefault("admin1", admin1)
        self._localise(layer, cells, raw.spot, log)
        filler = getattr(self, f"_fill_{layer}", None)
        if filler is not None and not filler(cells, raw.spot, log):
            return None
        for name in PLACE_FIELDS.get(layer, ()):
            if name in cells and not self._resolve_places(cells, name, raw.spot, log):
                return None
        if "id" not in cells:
            cells["id"] = self._new_id(layer, cells)
        if not isinstance(cells["id"], str | int):
            log.error(raw.spot.file, raw.spot.where, "id", "a text or a whole number", cells["id"])
            return None
        if cells["id"] in self.existing.get(layer, set()) and layer != "events":
            expected = f"an id not already in the scenario's {layer} (nothing is overwritten)"
            log.error(raw.spot.file, raw.spot.where, "id", expected, cells["id"])
            return None
        return s.RawRecord(raw.spot, cells, raw.geometry)

    def _localise(self, layer: str, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> None:
        """Times a file gives without a UTC offset (a spreadsheet's dates: 2025-05-01) read in
        the scenario's time zone, said once per file."""
        for name in MOMENT_FIELDS.get(layer, ()):
            value = cells.get(name)
            local = _local_moment(value, self.scenario.timezone)
            if local is None:
                continue
            cells[name] = local
            if not self.localised:
                self.localised = True
                expected = "times with a UTC offset, such as 2016-12-15T14:30+02:00"
                got = f"{value!r} and others without one: read in {self.scenario.timezone}"
                log.warn(spot.file, spot.where, name, expected, got)

    def _fill_places(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        cells.setdefault("precision", "approximate")
        has_point = "latitude" in cells and "longitude" in cells
        nearest = _nearest(self.geocoder, cells) if "country_code" not in cells else None
        if has_point and nearest is not None:
            cells["country_code"] = nearest.raw["country_code"]
            cells.setdefault("admin1", nearest.raw["admin1"])
        if not has_point and "name" in cells:
            found = self.geocoder.geocode(
                str(cells["name"]), country_codes=cells.get("country_code")
            )
            if found is None:
                expected = "coordinates, or a name the offline gazetteer knows"
                log.error(spot.file, spot.where, "name", expected, cells["name"])
                return False
            _take_location(cells, found)
            log.warn(spot.file, spot.where, "latitude", _geocoded(cells["name"], found), None)
        cells.setdefault("kind", PlaceKind.POINT.value)
        return True

    def _fill_convoys(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        cells.setdefault("time_precision", "approximate")
        cells.setdefault("confidence", "low")
        cells.setdefault("quote", f"{spot.where} of {self.file}")
        if "label" not in cells and "id" in cells:
            cells["label"] = str(cells["id"])
        return True

    def _fill_routes(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        convoy = str(cells.get("convoy", ""))
        origin, destination = self.convoy_ends.get(convoy, ("", ""))
        if origin:
            cells.setdefault("from", origin)
        if destination:
            cells.setdefault("to", destination)
        if convoy and "leg" not in cells:
            self.legs[convoy] = self.legs.get(convoy, 0) + 1
            cells["leg"] = str(self.legs[convoy])
        traced = spot.where.startswith(("track", "route #"))
        cells.setdefault("precision", "traced" if traced else "approximate")
        return True

    def _fill_zones(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        cells.setdefault("precision", "approximate")
        cells.setdefault("name", f"Zone from {self.file}, {spot.where}")
        return True

    def _fill_figures(self, cells: dict[str, Any], spot: Spot, log: ProblemLog) -> bool:
        cells.setdefault("quote", f"{spot.where} of {self.file}")
        where = {key: cells.pop(key) for key in FIGURE_PLACE_CELLS if key in cells}
        point = _point(where)
        given = [key for key in ("latitude", "longitude") if key in where]
        if given and point is None:
            expected = "the point of the figure's place in degrees (latitude, longitude)"
            log.error(spot.file, spot.where, given[0], expected, where[given[0]])
            return False
        text = str(cells.get("place", "")).strip()
        if point is not None and text and self._known_place(text) is None:
            cells["place"] = self._place_at(text, point, where, spot)
        return True

    def _known_place(self, text: str) -> str | None:
        if text in self.ids["places"]:
            return text
        return self.by_name.get(names.normalise(text))

    def _place_at(
        self, text: str, point: tuple[float, float], where: dict[str, Any], spot: Spot
    ) -> str:
        """A new place named `text` at the point its row gives (an IOM DTM table's location);
        its country and province from the row, or else from the nearest gazetteer place."""
        cells: dict[str, Any] = {"name": text, "source": self.source_id, "kind": "point"}
        cells["latitude"], cells["longitude"] = point
        cells.update({k: v for k, v in where.items() if k in ("admin1", "country_code")})
        nearest = _nearest(self.geocoder, cells) if "country_code" not in cells else None
        if nearest is not None:
            cells["country_code"] = nearest.raw["country_code"]
            cells.setdefault("admin1", nearest.raw["admin1"])
        cells["precision"] = "approximate"
        cells["quote"] = f"{text!r} at {point[0]}, {point[1]} in {self.file}, {spot.where}"
        cells["id"] = self._new_id("places", cells)
        built = s.build(s.PLACES, [s.RawRecord(spot, cells)], self.known(), ProblemLog())
        if not built:
            return text  # (then the name is resolved as any other: geocoded, or refused)
        self.new_places += built
        self.added("places", built)
        return str(built[0].id)

    def _resolve_places(
        self, cells: dict[str, Any], name: str, spot: Spot, log: ProblemLog
    ) -> bool:
        written = [part.strip() for part in str(cells[name]).split(";") if part.strip()]
        resolved = []
        for text in written:
            place_id = self._place_id(text, spot)
            if place_id is None:
                expected = "a place id, or a place name the offline gazetteer knows"
                log.error(spot.file, spot.where, name, expected, text)
                return False
            resolved.append(place_id)
        cells[name] = ";".join(resolved)
        return True

    def _place_id(self, text: str, spot: Spot) -> str | None:
        if text in self.ids["places"]:
            return text
        key = names.normalise(text)
        if key in self.by_name:
            return self.by_name[key]
        found = self.geocoder.geocode(text)
        if found is None:
            return None
        cells: dict[str, Any] = {"name": text, "source": self.source_id}
        _take_location(cells, found)
        cells["quote"] = f"{text!r} in {self.file}, {spot.where}; " + _geocoded(text, found)
        cells["id"] = self._new_id("places", cells)
        place_log = ProblemLog()
        built = s.build(s.PLACES, [s.RawRecord(spot, cells)], self.known(), place_log)
        if not built:
            return None
        self.new_places += built
        self.added("places", built)
        return str(built[0].id)

    def _new_id(self, layer: str, cells: dict[str, Any]) -> str:
        base = slug(str(cells.get("name") or cells.get("label") or layer.rstrip("s")))
        number = self.numbers.get((layer, base), 1)
        candidate, number = _unique(base, self.ids[layer], number)
        self.numbers[layer, base] = number
        self.ids[layer].add(candidate)
        return candidate


def _place_names(scenario: Scenario) -> dict[str, str]:
    found: dict[str, str] = {}
    for place in scenario.places:
        for written in (place.id, place.name, *place.aliases):
            found.setdefault(names.normalise(written), place.id)
    return found


def _take_location(cells: dict[str, Any], location: Any) -> None:
    raw = location.raw
    cells["latitude"], cells["longitude"] = location.latitude, location.longitude
    cells.setdefault("country_code", raw.get("country_code") or "")
    cells.setdefault("admin1", raw.get("admin1") or "")
    kind = raw.get("kind") if raw.get("kind") in set(PlaceKind) else PlaceKind.POINT.value
    cells.setdefault("kind", kind)
    precise = raw.get("precision") == "exact" and not raw.get("uncertain")
    cells["precision"] = "centroid" if precise else "approximate"


def _local_moment(value: object, zone: str) -> str | None:
    """A date or date-time written without a UTC offset, as one in `zone` (None: any other)."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime.combine(value, time())
    elif isinstance(value, str) and value.strip():
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    else:
        return None
    if parsed.tzinfo is not None:
        return None
    try:
        return parsed.replace(tzinfo=ZoneInfo(zone)).isoformat()
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _nearest(geocoder: Any, cells: dict[str, Any]) -> Any:
    point = _point(cells)
    return None if point is None else geocoder.reverse(point)


def _point(cells: dict[str, Any]) -> tuple[float, float] | None:
    """The row's (latitude, longitude) when both are numbers on the globe."""
    try:
        point = (float(cells["latitude"]), float(cells["longitude"]))
    except (KeyError, TypeError, ValueError):
        return None
    if not (-90 <= point[0] <= 90 and -180 <= point[1] <= 180):
        return None
    return point


def _geocoded(name: object, location: Any) -> str:
    raw = location.raw
    text = (
        f"coordinates, so {name!r} was geocoded offline: {raw['name']} ({raw['id']}), "
        f"{location.latitude:.5f}, {location.longitude:.5f}, score {raw['score']:.2f}"
    )
    if raw.get("ambiguous"):
        text += "; AMBIGUOUS"
    return text + ("; UNCERTAIN" if raw.get("uncertain") else "")


def _source(file: str, scenario: Scenario, who: str) -> Source:
    now = datetime.now(UTC)
    return Source(
        id=_unique(f"import-{slug(Path(file).stem)}", {src.id for src in scenario.sources})[0],
        title=f"{file} (imported file)",
        publisher=who or "a Corridor user",
        published=now.date(),
        note=f"Imported {now:%Y-%m-%d %H:%M} UTC by {who or 'an unnamed user'}",
    )


def _unique(base: str, taken: set[str], number: int = 1) -> tuple[str, int]:
    """`base`, or `base-2`, `base-3` … the first not taken, counting on from `number` (so that
    N rows named alike get their ids in linear time, not by counting from 1 each time)."""
    candidate = base if number == 1 else f"{base}-{number}"
    while candidate in taken:
        number += 1
        candidate = f"{base}-{number}"
    return candidate, number


def slug(text: str) -> str:
    """Lower-case ASCII letters, digits and '-': an id made from a name (never empty)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    found = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:48].strip("-")
    return found or "item"


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


def _rejected(problems: tuple[Problem, ...]) -> tuple[str, ...]:
    spots = dict.fromkeys(
        f"{p.file}, {p.where}"
        for p in problems
        if p.severity == "error" and p.where and p.where != "header"
    )
    return tuple(spots)
