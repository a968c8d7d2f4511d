"""Importing a user's file into a workspace scenario: each row goes in or is reported, none lost."""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from geo import _schema as s
from geo import changes, event_table, readers
from geo._collector import pausing
from geo._spreadsheet import inert
from geo.changes import Edit
from geo.errors import Problem, ProblemLog
from geo.event_table import EventTable
from geo.importing.chunks import read_file
from geo.importing.options import KINDS, ORDER, Options
from geo.importing.rows import Context, slug, unique
from geo.records import Scenario, Source
from geo.store import Workspace

SWAPPED = "look swapped"
"""Words in a place warning whose row a one-click fix can swap (see `Options.swap`)."""


def _english(message: str, **values: object) -> str:
    """A message of `Prepared.summary` in English, its {placeholders} filled."""
    return message.format(**values) if values else message


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

    def summary(self, words: Callable[..., str] = _english) -> str:
        """What the file holds, in a sentence: 'places.csv: 3 of 4 rows valid (3 places); 1
        rejected, 0 warning(s)'. `words(message, **values)` says each part in the reader's
        language (as geo.messages.Words does); English when not given."""
        counts = ", ".join(words("{count} {layer}", count=len(v), layer=words(k))
                           for k, v in self.records.items() if v and k != "sources")  # fmt: skip
        made = (words(", {count} of them places named in rows", count=self.named_places)
                if self.named_places else "")  # fmt: skip
        warnings = sum(p.severity == "warning" for p in self.problems)
        again = (
            words("; {updated} events updated, {unchanged} unchanged",
                  updated=len(self.revised), unchanged=self.unchanged)
            if self.revised or self.unchanged
            else ""
        )  # fmt: skip
        valid = words("{file}: {accepted} of {rows} rows valid", file=self.file,
                      accepted=self.accepted, rows=self.rows)  # fmt: skip
        left = words("{rejected} rejected, {warnings} warning(s)", rejected=len(self.rejected),
                     warnings=warnings)  # fmt: skip
        return f"{valid} ({counts or words('nothing')}{made}{again}); {left}"


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
    context = Context(scenario, source.id, label, options, geocoder)
    records: dict[str, Sequence[Any]] = {"sources": [source]}
    size = path.stat().st_size if path.is_file() else 0
    rows = read_file(path, label, size, options, context, log, records)
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


def _source(file: str, scenario: Scenario, who: str) -> Source:
    now = datetime.now(UTC)
    return Source(
        id=unique(f"import-{slug(Path(file).stem)}", {src.id for src in scenario.sources})[0],
        title=f"{file} (imported file)",
        publisher=who or "a Corridor user",
        published=now.date(),
        note=f"Imported {now:%Y-%m-%d %H:%M} UTC by {who or 'an unnamed user'}",
    )


def _rejected(problems: tuple[Problem, ...]) -> tuple[str, ...]:
    spots = dict.fromkeys(
        f"{p.file}, {p.where}"
        for p in problems
        if p.severity == "error" and p.where and p.where != "header"
    )
    return tuple(spots)
