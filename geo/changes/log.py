"""The change log: edits committed in one transaction and logged, their history, and undo."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast, overload

import orjson
import pandas as pd
import pyarrow as pa

from geo import _schema as s
from geo._collector import pausing
from geo.changes.edits import (
    Edit,
    EditedScenario,
    apply_edits,
    jsonable,
    record_cells,
    rows_by_id,
    with_added,
)
from geo.changes.recovery import dump
from geo.errors import ConflictError, CorridorError, Problem, ValidationError, WorkspaceError
from geo.event_table import EventTable, cells_json
from geo.records import Scenario
from geo.store import Workspace
from geo.store.base import Batches, TableRows
from geo.store.layout import slices

CHANGES_LAYER = "changes"


class NothingToUndoError(CorridorError, LookupError):
    """The change log holds no change that can still be undone."""


@dataclass(frozen=True)
class Change:
    """One row of the change log: what changed, the old and the new value, when and by whom."""

    batch: str
    at: datetime
    who: str
    scenario_id: str
    action: str
    layer: str
    record_id: str
    field: str
    old: Any
    new: Any
    note: str = ""
    undoes: str = ""


@dataclass(frozen=True)
class ReadMark:
    """Where a scenario's change log stood when someone read the records they then edit: the
    feature id of its last row then (0 when empty). Rows are added under the workspace's lock,
    so a later change has a larger id, whatever the clocks of the machines that wrote them."""

    position: int = 0


def read_mark(workspace: Workspace) -> ReadMark:
    """The change log as it stands now, to give `commit` as `read=` with the edits made."""
    return ReadMark(workspace.last_position(CHANGES_LAYER))


def conflicts(
    workspace: Workspace, scenario_id: str, edits: Sequence[Edit], read: ReadMark
) -> list[Change]:
    """The newest change to each record these edits update or delete that was logged after
    `read`: someone else's edit they would write over."""
    touched = {(e.layer, e.record_id) for e in edits if e.action in ("update", "delete")}
    if not touched:
        return []
    frame = workspace.rows_after(CHANGES_LAYER, read.position)
    found: dict[tuple[str, str], Change] = {}
    for row in frame.to_dict("records"):
        change = _change({str(k): v for k, v in row.items()})
        if change.scenario_id == scenario_id and (change.layer, change.record_id) in touched:
            found[(change.layer, change.record_id)] = change
    return list(found.values())


def _refuse_conflicts(
    workspace: Workspace, scenario_id: str, edits: Sequence[Edit], read: ReadMark
) -> None:
    found = conflicts(workspace, scenario_id, edits, read)
    if not found:
        return
    told = "; ".join(
        f"{c.layer} {c.record_id!r} was changed by {c.who} at {c.at:%Y-%m-%d %H:%M} UTC "
        f"({c.field or c.action})"
        for c in found
    )
    raise ConflictError(
        f"{workspace.label} (scenario {scenario_id!r}): {told}, since you read it. Nothing was "
        "saved: read the latest and make your edit again."
    )


@pausing
def commit(
    workspace: Workspace,
    scenario_id: str,
    edits: Sequence[Edit],
    *,
    who: str,
    note: str = "",
    undoes: str = "",
    added: EventTable | None = None,
    read: ReadMark | None = None,
) -> Sequence[Change]:
    """Apply edits to the workspace's current scenario in one transaction, and log them.

    The scenario is read and the edits checked without the workspace's lock, which is taken
    only to write: if another session saved meanwhile, the edits are applied again to what it
    saved, so its edits are kept and other editors are not locked out while a large import is
    checked. Every rule of a scenario file applies; on any problem ValidationError
    lists them all and nothing is written.

    `added`: new events as a table, already checked (an import's), put after the edits'
    records; only their ids and references are checked again, and each is logged as an add,
    from the columns (a million events are not made into records, edits and changes one by one).

    `read`: where the change log stood when the records edited were read (`read_mark`); a
    record someone changed since is refused with ConflictError naming who changed it and
    when, not written over.
    """
    who = workspace.author(who)
    for attempt in range(OPTIMISTIC_TRIES + 1):
        last = attempt == OPTIMISTIC_TRIES  # the last try holds the lock from read to write
        with workspace.transaction() if last else contextlib.nullcontext():
            version = workspace.version()
            current = workspace.load(scenario_id)
            if read is not None:
                _refuse_conflicts(workspace, scenario_id, edits, read)
            subject = f"{workspace.label} (scenario {scenario_id!r})"
            edited = apply_edits(current, edits, subject=subject)
            if added is not None and len(added):
                edited = with_added(edited, added, subject=subject)
            stamp = _Stamp(uuid.uuid4().hex[:12], datetime.now(UTC).replace(microsecond=0),
                           who, scenario_id, note, undoes)  # fmt: skip
            made = _differences(edited, edits, stamp, _added_of(workspace, scenario_id, edits))
            log, changes = _log_rows(made, edited.added, stamp), cast(Sequence[Change], made)
            if edited.added is not None:
                changes = _Logged(made, edited.added, stamp)
            if not changes:
                return changes
            if last:
                _write(workspace, edited, log, version, edits)
                return changes
        with workspace.transaction():
            if workspace.version() == version:  # else saved by someone else meanwhile: again
                _write(workspace, edited, log, version, edits)
                return changes
    raise AssertionError("unreachable: the last try returns")


def _write(
    workspace: Workspace,
    edited: EditedScenario,
    rows: Batches,
    version: Any,
    edits: Sequence[Edit],
) -> None:
    log: dict[str, TableRows] = {CHANGES_LAYER: rows}
    if edited.whole:
        workspace.save(edited.scenario, append=log)
    else:
        workspace.write_records(edited.scenario, edited.put(), edited.dropped(), append=log)
    _restore_added(workspace, edited.scenario.id, edits)  # (under the same lock, just after)
    appended = edited.added if not edited.after.get(s.EVENTS.name) else None
    dump(workspace, edited.scenario, edited.layers(), written_over=version, appended=appended)


OPTIMISTIC_TRIES = 3
"""Tries that read and check the edits without the lock, which is then taken only to write
(and the work done again when someone saved meanwhile); after these, the lock is held
throughout, so a busy workspace still makes progress."""


def history(workspace: Workspace, scenario_id: str | None = None) -> list[Change]:
    """The change log, oldest first (of one scenario when `scenario_id` is given)."""
    if not workspace.exists():
        return []
    try:
        frame = workspace.table(CHANGES_LAYER)
    except WorkspaceError:
        return []
    changes = [_change({str(k): v for k, v in row.items()}) for row in frame.to_dict("records")]
    return [c for c in changes if scenario_id is None or c.scenario_id == scenario_id]


def undoable(workspace: Workspace, scenario_id: str, *, who: str | None = None) -> list[Change]:
    """The last batch of changes not undone yet (made by `who`, when given); [] when none."""
    changes = history(workspace, scenario_id)
    undone = {c.undoes for c in changes if c.undoes}
    for change in reversed(changes):
        if change.undoes or change.batch in undone or (who and change.who != who):
            continue
        return [c for c in changes if c.batch == change.batch]
    return []


def undo(workspace: Workspace, scenario_id: str, *, who: str) -> Sequence[Change]:
    """Undo the last batch of changes (by `who`), as a new logged batch that restores it.

    Refused, with the reason, when a record it touched has changed since.
    """
    who = workspace.author(who)
    with workspace.transaction():
        batch = undoable(workspace, scenario_id, who=who)
        if not batch:
            raise NothingToUndoError(
                f"{workspace.label}: no change by {who!r} to undo in scenario {scenario_id!r}"
            )
        edits = [_inverse(change) for change in reversed(batch)]
        _check_unchanged(workspace.load(scenario_id), batch)
        note = f"undo of {batch[0].note or batch[0].action} ({batch[0].at:%Y-%m-%d %H:%M} UTC)"
        return commit(workspace, scenario_id, edits, who=who, note=note, undoes=batch[0].batch)


# --- the log rows ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Stamp:
    batch: str
    at: datetime
    who: str
    scenario_id: str
    note: str
    undoes: str

    def change(self, edit: Edit, name: str, old: Any, new: Any) -> Change:
        return Change(
            self.batch, self.at, self.who, self.scenario_id, edit.action, edit.layer,
            edit.record_id, name, old, new, self.note, self.undoes,
        )  # fmt: skip


def _differences(
    edited: EditedScenario,
    edits: Sequence[Edit],
    stamp: _Stamp,
    added: Mapping[tuple[str, str], dict[str, Any]],
) -> list[Change]:
    """The log rows: each record's cells before and after, as stored (normalised) values; a
    deleted record's with the values of fields another program added (`added`, by layer and
    id) under ADDED_VALUES, for its undo to put back."""
    old_rows, new_rows = edited.rows(edited.before), edited.rows(edited.after)
    changes = []
    for edit in edits:
        old = old_rows[edit.layer].get(edit.record_id)
        new = new_rows[edit.layer].get(edit.record_id)
        if edit.action != "update":  # the whole record, made JSON when logged (`log_text`)
            extra = added.get((edit.layer, edit.record_id))
            old = {**old, ADDED_VALUES: extra} if old is not None and extra else old
            changes.append(stamp.change(edit, "", old, new))
            continue
        old, new = jsonable(old), jsonable(new)
        old, new = old or {}, new or {}  # (added, or deleted, by another edit of the batch)
        for name in edit.cells:
            if old.get(name) != new.get(name):
                changes.append(stamp.change(edit, name, old.get(name), new.get(name)))
    return changes


# --- undo ---------------------------------------------------------------------------------


ADDED_VALUES = "(fields added by another program)"
"""In a deleted record's logged cells: the values it held in fields QGIS (say) added."""


def _added_of(
    workspace: Workspace, scenario_id: str, edits: Sequence[Edit]
) -> dict[tuple[str, str], dict[str, Any]]:
    """The values in fields another program added, of the records these edits delete."""
    wanted: dict[str, set[str]] = {}
    for edit in edits:
        if edit.action == "delete":
            wanted.setdefault(edit.layer, set()).add(edit.record_id)
    return {
        (layer, rid): values
        for layer, ids in wanted.items()
        for rid, values in workspace.added_values(layer, scenario_id, ids).items()
    }


def _restore_added(workspace: Workspace, scenario_id: str, edits: Sequence[Edit]) -> None:
    """Put back what undone deletes' records held in fields another program added."""
    by_layer: dict[str, dict[str, dict[str, Any]]] = {}
    for edit in edits:
        if edit.action == "add" and edit.added_values:
            by_layer.setdefault(edit.layer, {})[edit.record_id] = edit.added_values
    for layer, values in by_layer.items():
        try:
            workspace.restore_added(layer, scenario_id, values)
        except CorridorError as error:
            raise WorkspaceError(
                f"{workspace.label}: the change was saved, but not the values its {layer} "
                f"held in fields another program added ({error}); they are in the change log"
            ) from error


def _inverse(change: Change) -> Edit:
    if change.action == "add":
        return Edit("delete", change.layer, change.record_id)
    if change.action == "delete":
        cells = dict(change.old)
        added = cells.pop(ADDED_VALUES, None)
        return Edit("add", change.layer, change.record_id, cells, added_values=added)
    return Edit("update", change.layer, change.record_id, {change.field: change.old})


def _check_unchanged(scenario: Scenario, batch: Iterable[Change]) -> None:
    """Refuse to undo over a later change: the records must still be as the batch left them."""
    batch = list(batch)
    wanted: dict[str, set[Any]] = {}
    for change in batch:
        wanted.setdefault(change.layer, set()).add(change.record_id)
    rows = rows_by_id(scenario, wanted)
    problems = []
    for change in batch:
        row = jsonable(rows[change.layer].get(change.record_id))
        now = row.get(change.field) if change.field and row is not None else row
        if now != change.new:
            where = f"{change.layer} id {change.record_id!r}"
            expected = "the value this change left" if change.new is not None else "no record"
            problems.append(Problem("undo", where, change.field, expected, now))
    if problems:
        raise ValidationError(
            problems, subject="undo refused: changed again since (undo the later change first)"
        )


# --- the change log as a table ----------------------------------------------------------------


COLUMNS = ("batch", "at", "who", "scenario_id", "action", "layer", "record_id", "field", "old",
           "new", "note", "undoes")  # fmt: skip


def _log_rows(made: list[Change], added: EventTable | None, stamp: _Stamp) -> Batches:
    """The log rows of a commit, made a batch at a time as they are written: its edits' rows,
    then BATCH_ROWS of its new events' at a time (the JSON of a million events at once took
    600 MB, its frames joined 190 MB more)."""

    def frames() -> Iterator[pd.DataFrame]:
        if made or added is None or not len(added):
            yield _frame(made)
        if added is None or not len(added):
            return
        for part in slices(len(added)):
            chunk = EventTable(added.table.slice(part.start, part.stop - part.start))
            yield _added_log(chunk, stamp, cells_json(chunk, log_text))

    return Batches(COLUMNS, frames)


def _added_log(added: EventTable, stamp: _Stamp, new: pa.Array) -> pd.DataFrame:
    """New events' log rows, an add each with the whole event as its new value (its cells, as
    `record_cells` makes them from an Event), as `_frame` makes them, built a column at a time (a
    million: 15 s one row at a time). `new`: the events as JSON (`cells_json`)."""
    size = len(added)
    constants = {"batch": stamp.batch, "who": stamp.who, "scenario_id": stamp.scenario_id,
                 "action": "add", "layer": s.EVENTS.name, "field": "", "old": "",
                 "note": stamp.note, "undoes": stamp.undoes}  # fmt: skip
    columns = {
        name: pa.repeat(pa.scalar(value, pa.string()), size) for name, value in constants.items()
    }
    columns["at"] = pa.repeat(pa.scalar(stamp.at, pa.timestamp("ms", tz="UTC")), size)
    columns["record_id"], columns["new"] = added.column("id"), new
    frame: pd.DataFrame = pa.table({name: columns[name] for name in COLUMNS}).to_pandas()
    return frame


class _Logged(Sequence[Change]):
    """A commit's changes: those of its edits, then those that logged new events given as a
    table (each made when asked for)."""

    def __init__(self, made: list[Change], added: EventTable, stamp: _Stamp) -> None:
        self._made, self._added, self._stamp = made, added, stamp

    def __len__(self) -> int:
        return len(self._made) + len(self._added)

    def __iter__(self) -> Iterator[Change]:
        yield from self._made
        for event in self._added:  # (the table makes its events a batch at a time)
            yield self._change(event)

    @overload
    def __getitem__(self, index: int) -> Change: ...

    @overload
    def __getitem__(self, index: slice) -> list[Change]: ...

    def __getitem__(self, index: int | slice) -> Change | list[Change]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        index = range(len(self))[index]  # (IndexError when out of range)
        if index < len(self._made):
            return self._made[index]
        return self._change(self._added[index - len(self._made)])

    def _change(self, event: Any) -> Change:
        edit = Edit("add", s.EVENTS.name, event.id)
        return self._stamp.change(edit, "", None, record_cells(event, s.EVENTS))


def _frame(changes: list[Change]) -> pd.DataFrame:
    columns = {name: [getattr(change, name) for change in changes] for name in COLUMNS}
    columns["old"] = [log_text(change.old) for change in changes]
    columns["new"] = [log_text(change.new) for change in changes]
    frame = pd.DataFrame(columns, columns=list(COLUMNS))
    frame["at"] = pd.to_datetime(frame["at"], utc=True).astype("datetime64[ms, UTC]")
    return frame


def log_text(value: Any) -> str:
    """A logged value as JSON text, as `jsonable` makes it (orjson: 300,000 records in 0.5 s,
    where making them JSON-ready first and json took 3.9 s)."""
    if value is None:
        return ""
    try:
        return orjson.dumps(value, default=jsonable, option=_ORJSON).decode("utf-8")
    except (orjson.JSONEncodeError, TypeError):  # keys that are not text, very large integers
        return json.dumps(jsonable(value), ensure_ascii=False)


_ORJSON = orjson.OPT_PASSTHROUGH_DATETIME
"""Datetimes go through `jsonable` (written in UTC), like anything else orjson does not know
(geometries, numpy scalars); text and numbers, enums among them, and tuples it writes itself."""


def _change(row: dict[str, Any]) -> Change:
    moment = row["at"]
    at = moment.to_pydatetime() if isinstance(moment, pd.Timestamp) else moment
    return Change(
        batch=str(row["batch"]),
        at=at if at.tzinfo else at.replace(tzinfo=UTC),
        who=str(row["who"] or ""),
        scenario_id=str(row["scenario_id"]),
        action=str(row["action"]),
        layer=str(row["layer"]),
        record_id=str(row["record_id"]),
        field=str(row["field"] or ""),
        old=json.loads(row["old"]) if row["old"] else None,
        new=json.loads(row["new"]) if row["new"] else None,
        note=str(row["note"] or ""),
        undoes=str(row["undoes"] or ""),
    )
