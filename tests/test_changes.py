"""Edits to the workspace: validated, logged, undoable, safe with two writers, recoverable."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from geo import changes
from geo.changes import Edit
from geo.changes import log as change_log
from geo.changes.edits import cells_by_kind
from geo.errors import ValidationError, WorkspaceError, WorkspaceLockedError
from geo.records import ConvoyStatus, Count, Scenario
from geo.scenario import read_scenario
from geo.store import Workspace, open_workspace

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def workspace(tiny_workspace: Workspace) -> Workspace:
    return tiny_workspace


def convoy(workspace: Workspace, convoy_id: str) -> object:
    return next(c for c in workspace.load("tiny").convoys if c.id == convoy_id)


def test_an_edit_is_saved_and_logged_with_old_and_new(workspace: Workspace) -> None:
    done = changes.commit(
        workspace, "tiny", [Edit("update", "convoys", "c1", {"status": "halted"})], who="ana"
    )
    assert convoy(workspace, "c1").status is ConvoyStatus.HALTED  # type: ignore[attr-defined]
    [change] = changes.history(workspace, "tiny")
    assert change == done[0]
    assert (change.who, change.layer, change.record_id, change.field) == (
        "ana", "convoys", "c1", "status"
    )  # fmt: skip
    assert (change.old, change.new) == ("arrived", "halted")


def test_a_commit_leaves_gdals_sqlite_cache_as_it_found_it(workspace: Workspace) -> None:
    import pyogrio

    before = pyogrio.get_gdal_config_option("OGR_SQLITE_CACHE")
    changes.commit(
        workspace, "tiny", [Edit("update", "convoys", "c1", {"status": "halted"})], who="ana"
    )
    assert pyogrio.get_gdal_config_option("OGR_SQLITE_CACHE") == before


def test_the_scenario_a_commit_leaves_for_the_next_load_is_what_the_file_holds(
    workspace: Workspace,
) -> None:
    edits = [
        Edit("update", "convoys", "c1", {"status": "halted"}),
        Edit("add", "places", "new-place", {"name": "New place", "kind": "village",
             "latitude": 35.1, "longitude": 36.2, "country_code": "SY", "precision": "exact",
             "source": "report"}),
    ]  # fmt: skip
    changes.commit(workspace, "tiny", edits, who="ana")
    remembered = workspace.load("tiny")
    assert workspace.load("tiny") is remembered  # not read again
    assert workspace._load("tiny") == remembered  # what reading the file gives
    fresh = open_workspace(workspace.location)
    fresh.save(fresh._load(None))  # saved whole: nothing remembered; loads by no id or by it
    assert fresh.load() is fresh.load("tiny") is fresh.load()  # read the file once


def test_a_commit_of_a_time_finer_than_the_file_keeps_leaves_nothing_to_remember(
    workspace: Workspace,
) -> None:
    edits = [Edit("update", "convoys", "c1", {"depart": "2016-12-15T12:30:00.123456+00:00"})]
    changes.commit(workspace, "tiny", edits, who="ana")
    loaded = workspace.load("tiny")
    assert loaded == workspace._load("tiny")  # the file's milliseconds, not the edit's micros
    depart = next(c.depart for c in loaded.convoys if c.id == "c1")
    assert depart is not None
    assert depart.microsecond == 123000


def test_edits_survive_a_fresh_open(workspace: Workspace) -> None:
    changes.commit(
        workspace, "tiny", [Edit("update", "convoys", "c2", {"people": "about 40"})], who="b"
    )
    reopened = open_workspace(workspace.location)
    assert convoy(reopened, "c2").people == Count(40, 40, "about")  # type: ignore[attr-defined]


def test_a_bad_edit_is_refused_and_nothing_is_written(workspace: Workspace) -> None:
    before = workspace.version()
    bad = [
        Edit("update", "convoys", "c1", {"status": "flying"}),
        Edit("update", "convoys", "c2", {"arrive": "2016-12-15T10:00Z"}),
    ]
    with pytest.raises(ValidationError, match=r"(?s)'status'.*flying.*'arrive'.*after depart"):
        changes.commit(workspace, "tiny", bad, who="ana")
    assert workspace.version() == before
    assert changes.history(workspace, "tiny") == []


def test_unknown_record_and_field_are_named(workspace: Workspace) -> None:
    with pytest.raises(ValidationError, match=r"id 'nope'.*the id of a record in convoys"):
        changes.commit(workspace, "tiny", [Edit("update", "convoys", "nope", {})], who="a")
    with pytest.raises(ValidationError, match=r"field 'colour'"):
        changes.commit(
            workspace, "tiny", [Edit("update", "convoys", "c1", {"colour": "red"})], who="a"
        )


def test_undo_restores_the_previous_value(workspace: Workspace) -> None:
    changes.commit(
        workspace,
        "tiny",
        [Edit("update", "convoys", "c1", {"status": "halted", "people": "12"})],
        who="ana",
    )
    changes.undo(workspace, "tiny", who="ana")
    restored = convoy(workspace, "c1")
    assert restored.status is ConvoyStatus.ARRIVED  # type: ignore[attr-defined]
    assert str(restored.people) == "1500-5000"  # type: ignore[attr-defined]
    assert changes.undoable(workspace, "tiny", who="ana") == []
    with pytest.raises(changes.NothingToUndoError, match="no change by 'ana'"):
        changes.undo(workspace, "tiny", who="ana")


def test_undo_removes_an_added_record_and_brings_back_a_deleted_one(
    workspace: Workspace, tiny: Scenario
) -> None:
    zone = tiny.zones[0]
    changes.commit(workspace, "tiny", [Edit("delete", "zones", zone.id)], who="ana")
    assert zone.id not in {z.id for z in workspace.load("tiny").zones}
    changes.undo(workspace, "tiny", who="ana")
    back = next(z for z in workspace.load("tiny").zones if z.id == zone.id)
    assert back == zone


def test_an_undone_delete_brings_back_what_the_record_held_in_fields_qgis_added(
    workspace: Workspace, tiny: Scenario
) -> None:
    """A team member added fields to the zones in QGIS and filled them for one zone; it is
    deleted, then the delete undone: the zone comes back with those values too."""
    postgres = not isinstance(workspace.location, Path)
    zone = tiny.zones[0].id
    kinds = {"patrol": "integer", "ref": "varchar(40)", "extra": "jsonb"} if postgres else {
        "patrol": "INTEGER", "ref": "TEXT", "fuel": "REAL"}  # fmt: skip
    cells = {"patrol": "3", "ref": "'Z-7'", "extra": "'{\"a\": 1}'", "fuel": "12.5"}
    statements = [f"ALTER TABLE zones ADD COLUMN {n} {k}" for n, k in kinds.items()]
    filled = ", ".join(f"{n} = {cells[n]}" for n in kinds)
    statements.append(f"UPDATE zones SET {filled} WHERE id = '{zone}'")
    if postgres:
        import psycopg

        with psycopg.connect(str(workspace.location)) as db:
            for statement in statements:
                db.execute(statement)
    else:
        from geo.store.gpkg_file import opened  # (with the functions its shape triggers call)

        with opened(workspace.path) as db:
            for statement in statements:
                db.execute(statement)

    def added() -> dict[str, str]:
        table = open_workspace(workspace.location).table("zones").set_index("id")
        return {name: str(table.loc[zone, name]) for name in kinds}

    before = added()
    assert before["ref"] == "Z-7"
    changes.commit(workspace, "tiny", [Edit("delete", "zones", zone)], who="ana")
    logged = changes.history(workspace)[-1].old
    assert logged[changes.ADDED_VALUES]["ref"] == "Z-7"
    changes.undo(workspace, "tiny", who="ana")
    assert added() == before
    assert next(z for z in workspace.load("tiny").zones if z.id == zone) == tiny.zones[0]

    def full(*args: Any) -> None:
        raise WorkspaceError("disk full")

    changes.commit(workspace, "tiny", [Edit("delete", "zones", zone)], who="ana")
    with pytest.MonkeyPatch.context() as failing:
        failing.setattr(type(workspace), "restore_added", full)
        with pytest.raises(WorkspaceError, match="the change was saved, but not the values"):
            changes.undo(workspace, "tiny", who="ana")
    assert zone in {z.id for z in open_workspace(workspace.location).load("tiny").zones}


def test_an_added_shape_can_be_undone_from_the_log_as_read_back(
    workspace: Workspace, tiny: Scenario
) -> None:
    """The log keeps coordinates as JSON lists; the check compared them with shapely's tuples,
    so no added route or zone could ever be undone (drafts from a report, shapes drawn)."""
    leg = tiny.routes[0]
    cells = {**cells_by_kind(tiny)["routes"][0], "id": "c1-extra", "leg": 9}
    changes.commit(workspace, "tiny", [Edit("add", "routes", "c1-extra", cells)], who="ana")
    assert "c1-extra" in {r.id for r in workspace.load("tiny").routes}
    changes.undo(workspace, "tiny", who="ana")
    assert "c1-extra" not in {r.id for r in workspace.load("tiny").routes}
    assert leg in workspace.load("tiny").routes


def test_undo_takes_the_users_own_last_change(workspace: Workspace) -> None:
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"buses": "11"})], who="a")
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c2", {"buses": "7"})], who="b")
    changes.undo(workspace, "tiny", who="a")
    assert convoy(workspace, "c1").buses == Count(10, 10)  # type: ignore[attr-defined]
    assert convoy(workspace, "c2").buses == Count(7, 7)  # type: ignore[attr-defined]


def test_undo_is_refused_over_a_later_change(workspace: Workspace) -> None:
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"buses": "11"})], who="a")
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"buses": "12"})], who="b")
    with pytest.raises(ValidationError, match=r"undo refused.*\n.*convoys id 'c1'.*'12'"):
        changes.undo(workspace, "tiny", who="a")
    assert convoy(workspace, "c1").buses == Count(12, 12)  # type: ignore[attr-defined]


def test_each_commit_leaves_a_dump_that_reads_back(workspace: Workspace) -> None:
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"buses": "9"})], who="a")
    [folder] = changes.dumps(workspace)
    assert read_scenario(folder) == workspace.load("tiny")


def test_recover_sets_a_broken_file_aside_and_restores_the_dump(workspace: Workspace) -> None:
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"buses": "9"})], who="a")
    expected = workspace.load("tiny")
    workspace.path.write_bytes(b"\x00 not a GeoPackage any more")
    assert changes.recover(workspace) == ["tiny"]
    assert workspace.load("tiny") == expected
    [aside] = workspace.path.parent.glob("workspace.gpkg.broken-*")
    assert aside.read_bytes() == b"\x00 not a GeoPackage any more"


def test_a_held_lock_gives_a_clear_error(workspace: Workspace) -> None:
    impatient = open_workspace(workspace.location, lock_seconds=0.2)
    held = pytest.raises(WorkspaceLockedError, match=r"another session or process.*read-only")
    with workspace.transaction(), held:
        impatient.save(impatient.load("tiny"))


def test_edits_between_two_scenarios(tiny: Scenario) -> None:
    from dataclasses import replace

    edited = replace(
        tiny,
        convoys=(replace(tiny.convoys[0], status=ConvoyStatus.HALTED), *tiny.convoys[1:]),
        zones=tiny.zones[1:],
    )
    found = changes.edits_between(tiny, edited)
    assert [(e.action, e.layer, e.record_id) for e in found] == [
        ("update", "convoys", tiny.convoys[0].id),
        ("delete", "zones", tiny.zones[0].id),
    ]
    assert found[0].cells == {"status": "halted"}


WRITER = textwrap.dedent(
    """
    import sys, time
    from geo import changes
    from geo.changes import Edit
    from geo.store import open_workspace
    path, convoy, field, start = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    while time.time() < start:
        time.sleep(0.01)
    workspace = open_workspace(path, lock_seconds=120)
    for value in range(1, 7):
        edit = Edit("update", "convoys", convoy, {field: str(value)})
        changes.commit(workspace, "tiny", [edit], who=convoy)
    """
)


def test_two_processes_editing_at_once_both_keep_their_edits(workspace: Workspace) -> None:
    import time

    start = str(time.time() + 1.5)
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(workspace.location), convoy_id, field, start],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for convoy_id, field in (("c1", "buses"), ("c2", "ambulances"))
    ]
    for writer in writers:
        _, errors = writer.communicate(timeout=180)
        assert writer.returncode == 0, errors
    final = workspace.load("tiny")
    by_id = {c.id: c for c in final.convoys}
    assert by_id["c1"].buses == Count(6, 6)
    assert by_id["c2"].ambulances == Count(6, 6)
    log = changes.history(workspace, "tiny")
    assert sorted((c.who, c.new) for c in log) == sorted(
        [("c1", str(v)) for v in range(1, 7)] + [("c2", str(v)) for v in range(1, 7)]
    )


def commit_while_others_save(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, ambulances: list[str]
) -> list[bool]:
    """Commit 'c1 buses = 9' while, after each unlocked read of it, another session saves
    'c2 ambulances = <next value>' (until the values run out); whether each read held the lock."""
    real_load = Workspace.load
    loads: list[bool] = []
    pending = list(ambulances)

    def load_while_others_save(self: Workspace, scenario_id: str | None = None) -> Scenario:
        found = real_load(self, scenario_id)
        if self is workspace:
            loads.append(workspace.holds_lock())
            if pending and not workspace.holds_lock():
                edit = changes.Edit("update", "convoys", "c2", {"ambulances": pending.pop(0)})
                changes.commit(open_workspace(workspace.location), "tiny", [edit], who="other")
        return found

    monkeypatch.setattr(Workspace, "load", load_while_others_save)
    edit = changes.Edit("update", "convoys", "c1", {"buses": "9"})
    changes.commit(workspace, "tiny", [edit], who="me")
    monkeypatch.undo()
    return loads


def test_a_commit_checks_without_the_lock_and_keeps_what_another_saved_meanwhile(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The edits are read and checked without the lock; when another session saves before
    they are written, they are applied again to what it saved, and both stay."""
    loads = commit_while_others_save(workspace, monkeypatch, ["7"])
    assert loads[0] is False  # read without the lock
    by_id = {c.id: c for c in workspace.load("tiny").convoys}
    assert (by_id["c1"].buses, by_id["c2"].ambulances) == (Count(9, 9), Count(7, 7))
    assert sorted(c.who for c in changes.history(workspace, "tiny")) == ["me", "other"]


def test_a_commit_that_loses_every_race_finally_writes_under_the_lock(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = commit_while_others_save(workspace, monkeypatch, ["1", "2", "3"])
    others = [n for n, locked in enumerate(loads, start=1) if not locked]
    assert others == [1, 2, 3]  # three optimistic tries lost; the fourth held the lock
    by_id = {c.id: c for c in workspace.load("tiny").convoys}
    assert (by_id["c1"].buses, by_id["c2"].ambulances) == (Count(9, 9), Count(3, 3))


# --- only what an edit changes is written ---------------------------------------------------


def spatial_index(path: Path, layer: str) -> dict[int, tuple[float, float, float, float]]:
    """The GeoPackage's R-tree entries of a layer, by row number."""
    import sqlite3

    with sqlite3.connect(path) as db:
        column = db.execute(
            "SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?", (layer,)
        ).fetchone()[0]
        rows = db.execute(f'SELECT id, minx, maxx, miny, maxy FROM "rtree_{layer}_{column}"')
        return {row[0]: row[1:] for row in rows}


@pytest.mark.geopackage_only
def test_an_update_rewrites_its_records_in_place_with_their_spatial_index(
    workspace: Workspace, tiny: Scenario
) -> None:
    """Only edited rows are written (a copy of the file, rows removed and added): the records
    keep their order and the R-tree follows a moved shape, as QGIS and GDAL's checks see it."""
    from test_validators import validate_gpkg

    moved = Edit("update", "places", "crossing", {"latitude": 36.3, "longitude": 37.2})
    renamed = Edit("update", "convoys", "c1", {"label": "Convoy one"})
    changes.commit(workspace, "tiny", [moved, renamed], who="ana")
    now = workspace.load("tiny")
    assert [p.id for p in now.places] == [p.id for p in tiny.places]
    assert [c.id for c in now.convoys] == [c.id for c in tiny.convoys]
    assert now.convoys[0].label == "Convoy one"
    index = spatial_index(workspace.path, "places")
    assert len(index) == len(tiny.places)
    assert index[2] == pytest.approx((37.2, 37.2, 36.3, 36.3), abs=1e-4)  # crossing, row 2
    assert validate_gpkg(workspace.path) == ""


def test_records_an_import_built_have_their_references_checked_again(
    workspace: Workspace, tiny: Scenario
) -> None:
    """An import's records were checked against the scenario it read; when written, their
    references are checked against what the workspace holds then."""
    from dataclasses import replace

    place = replace(tiny.places[0], id="aleppo-2", source=("gone",))
    cells = {**cells_by_kind(tiny)["places"][0], "id": "aleppo-2", "source": "gone"}
    added = Edit("add", "places", "aleppo-2", cells, record=place)
    with pytest.raises(ValidationError, match=r"(?s)id 'aleppo-2'.*'source'.*unknown: gone"):
        changes.commit(workspace, "tiny", [added], who="ana")
    assert changes.history(workspace, "tiny") == []


def test_deleting_a_place_a_convoy_names_checks_the_whole_scenario(workspace: Workspace) -> None:
    with pytest.raises(ValidationError, match=r"(?s)convoys.*'origin'.*the id of a place"):
        changes.commit(workspace, "tiny", [Edit("delete", "places", "aleppo")], who="ana")


@pytest.mark.geopackage_only
def test_a_workspace_written_by_an_older_corridor_is_saved_whole(workspace: Workspace) -> None:
    """Its change log lacks a column of today's: rows cannot be added to it as they are, so the
    edit rewrites the file (tables made anew) instead of failing."""
    import sqlite3

    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"buses": "9"})], who="a")
    with sqlite3.connect(workspace.path) as db:
        db.execute('ALTER TABLE "changes" DROP COLUMN "undoes"')
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"buses": "8"})], who="a")
    assert [c.new for c in changes.history(workspace, "tiny")] == ["9", "8"]


@pytest.mark.geopackage_only
def test_rows_are_added_in_the_layers_own_column_order(
    workspace: Workspace, tiny: Scenario
) -> None:
    """pyogrio appends by position: an older workspace saved whole keeps other scenarios' rows
    first, so a column it lacked comes last; the next edit must still land in the right one."""
    import sqlite3
    from dataclasses import replace

    workspace.save(replace(tiny, id="tiny2"))
    with sqlite3.connect(workspace.path) as db:
        db.execute('ALTER TABLE "places" DROP COLUMN "aliases"')
    for name in ("First", "Second"):
        changes.commit(workspace, "tiny", [Edit("update", "places", "aleppo", {"name": name})],
                       who="a")  # fmt: skip
    aleppo = workspace._load("tiny").places[0]  # (read from the file, not remembered)
    assert (aleppo.name, aleppo.country_code, aleppo.kind) == ("Second", "SY", "city")


def test_a_dump_is_written_whole_after_a_save_that_wrote_none(
    workspace: Workspace, tiny: Scenario
) -> None:
    """A commit rewrites only the dump files of the layers it changed, but only when the dump
    is of the state it started from: a whole save (`import <folder>`) writes no dump."""
    from dataclasses import replace

    changes.commit(workspace, "tiny", [Edit("update", "places", "aleppo", {"name": "A"})], who="a")
    figure = replace(tiny.figures[0], what="evacuees")
    workspace.save(replace(tiny, figures=(figure, *tiny.figures[1:])))
    changes.commit(workspace, "tiny", [Edit("update", "places", "aleppo", {"name": "B"})], who="a")
    assert read_scenario(changes.dump_folder(workspace, "tiny")) == workspace._load("tiny")


def test_a_record_added_then_edited_in_one_batch(workspace: Workspace, tiny: Scenario) -> None:
    cells = {**cells_by_kind(tiny)["places"][0], "id": "aleppo-2"}
    batch = [Edit("add", "places", "aleppo-2", cells),
             Edit("update", "places", "aleppo-2", {"name": "Aleppo (east)"})]  # fmt: skip
    done = changes.commit(workspace, "tiny", batch, who="a")
    assert [c.action for c in done] == ["add", "update"]
    assert workspace.load("tiny").places[-1].name == "Aleppo (east)"


# --- optimistic concurrency: a record changed since it was read is refused ------------------


def test_a_record_changed_since_it_was_read_is_refused_naming_who_and_when(
    workspace: Workspace,
) -> None:
    from geo.errors import ConflictError

    mark = changes.read_mark(workspace)  # an empty log: nothing was there
    assert mark == changes.ReadMark()
    other = open_workspace(workspace.location)  # another analyst, another machine
    changes.commit(other, "tiny", [Edit("update", "convoys", "c1", {"status": "halted"})],
                   who="desk")  # fmt: skip
    before = workspace.version()
    mine = [Edit("update", "convoys", "c1", {"status": "arrived"})]
    with pytest.raises(ConflictError, match=r"convoys 'c1' was changed by desk at "
                       r"\d{4}-\d\d-\d\d \d\d:\d\d UTC \(status\), since you read it\. "
                       r"Nothing was saved"):  # fmt: skip
        changes.commit(workspace, "tiny", mine, who="ana", read=mark)
    assert workspace.version() == before
    assert convoy(workspace, "c1").status == ConvoyStatus.HALTED  # theirs, not written over
    fresh = changes.read_mark(workspace)  # read again: the edit goes through
    changes.commit(workspace, "tiny", mine, who="ana", read=fresh)
    assert convoy(workspace, "c1").status == ConvoyStatus.ARRIVED


def test_a_change_to_another_record_since_is_no_conflict(workspace: Workspace) -> None:
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c2", {"people": "40"})],
                   who="ana")  # fmt: skip
    mark = changes.read_mark(workspace)
    assert mark.position == len(changes.history(workspace))
    changes.commit(open_workspace(workspace.location), "tiny",
                   [Edit("update", "convoys", "c2", {"people": "50"})], who="desk")  # fmt: skip
    mine = [Edit("update", "convoys", "c1", {"status": "halted"})]
    changes.commit(workspace, "tiny", mine, who="ana", read=mark)
    assert convoy(workspace, "c1").status == ConvoyStatus.HALTED
    assert convoy(workspace, "c2").people == Count(50, 50)  # type: ignore[attr-defined]


def test_a_change_since_is_found_whatever_the_writer_s_clock(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from geo.errors import ConflictError

    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c2", {"people": "40"})],
                   who="ana")  # fmt: skip
    mark = changes.read_mark(workspace)  # (a log that is not empty: its last row is now)

    class Behind(datetime):  # the other analyst's machine is a day slow
        @classmethod
        def now(cls, tz: Any = None) -> Behind:
            return cast(Behind, datetime.now(tz) - timedelta(days=1))

    with monkeypatch.context() as slow:
        slow.setattr(change_log, "datetime", Behind)
        halted = [Edit("update", "convoys", "c1", {"status": "halted"})]
        changes.commit(open_workspace(workspace.location), "tiny", halted, who="desk")
    assert changes.history(workspace)[-1].at < datetime.now(UTC) - timedelta(hours=23)
    mine = [Edit("update", "convoys", "c1", {"status": "arrived"})]
    with pytest.raises(ConflictError, match="convoys 'c1' was changed by desk"):
        changes.commit(workspace, "tiny", mine, who="ana", read=mark)
    assert convoy(workspace, "c1").status == ConvoyStatus.HALTED


def test_columns_another_program_added_keep_their_values_through_edits_and_saves(
    workspace: Workspace, tiny: Scenario
) -> None:
    """A team member adds columns in QGIS (a number, a short text, and in PostGIS JSON and a
    uuid) and fills them in: Corridor does not read them, and no edit or save loses them."""
    postgres = not isinstance(workspace.location, Path)
    kinds = ["numeric(6,1)", "varchar(40)", "jsonb", "uuid"] if postgres else ["REAL", "TEXT"]
    names = ["fuel", "checked_by", "extra", "ref"][: len(kinds)]
    cells = ["12.5", "'Maya'", "'{\"a\": 1}'", "'5b1e4c1e-9a4b-4c1e-8a1e-1e4c1e9a4b4c'"]
    statements = [
        f"ALTER TABLE convoys ADD COLUMN {n} {k}" for n, k in zip(names, kinds, strict=True)
    ]
    filled = ", ".join(f"{n} = {c}" for n, c in zip(names, cells[: len(kinds)], strict=True))
    statements.append(f"UPDATE convoys SET {filled} WHERE id = 'c1'")
    if postgres:  # what the database fills itself, and a default a row was emptied of
        statements += [
            "ALTER TABLE convoys ADD COLUMN fuel_twice numeric GENERATED ALWAYS AS (fuel * 2) "
            "STORED",
            "ALTER TABLE convoys ADD COLUMN serial integer GENERATED ALWAYS AS IDENTITY",
            "ALTER TABLE convoys ADD COLUMN seats integer DEFAULT 7",
            "UPDATE convoys SET seats = NULL",
        ]
        names += ["fuel_twice", "seats"]
    if postgres:
        import psycopg

        with psycopg.connect(str(workspace.location)) as db:
            for statement in statements:
                db.execute(statement)
    else:
        import sqlite3

        with sqlite3.connect(workspace.path) as db:
            for statement in statements:
                db.execute(statement)

    def extras() -> dict[str, list[str]]:
        table = open_workspace(workspace.location).table("convoys").set_index("id")
        return {name: [str(table.loc[i, name]) for i in ("c1", "c2")] for name in names}

    expected = extras()
    assert expected["fuel"][0] == "12.5"
    if postgres:
        assert expected["fuel_twice"][0] == "25.0"
        assert expected["seats"] == ["nan", "nan"]  # (emptied: not the default)
    assert expected["checked_by"][0] == "Maya"
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"status": "halted"})],
                   who="a")  # fmt: skip
    assert convoy(workspace, "c1").status == ConvoyStatus.HALTED
    assert extras() == expected
    workspace.save(workspace.load("tiny"))  # a whole save
    assert extras() == expected


@pytest.mark.geopackage_only
def test_columns_added_in_qgis_keep_their_types_through_edits_and_saves(
    workspace: Workspace,
) -> None:
    """QGIS adds fields of its own types to a layer and fills one row: a GeoPackage written
    anew (each edit of a layer with added columns, a whole save) declares them as QGIS did and
    reads back the same values, the empty ones empty (a whole number and a yes/no came back
    REAL). Not yet a DATE: pyogrio writes it as a DATETIME at midnight (docs/team.md)."""
    import sqlite3

    added = {"seats": "INTEGER", "crew": "MEDIUMINT", "small": "SMALLINT", "checked": "BOOLEAN",
             "seen": "DATETIME", "fuel": "REAL", "note": "TEXT"}  # fmt: skip
    cells = ["12", "3", "-2", "1", "'2016-12-15T10:30:00Z'", "12.5", "'Maya'"]
    with sqlite3.connect(workspace.path) as db:
        for name, kind in added.items():
            db.execute(f"ALTER TABLE convoys ADD COLUMN {name} {kind}")
        filled = ", ".join(f"{n} = {c}" for n, c in zip(added, cells, strict=True))
        db.execute(f"UPDATE convoys SET {filled} WHERE id = 'c1'")
        db.execute("ALTER TABLE scenarios ADD COLUMN priority INTEGER")  # (a whole save failed)

    def declared() -> dict[str, tuple[str, list[Any]]]:
        with sqlite3.connect(workspace.path) as db:
            types = {row[1]: row[2] for row in db.execute("PRAGMA table_info(convoys)")}
            rows = db.execute(f"SELECT {', '.join(added)} FROM convoys ORDER BY id").fetchall()
        return {name: (types[name], [row[i] for row in rows]) for i, name in enumerate(added)}

    before = declared()
    assert before["seats"] == ("INTEGER", [12, None])
    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c1", {"status": "halted"})],
                   who="a")  # fmt: skip
    assert declared() == before
    workspace.save(workspace.load("tiny"))  # a whole save
    assert declared() == before


@pytest.mark.geopackage_only
def test_a_whole_save_keeps_the_change_log_s_positions(workspace: Workspace) -> None:
    """A change log with gaps in its feature ids (as a copy from PostGIS brings them): a save
    that rewrites the file keeps them, so a reader's mark still finds what came after it."""
    import sqlite3

    from geo.errors import ConflictError

    changes.commit(workspace, "tiny", [Edit("update", "convoys", "c2", {"people": "40"})],
                   who="ana")  # fmt: skip
    with sqlite3.connect(workspace.path) as db:
        db.execute("UPDATE changes SET fid = fid + 100")
    mark = changes.read_mark(workspace)
    assert mark.position == 101
    workspace.save(workspace.load("tiny"))  # (an import: the file written whole)
    halted = [Edit("update", "convoys", "c1", {"status": "halted"})]
    changes.commit(open_workspace(workspace.location), "tiny", halted, who="desk")
    mine = [Edit("update", "convoys", "c1", {"status": "arrived"})]
    with pytest.raises(ConflictError, match="convoys 'c1' was changed by desk"):
        changes.commit(workspace, "tiny", mine, who="ana", read=mark)
    assert convoy(workspace, "c1").status == ConvoyStatus.HALTED
