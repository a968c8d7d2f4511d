"""New events given to a commit as columns (an import's) end where edits would put them: the
same workspace, change log, dump and undo, without a record, edit or change made per event."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import pyogrio
import pytest
from conftest import postgis_schema, workspace_of

from geo import _schema as s
from geo import changes, synthetic
from geo.changes import Edit
from geo.changes.log import log_text
from geo.errors import ValidationError
from geo.event_table import EventTable, cells_json
from geo.records import Event, Scenario
from geo.store import Workspace, open_workspace
from geo.store import geopackage as workspace_module


def event(number: int, **fields: object) -> Event:
    values: dict[str, object] = {
        "id": f"EV{number}", "date": date(2016, 12, 10 + number % 5), "event_type": "Battles",
        "latitude": 36.2 + number / 1000, "longitude": 37.1 + number / 700,
        "source": ("report",), "actor1": f"Forces {number}", "fatalities": number % 3,
        "notes": f"Event {number}.", "geo_precision": 1 + number % 3,
    }  # fmt: skip
    return Event(**{**values, **fields})  # type: ignore[arg-type]


ODD = [
    event(1, notes='He said "go", then \\left.', actor2="=SUM(A1)", geo_precision=None),
    event(2, notes="two\nlines\tand a bell \x07", location="حلب", latitude=36.0),
    event(3, longitude=0.00004, latitude=-0.0, admin1="-minus", time_precision=2),
    event(4, source=("report", "editors"), reported_by="'quoted", fatalities=0),
]


def table(events: list[Event]) -> EventTable:
    return EventTable.from_records(events)


def as_edits(events: list[Event]) -> list[Edit]:
    return [Edit("add", "events", e.id, s.to_cells(e, s.EVENTS), record=e) for e in events]


def log_rows(workspace: Workspace) -> list[tuple[object, ...]]:
    frame = workspace.table(changes.CHANGES_LAYER)
    names = ["who", "scenario_id", "action", "layer", "record_id", "field", "old", "new", "note"]
    return [tuple(row) for row in frame[names].itertuples(index=False)]


@pytest.fixture(params=["geopackage", "postgis"])
def pair(
    request: pytest.FixtureRequest, tmp_path: Path, tiny: Scenario
) -> Iterator[tuple[Workspace, Workspace]]:
    """Two workspaces holding the tiny scenario, in each store."""
    with contextlib.ExitStack() as stack:
        found = []
        for name in ("columns", "edits"):
            (tmp_path / name).mkdir()
            path = tmp_path / name / "workspace.gpkg"
            if request.param == "geopackage":
                made = open_workspace(path)
            else:
                made = open_workspace(stack.enter_context(postgis_schema()))
                made.path = path  # (its dumps)
            made.save(tiny)
            found.append(made)
        yield found[0], found[1]


def test_events_added_as_columns_are_stored_logged_and_dumped_as_added_by_edits(
    pair: tuple[Workspace, Workspace],
) -> None:
    by_columns, by_edits = pair
    first, second = ODD[:2], [*ODD[2:], *(event(n) for n in range(10, 14))]
    for batch in (first, second):  # the second: events.csv added to, not written again
        done = changes.commit(by_columns, "tiny", [], who="ana", note="n", added=table(batch))
        changes.commit(by_edits, "tiny", as_edits(batch), who="ana", note="n")
        assert [c.record_id for c in done] == [e.id for e in batch]
        assert done[-1].new == {**s.to_cells(batch[-1], s.EVENTS)}
    assert by_columns.load("tiny").events == by_edits.load("tiny").events
    assert log_rows(by_columns) == log_rows(by_edits)
    dumps = [changes.dump_folder(w, "tiny") / "events.csv" for w in pair]
    assert dumps[0].read_text(encoding="utf-8") == dumps[1].read_text(encoding="utf-8")
    changes.undo(by_columns, "tiny", who="ana")
    assert [e.id for e in by_columns.load("tiny").events] == ["EV1", "EV2"]


def test_edits_and_new_events_in_one_commit_keep_the_edits_order(
    pair: tuple[Workspace, Workspace],
) -> None:
    by_columns, _ = pair
    changes.commit(by_columns, "tiny", as_edits(ODD[:1]), who="ana")
    update = Edit("update", "events", "EV1", {"fatalities": 9})
    done = changes.commit(by_columns, "tiny", [update], who="ana", added=table(ODD[1:3]))
    assert [(c.action, c.record_id) for c in done] == [
        ("update", "EV1"), ("add", "EV2"), ("add", "EV3"),
    ]  # fmt: skip
    events = by_columns.load("tiny").events
    assert [(e.id, e.fatalities) for e in events] == [("EV1", 9), ("EV2", 2), ("EV3", 0)]


def test_new_events_with_a_taken_id_or_an_unknown_source_are_refused_and_nothing_written(
    pair: tuple[Workspace, Workspace],
) -> None:
    workspace, _ = pair
    changes.commit(workspace, "tiny", [], who="ana", added=table(ODD[:1]))
    version = workspace.version()
    with pytest.raises(ValidationError, match=r"id 'EV1'.*an id not used yet"):
        changes.commit(workspace, "tiny", [], who="ana", added=table([event(1)]))
    with pytest.raises(ValidationError, match=r"id 'EV7'.*source.*'nowhere'"):
        changes.commit(
            workspace, "tiny", [], who="ana", added=table([event(7, source=("nowhere",))])
        )
    twice = table([event(8), event(8, notes="again")])
    with pytest.raises(ValidationError, match=r"id 'EV8'.*an id not used yet"):
        changes.commit(workspace, "tiny", [], who="ana", added=twice)
    assert workspace.version() == version


def test_the_log_writes_each_new_event_as_json_exactly_as_for_a_record() -> None:
    odd = [*ODD, event(5, latitude=1e-5, longitude=12.0), event(6, notes='\\\\""')]
    expected = [log_text(s.to_cells(e, s.EVENTS)) for e in odd]
    assert cells_json(table(odd), log_text).to_pylist() == expected


def test_many_new_events_write_the_layer_anew_keeping_every_scenarios_rows(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = open_workspace(tmp_path / "workspace.gpkg")
    workspace.save(tiny)
    workspace.save(replace(tiny, id="other"))
    changes.commit(workspace, "other", [], who="ana", added=table([event(1), event(2)]))
    changes.commit(workspace, "tiny", [], who="ana", added=table([event(3)]))
    monkeypatch.setattr(workspace_module, "REWRITE_AT", 4)
    rewrites = []
    real = workspace_module._kept_arrow
    monkeypatch.setattr(
        workspace_module, "_kept_arrow", lambda *a: rewrites.append(a[1]) or real(*a)
    )
    changes.commit(workspace, "tiny", [], who="ana", added=table([event(n) for n in range(4, 8)]))
    assert rewrites == ["events"]  # 4 added, 3 held: written anew
    assert [e.id for e in workspace.load("other").events] == ["EV1", "EV2"]
    assert [e.id for e in workspace.load("tiny").events] == ["EV3", "EV4", "EV5", "EV6", "EV7"]
    assert workspace.load("tiny").events[1] == event(4)
    near = pyogrio.read_dataframe(workspace.path, layer="events", bbox=(37.1, 36.2, 37.1045, 36.21))
    assert sorted(near["id"]) == ["EV1", "EV2", "EV3"]  # found through the R-tree
    with sqlite3.connect(workspace.path) as db:
        found = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert {"rtree_events_geom", "rtree_events_geom_insert", "events_scenario_id_date"} <= found
    changes.commit(workspace, "tiny", [], who="ana", added=table([event(8)]))
    assert rewrites == ["events"]  # one more: added to the layer
    changes.undo(workspace, "tiny", who="ana")
    changes.undo(workspace, "tiny", who="ana")
    assert [e.id for e in workspace.load("tiny").events] == ["EV3"]


def test_a_layer_written_anew_keeps_the_values_it_held_whatever_their_stored_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layer saved whole holds whole numbers as the usual path writes them (text, beside
    missing ones): written anew with new events, every value reads back as it was."""
    scenario = synthetic.generate(events=30, convoys=2, zones=2, seed=3)
    held = [replace(e, geo_precision=None if i % 3 else 2) for i, e in enumerate(scenario.events)]
    scenario = replace(scenario, events=EventTable.from_records(held))
    workspace = workspace_of(tmp_path, scenario)
    monkeypatch.setattr(workspace_module, "REWRITE_AT", 5)
    rewrites = []
    real = workspace_module._kept_arrow
    monkeypatch.setattr(
        workspace_module, "_kept_arrow", lambda *a: rewrites.append(a[1]) or real(*a)
    )
    source = (scenario.sources[0].id,)
    added = [event(n, source=source, geo_precision=None if n % 2 else 2) for n in range(40)]
    changes.commit(workspace, scenario.id, [], who="ana", added=table(added))
    assert rewrites == ["events"]
    assert list(workspace.load(scenario.id).events) == [*scenario.events, *added]
    with sqlite3.connect(workspace.path) as db:
        stored = set(db.execute("SELECT DISTINCT typeof(fatalities) FROM events"))
        precisions = set(db.execute("SELECT DISTINCT typeof(geo_precision) FROM events"))
        texts = db.execute("SELECT count(*) FROM events WHERE geo_precision = '<NA>'").fetchone()
    assert stored == {("integer",)}
    assert precisions == {("integer",), ("null",)}  # (typed as the new rows, through Arrow)
    assert texts == (0,)


def test_an_event_deleted_and_added_again_in_one_commit_is_refused(
    pair: tuple[Workspace, Workspace],
) -> None:
    workspace, _ = pair
    changes.commit(workspace, "tiny", [], who="ana", added=table(ODD[:2]))
    with pytest.raises(ValidationError, match=r"id 'EV1'.*an id not used yet"):
        changes.commit(
            workspace, "tiny", [Edit("delete", "events", "EV1")], who="ana",
            added=table([event(1)]),
        )  # fmt: skip
    assert [e.id for e in workspace.load("tiny").events] == ["EV1", "EV2"]


def test_the_changes_a_commit_returns_read_as_a_sequence(
    pair: tuple[Workspace, Workspace],
) -> None:
    workspace, _ = pair
    changes.commit(workspace, "tiny", [], who="ana", added=table(ODD[:1]))
    update = Edit("update", "events", "EV1", {"fatalities": 4})
    done = changes.commit(workspace, "tiny", [update], who="ana", added=table(ODD[1:3]))
    assert [c.record_id for c in done] == ["EV1", "EV2", "EV3"]  # iterated
    assert [done[i].record_id for i in (-1, 0)] == ["EV3", "EV1"]
    assert [c.record_id for c in done[1:]] == ["EV2", "EV3"]
    with pytest.raises(IndexError):
        done[3]
