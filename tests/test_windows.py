"""Events and positions read by time window and map extent: the same rows a scan would pick."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from geo import changes, synthetic
from geo import store as w
from geo.errors import WorkspaceError
from geo.records import Position, Scenario
from geo.store import Workspace, open_workspace, windows

ALEPPO = (36.9, 36.0, 37.4, 36.4)


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return synthetic.generate(events=400, convoys=3, zones=2, seed=7)


@pytest.fixture
def workspace(new_workspace: Workspace, scenario: Scenario) -> Workspace:
    new_workspace.save(scenario)
    return new_workspace


def _scanned(scenario: Scenario, first: date, last: date, extent: tuple[float, ...]) -> set[str]:
    west, south, east, north = extent
    return {
        e.id
        for e in scenario.events
        if first <= e.date <= last and west <= e.longitude <= east and south <= e.latitude <= north
    }


@pytest.mark.parametrize(
    ("first", "last", "extent"),
    [
        (date(2016, 12, 8), date(2016, 12, 15), (35.0, 32.0, 43.0, 38.0)),
        (date(2016, 12, 14), date(2016, 12, 16), ALEPPO),
        (date(2016, 11, 1), date(2017, 1, 31), ALEPPO),
    ],
)
def test_events_in_a_window_and_extent_are_those_a_scan_finds(
    workspace: Workspace, scenario: Scenario, first: date, last: date, extent: tuple[float, ...]
) -> None:
    found = windows.rows_in(workspace, "events", scenario.id, start=first, end=last,
                            extent=extent, columns=["id", "fatalities"])  # fmt: skip
    expected = _scanned(scenario, first, last, extent)
    assert expected  # (the window holds events: a test that cannot fail otherwise)
    assert set(found["id"]) == expected
    assert list(found.columns) == ["id", "fatalities", "geometry"]


def test_an_event_date_comes_as_its_day(workspace: Workspace, scenario: Scenario) -> None:
    day = scenario.events[0].date
    found = windows.rows_in(workspace, "events", scenario.id, start=day, end=day)
    assert set(found["date"].dt.date) == {day}
    assert scenario.events[0].id in set(found["id"])


def test_a_moment_as_the_end_keeps_its_whole_day_of_events(
    workspace: Workspace, scenario: Scenario
) -> None:
    day = scenario.events[0].date
    late = datetime(day.year, day.month, day.day, 23, 0, tzinfo=timezone(timedelta(hours=2)))
    found = windows.rows_in(workspace, "events", scenario.id, start=day, end=late)
    assert set(found["id"]) == _scanned(scenario, day, day, (-180, -90, 180, 90))


def test_positions_in_a_window_to_the_millisecond(workspace: Workspace, scenario: Scenario) -> None:
    start = datetime(2016, 12, 15, 14, 0, tzinfo=UTC)
    times = [start + timedelta(milliseconds=ms) for ms in (-1, 0, 500, 1000, 1001, 60_000)]
    reports = [Position("c1", t, 36.2, 37.1 + i / 100) for i, t in enumerate(times)]
    w.add_positions(workspace, scenario.id, reports)
    end = start + timedelta(seconds=1)
    found = windows.rows_in(workspace, "positions", scenario.id, start=start, end=end)
    assert list(found["time"]) == times[1:4]
    beirut = timezone(timedelta(hours=2))  # the same window given in another zone
    found = windows.rows_in(workspace, "positions", scenario.id, start=start.astimezone(beirut),
                            end=end.astimezone(beirut),
                            extent=(37.105, 36.0, 37.2, 36.4))  # fmt: skip
    assert list(found["time"]) == times[1:2] + times[2:4]
    assert list(found["longitude"]) == pytest.approx([37.11, 37.12, 37.13])


def test_positions_of_a_whole_day(workspace: Workspace, scenario: Scenario) -> None:
    reports = [Position("c1", datetime(2016, 12, d, 23, 59, 59, 999000, tzinfo=UTC), 36.2, 37.1)
               for d in (14, 15, 16)]  # fmt: skip
    w.add_positions(workspace, scenario.id, reports)
    day = date(2016, 12, 15)
    found = windows.rows_in(workspace, "positions", scenario.id, start=day, end=day)
    assert list(found["time"]) == [reports[1].time]


def test_kept_positions_come_back_equal_oldest_first_and_by_window(
    workspace: Workspace, scenario: Scenario
) -> None:
    start = datetime(2016, 12, 15, 14, 0, tzinfo=UTC)
    reports = [
        Position("c2", start + timedelta(minutes=5), 36.25, 37.15, 42.5, "checkpoint"),
        Position("c1", start, 36.2, 37.1),
        Position("c1", start + timedelta(minutes=10, milliseconds=250), 36.3, 37.2, None, ""),
    ]
    w.add_positions(workspace, scenario.id, reports)
    w.add_positions(workspace, "another-scenario", [Position("c9", start, 35.0, 36.0)])
    kept = w.positions(workspace, scenario.id)
    assert kept == sorted(reports, key=lambda report: report.time)
    assert all(report.time.utcoffset() == timedelta(0) for report in kept)
    assert kept[1].speed_kmh == 42.5
    assert kept[0].speed_kmh is None
    assert kept[0].note == ""
    window = w.positions(workspace, scenario.id, start=start + timedelta(minutes=1),
                         end=start + timedelta(minutes=10))  # fmt: skip
    assert window == [reports[0]]
    assert w.positions(workspace, "nobody") == []


def test_a_layer_not_written_yet_gives_no_rows(workspace: Workspace, scenario: Scenario) -> None:
    found = windows.rows_in(workspace, "positions", scenario.id, columns=["convoy"])
    assert found.empty
    assert list(found.columns) == ["convoy", "geometry"]


def test_only_large_layers_are_read_by_window(workspace: Workspace, scenario: Scenario) -> None:
    with pytest.raises(WorkspaceError, match=re.escape(workspace.label) + r": expected one of "
                       r"the layers events, positions, got 'convoys'"):  # fmt: skip
        windows.rows_in(workspace, "convoys", scenario.id)


def test_a_scenario_id_with_a_quote_is_read_as_text(tmp_path: Path, scenario: Scenario) -> None:
    workspace = open_workspace(tmp_path / "w.gpkg")
    workspace.save(scenario)
    found = windows.rows_in(workspace, "events", "x' OR '1'='1")
    assert found.empty


def _indexes(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    return {name for (name,) in rows}


@pytest.mark.geopackage_only
def test_the_time_indexes_are_made_by_a_save_an_edit_and_live_positions(
    workspace: Workspace, scenario: Scenario
) -> None:
    assert "events_scenario_id_date" in _indexes(workspace.path)
    with sqlite3.connect(workspace.path) as db:  # a workspace saved before there were indexes
        db.execute('DROP INDEX "events_scenario_id_date"')
    event = scenario.events[0]
    edit = changes.Edit("update", "events", event.id, {"fatalities": event.fatalities + 1})
    changes.commit(workspace, scenario.id, [edit], who="test")
    assert "events_scenario_id_date" in _indexes(workspace.path)
    w.add_positions(workspace, scenario.id, [Position("c1", synthetic.START, 36.2, 37.1)])
    assert "positions_scenario_id_time" in _indexes(workspace.path)


def test_a_window_without_positions_is_empty_not_an_error(
    workspace: Workspace, scenario: Scenario
) -> None:
    w.add_positions(workspace, scenario.id, [Position("c1", synthetic.START, 36.2, 37.1)])
    later = datetime(2017, 1, 1, tzinfo=UTC)
    found = windows.rows_in(workspace, "positions", scenario.id, start=later, end=later)
    assert found.empty
    assert str(found["time"].dtype) == "datetime64[ms, UTC]"


def test_results_have_one_shape_with_or_without_rows(
    workspace: Workspace, scenario: Scenario
) -> None:
    some = windows.rows_in(workspace, "events", scenario.id)
    none = windows.rows_in(workspace, "events", "no such scenario")
    missing = windows.rows_in(workspace, "positions", scenario.id)
    assert list(none.columns) == list(some.columns)
    assert none["date"].dtype == some["date"].dtype == "datetime64[ms]"
    assert list(missing.columns) == windows.FIELDS["positions"] + ["geometry"]
    assert str(missing["time"].dtype) == "datetime64[ms, UTC]"


def test_an_events_window_given_as_moments_keeps_their_local_days(
    workspace: Workspace, scenario: Scenario
) -> None:
    damascus = timezone(timedelta(hours=2))
    start = datetime(2016, 12, 15, 0, 0, tzinfo=damascus)  # (14 December 22:00 in UTC)
    found = windows.rows_in(workspace, "events", scenario.id, start=start, end=start)
    everywhere = (-180.0, -90.0, 180.0, 90.0)
    assert set(found["id"]) == _scanned(
        scenario, date(2016, 12, 15), date(2016, 12, 15), everywhere
    )
