"""Events kept as columns: the same events as records, loaded and checked a column at a time."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st

from geo import _fields as f
from geo import _schema as s
from geo import changes, event_columns, event_table, synthetic
from geo import scenario as scenario_files
from geo.errors import ValidationError
from geo.event_table import EventTable, _coordinates, picked
from geo.mapview import event_points
from geo.records import Scenario
from geo.scenario import read_scenario
from geo.store import Workspace, open_workspace
from geo.store.gpkg_file import opened


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return synthetic.generate(events=300, convoys=3, zones=2, seed=11)


@pytest.fixture
def workspace(new_workspace: Workspace, scenario: Scenario) -> Workspace:
    new_workspace.save(scenario)
    return new_workspace


def test_a_table_is_the_same_sequence_as_its_records(scenario: Scenario) -> None:
    records = tuple(scenario.events)
    table = EventTable.from_records(records)
    assert table == records
    assert records == tuple(table)
    assert (table[0], table[-1], table[17]) == (records[0], records[-1], records[17])
    assert table[10:20:3] == records[10:20:3]
    assert isinstance(table[10:20], EventTable)
    assert table != records[:-1]
    assert table != (*records[:-1], replace(records[-1], fatalities=records[-1].fatalities + 1))
    with pytest.raises(IndexError, match="event 300 of 300"):
        table[300]


def test_an_empty_table() -> None:
    table = EventTable.from_records([])
    assert len(table) == 0
    assert table == ()
    assert list(table) == []


def test_a_workspace_loads_events_as_columns_in_the_order_written(
    workspace: Workspace, scenario: Scenario
) -> None:
    loaded = open_workspace(workspace.location).load()  # (the file read again, not the one saved)
    assert isinstance(loaded.events, EventTable)
    assert [event.id for event in loaded.events] == [event.id for event in scenario.events]
    assert loaded.events == scenario.events


def test_a_scenario_saved_from_records_is_stored_as_from_columns(
    tmp_path: Path, scenario: Scenario
) -> None:
    columns, records = open_workspace(tmp_path / "a.gpkg"), open_workspace(tmp_path / "b.gpkg")
    columns.save(scenario)
    records.save(replace(scenario, events=tuple(scenario.events)))
    query = "SELECT * FROM events ORDER BY fid"
    with sqlite3.connect(columns.path) as a, sqlite3.connect(records.path) as b:
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
        schema = "SELECT sql FROM sqlite_master WHERE name = 'events'"
        assert a.execute(schema).fetchall() == b.execute(schema).fetchall()


def _edit_cell(workspace: Workspace, sql: str) -> None:
    """Another program (QGIS, say) editing the workspace in place: the file, or the tables."""
    if isinstance(workspace.location, Path):
        with opened(workspace.path) as db:
            db.execute(sql)
        return
    import psycopg

    with psycopg.connect(workspace.location) as db:
        db.execute(sql)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("UPDATE events SET date = '15/12/2016' WHERE id = 'E7'",
         r", id 'E7', field 'date': expected a date as YYYY-MM-DD, got '15/12/2016'"),
        ("UPDATE events SET fatalities = -2 WHERE id = 'E8'",
         r", id 'E8', field 'fatalities': expected a whole number from 0 up, got -2"),
        ("UPDATE events SET source = 'gone' WHERE id = 'E9'",
         r", id 'E9', field 'source': expected ids separated by ';', each the "
         r"id of a source \(unknown: gone\), got 'gone'"),
        ("UPDATE events SET id = 'E1' WHERE id = 'E2'",
         r", id 'E1', field 'id': expected a unique id \(also used at id 'E1'\), got 'E1'"),
    ],
)  # fmt: skip
def test_a_refused_cell_is_told_by_row_as_before(
    workspace: Workspace, scenario: Scenario, sql: str, message: str
) -> None:
    _edit_cell(workspace, sql)
    with pytest.raises(ValidationError, match=re.escape(workspace._spot_file("events")) + message):
        open_workspace(workspace.location).load()


def test_an_event_without_its_point_keeps_its_coordinates_columns(
    workspace: Workspace, scenario: Scenario
) -> None:
    _edit_cell(workspace, "UPDATE events SET geom = NULL WHERE id = 'E4'")
    loaded = open_workspace(workspace.location).load()  # (read row by row, as before columns)
    assert loaded.events == scenario.events
    assert isinstance(loaded.events, EventTable)


def test_a_scenario_without_events_loads_an_empty_table(tmp_path: Path, tiny_dir: Path) -> None:
    workspace = open_workspace(tmp_path / "w.gpkg")
    workspace.save(replace(read_scenario(tiny_dir), events=()))
    loaded = open_workspace(workspace.location).load()
    assert isinstance(loaded.events, EventTable)
    assert len(loaded.events) == 0


def test_an_event_off_the_earth_is_refused(workspace: Workspace) -> None:
    _edit_cell(workspace, "UPDATE events SET geom = NULL, latitude = 91 WHERE id = 'E4'")
    with pytest.raises(ValidationError, match=r"id 'E4', field 'latitude': expected a number "
                       r"from -90 to 90, got 91"):  # fmt: skip
        open_workspace(workspace.location).load()


def test_map_columns_from_a_table_equal_those_from_records(scenario: Scenario) -> None:
    from_table = event_columns.columns(scenario)
    from_records = event_columns.columns(replace(scenario, events=tuple(scenario.events)))
    for name in ("latitude", "longitude", "day", "kind", "fatalities", "place"):
        assert np.array_equal(getattr(from_table, name), getattr(from_records, name)), name
        assert getattr(from_table, name).dtype == getattr(from_records, name).dtype, name
    assert (from_table.kinds, from_table.places) == (from_records.kinds, from_records.places)


def test_an_edit_elsewhere_keeps_the_events_as_they_are(workspace: Workspace) -> None:
    before = workspace.load()
    convoy = before.convoys[0]
    edit = changes.Edit("update", "convoys", convoy.id, {"label": "Renamed"})
    changes.commit(workspace, before.id, [edit], who="test")
    after = workspace.load(before.id)  # (what the commit wrote, as it left it)
    assert after.events is before.events  # (no Event made for a convoy's edit)
    assert after.convoys[0].label == "Renamed"


def test_an_edit_of_an_event_is_kept(workspace: Workspace, scenario: Scenario) -> None:
    event = scenario.events[5]
    edit = changes.Edit("update", "events", event.id, {"fatalities": event.fatalities + 3})
    changes.commit(workspace, scenario.id, [edit], who="test")
    loaded = open_workspace(workspace.location).load()
    assert loaded.events[5] == replace(event, fatalities=event.fatalities + 3)
    assert len(loaded.events) == len(scenario.events)


@pytest.mark.parametrize("byte_order", [0, 1])
def test_coordinates_read_from_the_bytes_equal_shapely_s(byte_order: int) -> None:
    points = shapely.points([36.20124, -0.5, 179.99999], [37.16117, 89.9, -12.25])
    wkb = pa.array(shapely.to_wkb(points, byte_order=byte_order).tolist(), pa.binary())
    for array in (wkb, wkb.slice(1)):  # (a slice starts inside the buffers)
        longitude, latitude = _coordinates(array)
        expected = shapely.from_wkb(array.to_numpy(zero_copy_only=False))
        assert longitude.tolist() == shapely.get_x(expected).tolist()
        assert latitude.tolist() == shapely.get_y(expected).tolist()


def test_coordinates_of_points_with_heights() -> None:
    wkb = pa.array([shapely.to_wkb(shapely.Point(36.2, 37.1, 400.0))], pa.binary())
    assert [a.tolist() for a in _coordinates(wkb)] == [[36.2], [37.1]]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=12))
@example(" Aleppo")
@example("Aleppo\n")
@example("\u200bAleppo")
@example("\u202egnp.exe")
@example("\u0627\u0644\u0628\u0627\u0628\u200f")
@example("a\u00a0")
@example("x\u2029")
def test_a_cell_the_column_check_passes_is_one_its_parser_keeps(cell: str) -> None:
    for parse, pattern in event_table._AS_THEY_ARE.items():
        if pc.match_substring_regex(pa.array([cell]), pattern)[0].as_py():
            assert parse(cell) == cell  # (raises if the parser refuses it)


def test_the_column_check_lets_everyday_text_through() -> None:
    for parse, cells in ((f.text, ["Aleppo", "حلب", "Al-Ra\u0161idin 4", "a\nb", "x"]),
                         (f.identifier, ["E1", "SYR12345", "a.b_c-d"])):  # fmt: skip
        pattern = event_table._AS_THEY_ARE[parse]
        assert pc.all(pc.match_substring_regex(pa.array(cells), pattern)).as_py(), cells


def test_edits_of_events_keep_them_as_columns_in_the_commit_s_order(
    workspace: Workspace, scenario: Scenario
) -> None:
    first, second, third = scenario.events[3], scenario.events[40], scenario.events[299]
    new = replace(first, id="NEW1", notes="Added after the others.")
    edits = [
        changes.Edit("update", "events", second.id, {"fatalities": second.fatalities + 1}),
        changes.Edit("delete", "events", first.id, {}),
        changes.Edit("add", "events", new.id, {**_cells(new), "id": new.id}),
        changes.Edit("update", "events", third.id, {"notes": "Revised."}),
    ]
    changes.commit(workspace, scenario.id, edits, who="test")
    remembered = workspace.load(scenario.id)  # (what the commit left for the next load)
    assert isinstance(remembered.events, EventTable)
    expected = [e for e in scenario.events if e.id != first.id]
    expected[39] = replace(second, fatalities=second.fatalities + 1)
    expected[-1] = replace(third, notes="Revised.")
    assert remembered.events == (*expected, new)
    assert open_workspace(workspace.location).load(scenario.id).events == remembered.events


def test_by_id_gives_only_the_events_asked_for(scenario: Scenario) -> None:
    table = EventTable.from_records(scenario.events)
    found = table.by_id(["E5", "E17", "nope"])
    assert found == {"E5": scenario.events[5], "E17": scenario.events[17]}
    assert table.by_id([]) == {}


def _cells(event: Any) -> dict[str, Any]:
    return s.to_cells(event, s.EVENTS)


def test_a_dump_of_a_table_is_the_dump_of_its_records(tmp_path: Path, scenario: Scenario) -> None:
    risky = replace(scenario.events[2], notes="=HYPERLINK(1)", actor2="", source=("s1", "s2"))
    events = EventTable.from_records([*scenario.events[:2], risky])
    from_table = scenario_files._csv_text(events, s.EVENTS, "Asia/Damascus")
    from_records = scenario_files._csv_text(tuple(events), s.EVENTS, "Asia/Damascus")
    assert from_table == from_records
    assert "'=HYPERLINK(1)" in from_table  # (made inert as every CSV cell)
    assert ",s1;s2" in from_table


def test_a_row_without_a_scenario_id_belongs_to_no_scenario(
    workspace: Workspace, scenario: Scenario
) -> None:
    _edit_cell(workspace, "UPDATE events SET scenario_id = NULL WHERE id = 'E1'")
    loaded = open_workspace(workspace.location).load()
    assert [e.id for e in loaded.events] == [e.id for e in scenario.events if e.id != "E1"]


def test_only_whole_numbers_index_a_table(scenario: Scenario) -> None:
    table = EventTable.from_records(scenario.events[:3])
    assert table[np.int64(1)] == scenario.events[1]
    with pytest.raises(TypeError):
        table[1.0]  # type: ignore[call-overload]


def test_the_map_s_event_details_from_a_table_equal_those_from_records(
    scenario: Scenario,
) -> None:
    chosen = np.array([0, 7, 3, 299])
    from_table = event_points.payload(scenario, chosen, still=False)
    from_records = event_points.payload(replace(scenario, events=tuple(scenario.events)),
                                        chosen, still=False)  # fmt: skip
    assert from_table == from_records
    assert sorted(from_table["notes"]) == sorted(scenario.events[i].notes for i in chosen)
    assert picked(scenario.events, [5, 2]) == [scenario.events[5], scenario.events[2]]


@pytest.mark.parametrize(
    ("wkt", "shape"),
    [("LINESTRING (36 37, 36.1 37.1)", "a LineString"), ("POINT EMPTY", "an empty Point"),
     ("MULTIPOINT ((36 37), (36.1 37.1))", "a MultiPoint")],
)  # fmt: skip
def test_an_event_drawn_as_another_shape_is_refused_by_id(
    workspace: Workspace, wkt: str, shape: str
) -> None:
    if isinstance(workspace.location, Path):
        blob = _geopackage_blob(shapely.from_wkt(wkt))
        with opened(workspace.path) as db:
            db.execute("UPDATE events SET geom = ? WHERE id = 'E6'", (blob,))
    else:  # a typed column: PostGIS itself refuses any shape but a point
        import psycopg

        with psycopg.connect(workspace.location) as db:
            update = "UPDATE events SET geom = ST_GeomFromText(%s, 4326) WHERE id = 'E6'"
            if shape != "an empty Point":
                with pytest.raises(psycopg.errors.InvalidParameterValue, match="does not match"):
                    db.execute(update, [wkt])
                return
            db.execute(update, [wkt])
    said = rf"got \"the feature's shape: {shape}, not a point\""
    with pytest.raises(ValidationError, match=rf"id 'E6', field 'latitude': expected a number "
                       rf"from -90 to 90, {said}"):  # fmt: skip
        open_workspace(workspace.location).load()


def _geopackage_blob(geometry: Any) -> bytes:
    """A GeoPackage geometry blob: 'GP', version 0, flags (little-endian, no envelope; empty
    flagged), SRS 4326, then well-known binary."""
    flags = 0b1 | (0b10000 if geometry.is_empty else 0)
    return b"GP\x00" + bytes([flags]) + (4326).to_bytes(4, "little") + shapely.to_wkb(geometry)


def test_a_table_s_cells_are_those_its_events_give(scenario: Scenario) -> None:
    events = list(scenario.events)
    events[1] = replace(events[1], source=("first", "second"), notes="", actor2="")
    table = EventTable.from_records(events)
    made = table.cells()
    expected = [s.to_cells(event, s.EVENTS) for event in events]
    assert [list(cells.items()) for cells in made] == [list(c.items()) for c in expected]
    assert made[1]["source"] == "first;second"


def test_same_facts_compares_every_field_but_the_sources_as_records_do(
    scenario: Scenario,
) -> None:
    earlier = list(scenario.events[:12])
    changed = {
        1: {"fatalities": earlier[1].fatalities + 1}, 2: {"notes": "revised"},
        3: {"latitude": earlier[3].latitude + 1e-9}, 4: {"geo_precision": 2},
        5: {"source": ("someone else",)}, 6: {"date": earlier[6].date.replace(year=2001)},
        7: {"actor2": "x" + earlier[7].actor2}, 8: {"time_precision": 3},
    }  # fmt: skip
    now = [replace(event, **changed.get(i, {})) for i, event in enumerate(earlier)]
    now.append(replace(earlier[0], id="not there before"))
    same = event_table.same_facts(EventTable.from_records(now), EventTable.from_records(earlier))
    by_records = {e.id: e for e in earlier}
    expected = [
        e.id in by_records and replace(e, source=by_records[e.id].source) == by_records[e.id]
        for e in now
    ]
    assert same.to_pylist() == expected
    assert expected.count(False) == len(changed)  # new sources alone: no revision; one new id
