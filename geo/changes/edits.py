"""The edit model: one change to one record (`Edit`), and how edits apply to a scenario.

Pure: a scenario and edits in, the edited scenario out, checked by the same rules as a
scenario folder (`geo.changes.log.commit` writes it and logs what changed).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Any, Literal

import pyarrow as pa
import pyarrow.compute as pc
from shapely.geometry import mapping, shape
from shapely.geometry.base import BaseGeometry

from geo import _fields as f
from geo import _schema as s
from geo._fields import Spot
from geo.builder import assemble, meta_fields
from geo.errors import Problem, ProblemLog, ValidationError
from geo.event_table import EventTable
from geo.records import Scenario
from geo.store.layout import KINDS_BY_NAME

KINDS = KINDS_BY_NAME
Action = Literal["add", "update", "delete"]


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


def edits_between(base: Scenario, new: Scenario) -> list[Edit]:
    """The edits that turn `base` into `new` (for tools that build a whole new scenario)."""
    before, after = cells_by_kind(base), cells_by_kind(new)
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
                if jsonable(value) != jsonable(old_rows[record_id].get(name))
            }
            if changed:
                edits.append(Edit("update", layer, record_id, changed))
        edits += [Edit("delete", layer, rid) for rid in old_rows if rid not in new_rows]
    return edits


@dataclass(frozen=True)
class EditedScenario:
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
                    found[layer][record_id] = record_cells(record, KINDS[layer])
        return found


REFERRED = frozenset({s.SOURCES.name, s.PLACES.name, s.CONVOYS.name})
"""Layers whose records others name: deleting one rebuilds and checks the whole scenario."""


def apply_edits(current: Scenario, edits: Sequence[Edit], *, subject: str) -> EditedScenario:
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
            work[edit.layer][edit.record_id] = record_cells(records[edit.layer][edit.record_id],
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
) -> EditedScenario:
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
    return EditedScenario(replace(current, **layers), before, after)


def with_added(edited: EditedScenario, added: EventTable, *, subject: str) -> EditedScenario:
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


def _whole(current: Scenario, edits: Sequence[Edit], *, subject: str) -> EditedScenario:
    """The edits applied to every record's cells and the whole scenario checked again."""
    scenario = _rebuild(current, _applied(cells_by_kind(current), edits), subject=subject)
    wanted: dict[str, set[Any]] = {}
    for edit in edits:
        wanted.setdefault(edit.layer, set()).add(edit.record_id)
    before = _records_by_id(current, wanted)
    after = _records_by_id(scenario, wanted)
    return EditedScenario(scenario, before, after, whole=True)


def _records_by_id(scenario: Scenario, wanted: dict[str, set[Any]]) -> dict[str, dict[Any, Any]]:
    found: dict[str, dict[Any, Any]] = {}
    for name, ids in wanted.items():
        if name in KINDS:
            present = _by_id(getattr(scenario, name), ids)
            found[name] = {rid: present.get(rid) for rid in ids}
    return found


def record_cells(record: Any, kind: s.Kind) -> dict[str, Any]:
    """A record's cells as in a scenario file, with its shapely geometry under "geometry"."""
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


def rows_by_id(
    scenario: Scenario, wanted: dict[str, set[Any]]
) -> dict[str, dict[Any, dict[str, Any]]]:
    """The cells of the records with these ids, by layer and id (only those are made)."""
    found: dict[str, dict[Any, dict[str, Any]]] = {name: {} for name in KINDS}
    for name, by_id in _records_by_id(scenario, wanted).items():
        found[name] = {
            rid: record_cells(r, KINDS[name]) for rid, r in by_id.items() if r is not None
        }
    return found


def _problem(edit: Edit, name: str, expected: str, actual: object) -> Problem:
    return Problem(f"edit of {edit.layer}", f"id {edit.record_id!r}", name, expected, actual)


def cells_by_kind(scenario: Scenario) -> dict[str, list[dict[str, Any]]]:
    """The cells of every record of a scenario (`record_cells`), by layer."""
    return {
        name: [record_cells(r, kind) for r in getattr(scenario, name)]
        for name, kind in KINDS.items()
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


def jsonable(value: Any) -> Any:
    """A cell (or row of cells) as JSON-ready values: text, numbers, lists and dicts."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, BaseGeometry):  # coordinates as lists, as the log reads them back
        return jsonable(dict(mapping(value)))
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return [jsonable(item) for item in value]
    if value is None or isinstance(value, str | bool | int):
        return value  # (as JSON gives them back; a round trip each cost a large import 1.4 s)
    if isinstance(value, float) and math.isfinite(value):
        return float(value)
    if hasattr(value, "item"):  # a numpy or pandas scalar, as a data editor returns them
        value = value.item()
    return json.loads(json.dumps(value))


def _plain(value: Any) -> Any:
    """A cell as `jsonable` makes it, its common kinds (text, numbers, lists of text) first."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple and all(type(item) is str for item in value):
        return list(value)
    return jsonable(value)


_PLAIN = frozenset({str, int, float, bool, type(None)})
"""Cell types that are JSON as they are (tested by exact type, in a row's loop; a float that
is not finite stays as it is, as the JSON round trip of other values leaves it)."""
