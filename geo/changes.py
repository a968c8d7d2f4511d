"""Edits to a workspace scenario: validated, written in one transaction, logged, and undoable."""

from __future__ import annotations

import contextlib
import json
import math
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal, cast, overload

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from geo import _fields as f
from geo import _schema as s
from geo._atomic import write_text
from geo._collector import pausing
from geo._fields import Spot
from geo.builder import assemble, meta_fields
from geo.errors import (
    ConflictError,
    CorridorError,
    Problem,
    ProblemLog,
    ValidationError,
    WorkspaceError,
)
from geo.event_table import EventTable, cells_json
from geo.records import Scenario
from geo.scenario import append_events, read_scenario, write_scenario
from geo.store import KINDS_BY_NAME, Workspace

CHANGES_LAYER = "changes"
KINDS = KINDS_BY_NAME
Action = Literal["add", "update", "delete"]


class NothingToUndoError(CorridorError, LookupError):
    """The change log holds no change that can still be undone."""


@dataclass(frozen=True)
class Edit:
    """One change to one record: add it (all its cells), update some cells, or delete it.

    Cells are as in a scenario file (text, numbers, dates); a record with a shape carries it
    under "geometry" as a shapely geometry.
    """

    action: Action
    layer: str
    record_id: str
    cells: dict[str, Any] = field(default_factory=dict)
    record: Any = field(default=None, compare=False, repr=False)
    """For an add: the record these cells were built into and checked as (an import's); only
    its references are checked again, against the ids the workspace holds when it is written."""
    added_values: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """For an add that undoes a delete: the values the record held in fields another program
    added to the layer (QGIS, say), put back once it is written."""


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
    written: list[pa.Array] = []  # the new events as logged, made once whatever the tries
    for attempt in range(OPTIMISTIC_TRIES + 1):
        last = attempt == OPTIMISTIC_TRIES  # the last try holds the lock from read to write
        with workspace.transaction() if last else contextlib.nullcontext():
            version = workspace.version()
            current = workspace.load(scenario_id)
            if read is not None:
                _refuse_conflicts(workspace, scenario_id, edits, read)
            subject = f"{workspace.label} (scenario {scenario_id!r})"
            edited = _edited(current, edits, subject=subject)
            if added is not None and len(added):
                edited = _with_added(edited, added, subject=subject)
            stamp = _Stamp(uuid.uuid4().hex[:12], datetime.now(UTC).replace(microsecond=0),
                           who, scenario_id, note, undoes)  # fmt: skip
            made = _differences(edited, edits, stamp, _added_of(workspace, scenario_id, edits))
            log, changes = [_frame(made)], cast(Sequence[Change], made)
            if edited.added is not None:
                written = written or [cells_json(edited.added, _text)]
                log.append(_added_log(edited.added, stamp, written[0]))
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
    edited: _Edited,
    frames: list[pd.DataFrame],
    version: Any,
    edits: Sequence[Edit],
) -> None:
    frames = [frame for frame in frames if len(frame)] or frames[:1]
    log = {CHANGES_LAYER: pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]}
    if edited.whole:
        workspace.save(edited.scenario, append=log)
    else:
        workspace.write_records(edited.scenario, edited.put(), edited.dropped(), append=log)
    _restore_added(workspace, edited.scenario.id, edits)  # (under the same lock, just after)
    appended = edited.added if not edited.after.get(s.EVENTS.name) else None
    _dump(workspace, edited.scenario, edited.layers(), written_over=version, appended=appended)


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


def dump_folder(workspace: Workspace, scenario_id: str) -> Path:
    """Where the last good state of a scenario is kept as a scenario folder (see `commit`)."""
    return workspace.path.with_name(f"{workspace.path.stem}.dumps") / scenario_id


def dumps(workspace: Workspace) -> list[Path]:
    """Every dump folder of the workspace's scenarios."""
    root = workspace.path.with_name(f"{workspace.path.stem}.dumps")
    return sorted(p for p in root.glob("*") if (p / "scenario.toml").is_file())


def edits_between(base: Scenario, new: Scenario) -> list[Edit]:
    """The edits that turn `base` into `new` (for tools that build a whole new scenario)."""
    before, after = _cells_by_kind(base), _cells_by_kind(new)
    edits: list[Edit] = []
    for layer in KINDS:
        old_rows = {row["id"]: row for row in before[layer]}
        new_rows = {row["id"]: row for row in after[layer]}
        for record_id, row in new_rows.items():
            if record_id not in old_rows:
                edits.append(Edit("add", layer, record_id, row))
                continue
            changed = {
                name: value
                for name, value in row.items()
                if _jsonable(value) != _jsonable(old_rows[record_id].get(name))
            }
            if changed:
                edits.append(Edit("update", layer, record_id, changed))
        edits += [Edit("delete", layer, rid) for rid in old_rows if rid not in new_rows]
    return edits


def recover(workspace: Workspace, *, fallback: Path | None = None) -> list[str]:
    """Set a broken workspace file aside (it is kept) and rebuild it from its scenario dumps.

    With no dump, the `fallback` scenario folder (the shipped scenario) is loaded instead.
    Returns the ids of the scenarios restored.
    """
    with workspace.transaction():
        if workspace.path.exists():
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            workspace.path.replace(
                workspace.path.with_name(f"{workspace.path.name}.broken-{stamp}")
            )
        folders = dumps(workspace) or ([fallback] if fallback else [])
        restored = []
        for folder in folders:
            scenario = read_scenario(folder)
            workspace.save(scenario)
            restored.append(scenario.id)
    return restored


# --- applying edits ---------------------------------------------------------------------


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


@dataclass(frozen=True)
class _Edited:
    """A scenario after edits, with the records the edits touched before and after (None:
    absent), by layer and id."""

    scenario: Scenario
    before: dict[str, dict[str, Any]]
    after: dict[str, dict[str, Any]]
    whole: bool = False
    """Rebuilt and to be written whole (a record others may refer to was deleted)."""
    added: EventTable | None = None
    """New events given as a table (`commit`'s `added`): the scenario's last events."""

    def put(self) -> dict[str, Sequence[Any]]:
        """The records to write, by layer: added and updated ones."""
        put: dict[str, Sequence[Any]] = {
            layer: [record for record in rows.values() if record is not None]
            for layer, rows in self.after.items()
        }
        if self.added is not None:
            events = EventTable.from_records(put.get(s.EVENTS.name, []))
            put[s.EVENTS.name] = events.appended(self.added)
        return put

    def dropped(self) -> dict[str, set[str]]:
        """The ids to remove first, by layer: updated and deleted records."""
        return {
            layer: {rid for rid, record in rows.items() if record is not None}
            for layer, rows in self.before.items()
        }

    def layers(self) -> set[str]:
        touched = {layer for layer, rows in self.after.items() if rows}
        return touched | ({s.EVENTS.name} if self.added is not None else set())

    def rows(self, records: dict[str, dict[str, Any]]) -> dict[str, dict[Any, dict[str, Any]]]:
        """The cells of these records, by layer and id."""
        found: dict[str, dict[Any, dict[str, Any]]] = {name: {} for name in KINDS}
        for layer, by_id in records.items():
            for record_id, record in by_id.items():
                if record is not None:
                    found[layer][record_id] = _cells(record, KINDS[layer])
        return found


REFERRED = frozenset({s.SOURCES.name, s.PLACES.name, s.CONVOYS.name})
"""Layers whose records others name: deleting one rebuilds and checks the whole scenario."""


def _edited(current: Scenario, edits: Sequence[Edit], *, subject: str) -> _Edited:
    """The scenario after the edits, checked by the same rules as a scenario folder.

    Only the records the edits touch are built again (the rest were checked when written),
    and an import's records only have their references checked; a deletion from a layer
    others refer to checks every record again.
    """
    edited = {edit.layer for edit in edits} | REFERRED  # (not every event for a convoy's edit)
    records = {
        name: _by_id(getattr(current, name), _named(edits, name))
        for name in KINDS
        if name in edited
    }
    work: dict[str, dict[Any, dict[str, Any]]] = {name: {} for name in KINDS}
    seen: dict[tuple[str, Any], None] = {}  # in the edits' order: added records go last
    checked: dict[tuple[str, Any], Any] = {}
    for edit in edits:
        key = (edit.layer, edit.record_id)
        if key not in seen and edit.record_id in records.get(edit.layer, {}):
            work[edit.layer][edit.record_id] = _cells(records[edit.layer][edit.record_id],
                                                      KINDS[edit.layer])  # fmt: skip
        seen[key] = None
        _apply(edit, work)
        checked.pop(key, None)
        if edit.action == "add" and edit.record is not None:
            checked[key] = edit.record
    touched = {key: work[key[0]].get(key[1]) for key in seen}
    if any(rid in records[layer] for (layer, rid), row in touched.items() if row is None
           and layer in REFERRED):  # fmt: skip
        return _whole(current, edits, subject=subject)
    return _built(current, records, touched, checked, subject=subject)


def _by_id(records: Sequence[Any], wanted: set[Any]) -> dict[Any, Any]:
    """A layer's records by id: every one, or of an EventTable only the `wanted` ones (a
    million events are not made into records for a few edits)."""
    if isinstance(records, EventTable):
        return records.by_id(wanted)
    return {record.id: record for record in records}


def _named(edits: Sequence[Edit], layer: str) -> set[Any]:
    return {edit.record_id for edit in edits if edit.layer == layer}


def _built(
    current: Scenario,
    records: dict[str, dict[Any, Any]],
    touched: dict[tuple[str, Any], dict[str, Any] | None],
    checked: dict[tuple[str, Any], Any],
    *,
    subject: str,
) -> _Edited:
    ids = {name: set(records[name]) for name in REFERRED}
    for (layer, rid), row in touched.items():
        if layer in ids:
            (ids[layer].add if row is not None else ids[layer].discard)(rid)
    known = s.Known(sources=ids["sources"], places=ids["places"], convoys=ids["convoys"])
    log = ProblemLog()
    after: dict[str, dict[Any, Any]] = {name: {} for name in KINDS}
    by_layer: dict[str, list[tuple[Any, dict[str, Any] | None]]] = {name: [] for name in KINDS}
    for (layer, rid), row in touched.items():
        by_layer[layer].append((rid, row))
    for name, kind in KINDS.items():
        rows = by_layer[name]
        raws = [
            _raw(name, row) for rid, row in rows if row is not None and (name, rid) not in checked
        ]
        built = {record.id: record for record in s.build(kind, raws, known, log)}
        prebuilt = [checked[(name, rid)] for rid, row in rows if (name, rid) in checked]
        s.recheck(kind, prebuilt, known, f"edit of {name}", log)
        built.update({record.id: record for record in prebuilt})
        after[name] = {rid: built.get(rid) for rid, row in rows}  # in the edits' order
    log.raise_if_errors(subject)
    before = {
        name: {rid: records[name].get(rid) for rid in rows} for name, rows in after.items() if rows
    }
    layers = {}
    for name, by_id in records.items():
        if not after[name]:  # untouched: kept as it is (an EventTable stays columns)
            continue
        if isinstance(getattr(current, name), EventTable):  # (kept as columns)
            layers[name] = getattr(current, name).edited(after[name])
            continue
        kept = [after[name].get(rid, record) for rid, record in by_id.items()]
        added = [record for rid, record in after[name].items() if rid not in by_id]
        layers[name] = tuple(record for record in (*kept, *added) if record is not None)
    return _Edited(replace(current, **layers), before, after)


def _with_added(edited: _Edited, added: EventTable, *, subject: str) -> _Edited:
    """The edited scenario with new events after its own: their ids must not be taken and
    what they refer to must exist now (the rest was checked when their file was read)."""
    scenario = edited.scenario
    events = scenario.events
    if not isinstance(events, EventTable):
        events = EventTable.from_records(events)
    log = ProblemLog()
    ids = added.column("id")
    counts = pc.value_counts(ids)
    twice = pc.filter(counts.field("values"), pc.greater(counts.field("counts"), 1))
    gone = pa.array(list(edited.before.get(s.EVENTS.name, {})), pa.string())  # (order kept)
    held = pc.or_(pc.is_in(ids, value_set=events.column("id")), pc.is_in(ids, value_set=gone))
    taken = pc.filter(ids, held)
    for rid in [*taken.to_pylist(), *twice.to_pylist()]:
        log.error(f"edit of {s.EVENTS.name}", f"id {rid!r}", "id", "an id not used yet", rid)
    known = s.Known(
        sources={source.id for source in scenario.sources},
        places={place.id for place in scenario.places},
        convoys={convoy.id for convoy in scenario.convoys},
    )
    _recheck_table(added, known, log)
    log.raise_if_errors(subject)
    return replace(edited, scenario=replace(scenario, events=events.appended(added)), added=added)


def _recheck_table(events: EventTable, known: s.Known, log: ProblemLog) -> None:
    """`_schema.recheck` for events given as a table: each value of each reference field
    checked once against the ids known now; each event citing a refused one is logged."""
    for spec in s.EVENTS.fields(known):
        if not isinstance(spec.parse, f.Reference):
            continue
        column = events.cell_column(spec.name)
        for value in pc.unique(column).to_pylist():
            if value in (None, ""):
                continue
            try:
                spec.parse(value)
            except f.FieldError as error:
                citing = pc.filter(events.column("id"), pc.equal(column, value))
                for rid in citing.to_pylist():
                    where = f"id {rid!r}"
                    log.error(f"edit of {s.EVENTS.name}", where, spec.name, str(error), value)


def _whole(current: Scenario, edits: Sequence[Edit], *, subject: str) -> _Edited:
    """The edits applied to every record's cells and the whole scenario checked again."""
    scenario = _rebuild(current, _applied(_cells_by_kind(current), edits), subject=subject)
    wanted: dict[str, set[Any]] = {}
    for edit in edits:
        wanted.setdefault(edit.layer, set()).add(edit.record_id)
    before = _records_by_id(current, wanted)
    after = _records_by_id(scenario, wanted)
    return _Edited(scenario, before, after, whole=True)


def _records_by_id(scenario: Scenario, wanted: dict[str, set[Any]]) -> dict[str, dict[Any, Any]]:
    found: dict[str, dict[Any, Any]] = {}
    for name, ids in wanted.items():
        if name in KINDS:
            present = _by_id(getattr(scenario, name), ids)
            found[name] = {rid: present.get(rid) for rid in ids}
    return found


def _cells(record: Any, kind: s.Kind) -> dict[str, Any]:
    row = s.to_cells(record, kind)
    if kind.geometry:
        row["geometry"] = record.geometry
    return row


def _applied(
    cells: dict[str, list[dict[str, Any]]], edits: Sequence[Edit]
) -> dict[str, list[dict[str, Any]]]:
    """The rows after the edits, in order; each edit finds its row by id in a dict (adding or
    undoing N records is linear in N: a scan per edit took 37 s for 20,000)."""
    by_id = {layer: {row.get("id"): row for row in rows} for layer, rows in cells.items()}
    for edit in edits:
        _apply(edit, by_id)
    return {layer: list(rows.values()) for layer, rows in by_id.items()}


def _apply(edit: Edit, by_id: dict[str, dict[Any, dict[str, Any]]]) -> None:
    if edit.layer not in KINDS:
        raise ValidationError([_problem(edit, "layer", f"one of {', '.join(KINDS)}", edit.layer)])
    rows = by_id[edit.layer]
    found = rows.get(edit.record_id)
    if edit.action == "add":
        if found is not None:
            raise ValidationError([_problem(edit, "id", "an id not used yet", edit.record_id)])
        rows[edit.record_id] = {**edit.cells, "id": edit.record_id}
        return
    if found is None:
        raise ValidationError([_problem(edit, "id", f"the id of a record in {edit.layer}", None)])
    if edit.action == "delete":
        del rows[edit.record_id]
        return
    for name, value in edit.cells.items():
        if name == "id" or (name not in found and name != "geometry"):
            expected = f"a field of {edit.layer} other than id"
            raise ValidationError([_problem(edit, name, expected, value)])
        found[name] = value


def _differences(
    edited: _Edited,
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
        if edit.action != "update":  # the whole record, made JSON when logged (`_text`)
            extra = added.get((edit.layer, edit.record_id))
            old = {**old, ADDED_VALUES: extra} if old is not None and extra else old
            changes.append(stamp.change(edit, "", old, new))
            continue
        old, new = _jsonable(old), _jsonable(new)
        old, new = old or {}, new or {}  # (added, or deleted, by another edit of the batch)
        for name in edit.cells:
            if old.get(name) != new.get(name):
                changes.append(stamp.change(edit, name, old.get(name), new.get(name)))
    return changes


def _rows_by_id(
    scenario: Scenario, wanted: dict[str, set[Any]]
) -> dict[str, dict[Any, dict[str, Any]]]:
    """The cells of the records with these ids, by layer and id (only those are made)."""
    found: dict[str, dict[Any, dict[str, Any]]] = {name: {} for name in KINDS}
    for name, by_id in _records_by_id(scenario, wanted).items():
        found[name] = {rid: _cells(r, KINDS[name]) for rid, r in by_id.items() if r is not None}
    return found


def _problem(edit: Edit, name: str, expected: str, actual: object) -> Problem:
    return Problem(f"edit of {edit.layer}", f"id {edit.record_id!r}", name, expected, actual)


def _cells_by_kind(scenario: Scenario) -> dict[str, list[dict[str, Any]]]:
    return {
        name: [_cells(r, kind) for r in getattr(scenario, name)] for name, kind in KINDS.items()
    }


def _rebuild(
    current: Scenario, cells: dict[str, list[dict[str, Any]]], *, subject: str
) -> Scenario:
    """The scenario from edited cells, checked by the same rules as a scenario folder."""
    log = ProblemLog()
    raws = {
        KINDS[name]: [_raw(name, row) for row in rows]
        for name, rows in cells.items()
        if name != s.SOURCES.name
    }
    meta = {spec.name: getattr(current, spec.name) for spec in meta_fields()}
    scenario = assemble(meta, [_raw("sources", row) for row in cells["sources"]], raws, log)
    log.raise_if_errors(subject)
    assert scenario is not None
    return scenario


def _raw(name: str, row: dict[str, Any]) -> s.RawRecord:
    values = {key: value for key, value in row.items() if key != "geometry"}
    geometry = row.get("geometry")
    if isinstance(geometry, dict):
        geometry = shape(geometry)
    return s.RawRecord(Spot(f"edit of {name}", f"id {row.get('id')!r}"), values, geometry)


def _dump(
    workspace: Workspace,
    scenario: Scenario,
    layers: set[str] | None = None,
    *,
    written_over: Any = None,
    appended: EventTable | None = None,
) -> None:
    """Keep the scenario's new state as a folder too: the way back if the file is ever lost.

    Only the files of the `layers` changed are written again, when the folder is known to hold
    the state this write started from (`written_over`, the workspace's version then, is what
    the last dump recorded); otherwise, after a save that wrote no dump or a dump that failed,
    every file is written. `appended`: the scenario's last events, new, with no other event
    changed: added to the folder's events.csv rather than it written again.
    """
    folder = dump_folder(workspace, scenario.id)
    marker = folder / DUMPED_VERSION
    try:
        known = marker.read_text(encoding="utf-8") if marker.is_file() else None
        current = layers is not None and known == repr(written_over)
        if current and appended is not None and layers is not None:
            write_scenario(scenario, folder, kinds=layers - {s.EVENTS.name})
            append_events(scenario, appended, folder)
        else:
            write_scenario(scenario, folder, kinds=layers if current else None)
        write_text(marker, repr(workspace.version()))
    except OSError as error:
        raise WorkspaceError(
            f"{workspace.label}: the change was saved but its dump could not be written ({error})"
        ) from error


DUMPED_VERSION = ".workspace-version"
"""In a dump folder: the workspace file's version (inode, time, size) the dump is of."""


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
    rows = _rows_by_id(scenario, wanted)
    problems = []
    for change in batch:
        row = _jsonable(rows[change.layer].get(change.record_id))
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


def _jsonable(value: Any) -> Any:
    """A cell (or row of cells) as JSON-ready values: text, numbers, lists and dicts."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, BaseGeometry):  # coordinates as lists, as the log reads them back
        return _jsonable(dict(mapping(value)))
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return [_jsonable(item) for item in value]
    if value is None or isinstance(value, str | bool | int):
        return value  # (as JSON gives them back; a round trip each cost a large import 1.4 s)
    if isinstance(value, float) and math.isfinite(value):
        return float(value)
    if hasattr(value, "item"):  # a numpy or pandas scalar, as a data editor returns them
        value = value.item()
    return json.loads(json.dumps(value))


def _plain(value: Any) -> Any:
    """A cell as `_jsonable` makes it, its common kinds (text, numbers, lists of text) first."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple and all(type(item) is str for item in value):
        return list(value)
    return _jsonable(value)


_PLAIN = frozenset({str, int, float, bool, type(None)})
"""Cell types that are JSON as they are (tested by exact type, in a row's loop; a float that
is not finite stays as it is, as the JSON round trip of other values leaves it)."""

COLUMNS = ("batch", "at", "who", "scenario_id", "action", "layer", "record_id", "field", "old",
           "new", "note", "undoes")  # fmt: skip


def _added_log(added: EventTable, stamp: _Stamp, new: pa.Array) -> pd.DataFrame:
    """New events' log rows, an add each with the whole event as its new value (its cells, as
    `_cells` makes them from an Event), as `_frame` makes them, built a column at a time (a
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
        return self._stamp.change(edit, "", None, _cells(event, s.EVENTS))


def _frame(changes: list[Change]) -> pd.DataFrame:
    columns = {name: [getattr(change, name) for change in changes] for name in COLUMNS}
    columns["old"] = [_text(change.old) for change in changes]
    columns["new"] = [_text(change.new) for change in changes]
    frame = pd.DataFrame(columns, columns=list(COLUMNS))
    frame["at"] = pd.to_datetime(frame["at"], utc=True).astype("datetime64[ms, UTC]")
    return frame


def _text(value: Any) -> str:
    """A logged value as JSON text, as `_jsonable` makes it (orjson: 300,000 records in 0.5 s,
    where making them JSON-ready first and json took 3.9 s)."""
    if value is None:
        return ""
    try:
        return orjson.dumps(value, default=_jsonable, option=_ORJSON).decode("utf-8")
    except (orjson.JSONEncodeError, TypeError):  # keys that are not text, very large integers
        return json.dumps(_jsonable(value), ensure_ascii=False)


_ORJSON = orjson.OPT_PASSTHROUGH_DATETIME
"""Datetimes go through `_jsonable` (written in UTC), like anything else orjson does not know
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
