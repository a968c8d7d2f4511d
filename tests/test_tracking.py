"""Live tracking: reading position reports, following a growing file, states along a route.

Fixtures are in tests/data/tracking (see its README). convoy-1.csv is an invented track along
the shipped scenario's convoy-1 route (12.18 km; departure 12:30 UTC): at the start from 12:25,
moving from 12:30, stopped 12:46-13:10, off the route 13:18-13:22, at the end from 13:34.
"""

from __future__ import annotations

import dataclasses
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from geo import timeline, tracking
from geo.errors import ProblemLog
from geo.positions import Feed, Follower, read_positions
from geo.records import Scenario
from geo.scenario import read_scenario
from geo.tracking import Position, Rules, TrackState, track_states

DATA = Path(__file__).parent / "data" / "tracking"
SHIPPED = Path(__file__).parent.parent / "data" / "scenarios" / "aleppo-2016-12"
HEADER = "convoy,time,latitude,longitude,speed_kmh,note\n"


def utc(hour: int, minute: int) -> datetime:
    return datetime(2016, 12, 15, hour, minute, tzinfo=UTC)


@pytest.fixture(scope="module")
def shipped() -> Scenario:
    return read_scenario(SHIPPED)


@pytest.fixture(scope="module")
def track() -> list[Position]:
    log = ProblemLog()
    found = read_positions(DATA / "convoy-1.csv", log=log)
    assert list(log) == []
    return found


def state(scenario: Scenario, positions: list[Position], at: datetime) -> TrackState:
    return track_states(scenario, positions, at)["convoy-1"]


def problems(log: ProblemLog) -> list[str]:
    return [str(problem) for problem in log]


# --- states along the fixture track ------------------------------------------------------


@pytest.mark.parametrize(
    ("at", "expected", "flags"),
    [
        (utc(12, 20), "no reports", ()),
        (utc(12, 27), "before departure", ()),  # the 12:25 report, before the 12:30 departure
        (utc(12, 40), "moving", ()),
        (utc(13, 5), "moving", ()),  # at the checkpoint since 12:46: 19 minutes, not yet 20
        (utc(13, 6), "stopped", ("stopped",)),  # 20 minutes with no progress
        (utc(13, 12), "stopped", ("stopped",)),
        (utc(13, 15), "moving", ()),
        (utc(13, 19), "off route", ("off route",)),
        (utc(13, 23), "off route", ("off route",)),
        (utc(13, 27), "moving", ()),
        (utc(13, 35), "arrived", ()),
        (utc(14, 10), "arrived", ()),  # standing at the end is not a stop
    ],
)
def test_states_along_the_track(
    shipped: Scenario, track: list[Position], at: datetime, expected: str, flags: tuple[str, ...]
) -> None:
    found = state(shipped, track, at)
    assert (found.state, found.flags) == (expected, flags)


def test_before_departure_gives_no_progress(shipped: Scenario, track: list[Position]) -> None:
    found = state(shipped, track, utc(12, 27))
    assert found.latest is not None
    assert found.latest.time == utc(12, 25)
    assert found.age_minutes == pytest.approx(2)
    assert (found.done_m, found.progress, found.speed_kmh, found.eta) == (None,) * 4


def test_moving_progress_grows_and_eta_is_sensible(
    shipped: Scenario, track: list[Position]
) -> None:
    moments = [utc(12, 35), utc(12, 40), utc(12, 44)]
    states = [state(shipped, track, at) for at in moments]
    progress = [found.progress or 0.0 for found in states]
    assert progress == sorted(progress)
    assert progress[0] > 0
    found = states[1]  # 12:38 report: 2.6 km done at 19.5 km/h, 9.6 km left
    assert found.done_m == pytest.approx(2_600, abs=5)
    assert found.left_m == pytest.approx(12_181 - 2_600, abs=5)
    assert found.speed_kmh == pytest.approx(19.5, abs=0.1)
    assert found.eta is not None
    assert utc(13, 5) < found.eta < utc(13, 10)
    assert found.off_route_m is not None
    assert found.off_route_m < 1


def test_stop_is_seen_once_stopped_minutes_have_passed(
    shipped: Scenario, track: list[Position]
) -> None:
    assert state(shipped, track, utc(13, 5)).flags == ()
    assert state(shipped, track, utc(13, 6)).state == "stopped"
    patient = Rules(stopped_minutes=30)
    assert track_states(shipped, track, utc(13, 12), rules=patient)["convoy-1"].state == "moving"


def test_off_route_names_the_distance(shipped: Scenario, track: list[Position]) -> None:
    found = state(shipped, track, utc(13, 19))
    assert found.off_route_m == pytest.approx(1_700, abs=5)
    lenient = Rules(off_route_m=2_000)
    assert track_states(shipped, track, utc(13, 19), rules=lenient)["convoy-1"].state == "moving"


def test_arrived(shipped: Scenario, track: list[Position]) -> None:
    found = state(shipped, track, utc(13, 35))
    assert found.progress == pytest.approx(1)
    assert found.left_m is not None
    assert found.left_m < 1
    assert found.eta is None


def test_reports_after_the_moment_are_ignored(shipped: Scenario, track: list[Position]) -> None:
    at = utc(12, 40)
    later = [p for p in track if p.time > at]
    assert later, "the fixture goes on after 12:40"
    assert state(shipped, track, at) == state(shipped, [p for p in track if p.time <= at], at)


@pytest.mark.parametrize("at", [utc(12, 27), utc(12, 40), utc(13, 6), utc(13, 19), utc(14, 10)])
def test_reports_in_any_order_give_the_same_state(
    shipped: Scenario, track: list[Position], at: datetime
) -> None:
    shuffled = track[1::2] + track[::-2]  # every report, out of order
    assert sorted(shuffled, key=lambda p: p.time) == sorted(track, key=lambda p: p.time)
    assert state(shipped, shuffled, at) == state(shipped, track, at)


def test_every_convoy_has_a_state(shipped: Scenario, track: list[Position]) -> None:
    states = track_states(shipped, track, utc(12, 40))
    assert list(states) == [convoy.id for convoy in shipped.convoys]
    assert states["convoy-2"].state == "no reports"
    assert states["convoy-2"].latest is None


# --- geometry edge cases -----------------------------------------------------------------


def report(convoy: str, at: datetime, lon_lat: tuple[float, ...], **extra: object) -> Position:
    return Position(convoy, at, lon_lat[1], lon_lat[0], **extra)  # type: ignore[arg-type]


def test_a_position_exactly_on_the_start_and_on_the_end(shipped: Scenario) -> None:
    line = timeline.route_of(shipped, "convoy-1")
    assert line is not None
    start, end = line.coords[0], line.coords[-1]
    found = state(shipped, [report("convoy-1", utc(12, 31), start)], utc(12, 31))
    assert (found.state, found.done_m, found.progress) == ("moving", 0.0, 0.0)
    assert found.left_m == pytest.approx(12_181, abs=1)
    assert found.off_route_m == pytest.approx(0, abs=1e-6)
    found = state(shipped, [report("convoy-1", utc(13, 30), end)], utc(13, 31))
    assert (found.state, found.progress, found.left_m) == ("arrived", 1.0, 0.0)


def test_one_report_gives_its_own_speed(shipped: Scenario) -> None:
    line = timeline.route_of(shipped, "convoy-1")
    assert line is not None
    found = state(
        shipped, [report("convoy-1", utc(12, 31), line.coords[0], speed_kmh=30.0)], utc(12, 31)
    )
    assert found.speed_kmh == 30
    assert found.eta == utc(12, 31) + timedelta(hours=(found.left_m or 0) / 30_000)


def test_a_convoy_without_a_route(shipped: Scenario) -> None:
    assert timeline.route_of(shipped, "fuaa-kafraya-vehicles") is None
    spot = (36.70, 35.97)
    reports = [report("fuaa-kafraya-vehicles", utc(12, minute), spot) for minute in (0, 10, 25)]
    found = track_states(shipped, reports, utc(12, 30))["fuaa-kafraya-vehicles"]
    assert found.latest == reports[-1]
    assert found.age_minutes == pytest.approx(5)
    assert (found.progress, found.done_m, found.off_route_m, found.eta) == (None,) * 4
    assert (found.state, found.flags) == ("stopped", ("stopped",))  # 25 minutes on one spot
    moving = track_states(shipped, reports[-1:], utc(12, 30))["fuaa-kafraya-vehicles"]
    assert (moving.state, moving.progress) == ("moving", None)


def test_an_unknown_convoy_is_reported_not_tracked(
    shipped: Scenario, track: list[Position]
) -> None:
    stranger = [dataclasses.replace(p, convoy="convoy-99") for p in track[:3]]
    log = ProblemLog()
    states = track_states(shipped, track + stranger, utc(12, 40), log=log)
    assert "convoy-99" not in states
    assert states["convoy-1"].state == "moving"
    assert problems(log) == [
        "position reports, 3 reports, field 'convoy': expected the id of a convoy of scenario "
        "'aleppo-2016-12', got 'convoy-99'"
    ]


def test_times_need_an_offset(shipped: Scenario) -> None:
    with pytest.raises(ValueError, match="needs a moment with a UTC offset"):
        track_states(shipped, [], datetime(2016, 12, 15, 12, 0))
    with pytest.raises(ValueError, match="time needs a UTC offset"):
        Position("convoy-1", datetime(2016, 12, 15, 12, 0), 36.0, 37.0)


def test_rules_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match=r"Rules\.off_route_m must be more than 0, got -1"):
        Rules(off_route_m=-1)
    with pytest.raises(ValueError, match=r"Rules\.arrived_share must be in \(0, 1\]"):
        Rules(arrived_share=1.5)


def test_the_route_in_metres_is_made_once_per_scenario(shipped: Scenario) -> None:
    first = tracking._projected_route(shipped, "convoy-1")
    assert first is tracking._projected_route(shipped, "convoy-1")
    assert first is not None
    assert first.length == pytest.approx(12_181, abs=1)


# --- readers -----------------------------------------------------------------------------


def test_csv_track(track: list[Position]) -> None:
    assert len(track) == 19
    first = track[0]
    assert (first.convoy, first.time, first.speed_kmh) == ("convoy-1", utc(12, 25), None)
    assert first.note == "waiting at the crossing (before departure)"
    assert track[3].speed_kmh == 20


def test_csv_bad_rows_are_reported_and_good_ones_kept() -> None:
    log = ProblemLog()
    found = read_positions(DATA / "bad.csv", log=log)
    assert [(p.time, p.note) for p in found] == [
        (utc(12, 34), ""),
        (utc(14, 46), "stopped, at a checkpoint"),
    ]
    assert found[0].latitude == pytest.approx(36.17696)  # the lat/lon columns
    assert [(p.where, p.field) for p in log.errors] == [
        ("row 3", "latitude"),
        ("row 4", "time"),
        ("row 5", "speed_kmh"),
        ("row 6", "convoy"),
        ("row 7", ""),
    ]
    assert "expected 7 cells, one per column of the header, got '4 cells'" in str(log.errors[-1])
    assert [(p.where, p.field) for p in log.warnings] == [("header", "driver")]


def test_gpx_track_points() -> None:
    log = ProblemLog()
    found = read_positions(DATA / "convoy-1.gpx", log=log)
    assert [(p.convoy, p.time, p.note) for p in found] == [
        ("convoy-1", utc(12, 30), "departed"),
        ("convoy-1", utc(12, 34), ""),
        ("convoy-1", utc(12, 46), ""),
    ]
    assert problems(log) == [
        "warning: convoy-1.gpx: expected track points (<trkpt>) only, got '1 waypoint (not read)'",
        "convoy-1.gpx, track #1 'convoy-1', point #3, field 'time': expected a value (the field "
        "is required), got nothing",
        "convoy-1.gpx, track #1 'convoy-1', point #4, field 'latitude': expected a number from "
        "-90 to 90, got '136.0'",
        "convoy-1.gpx, track #2, field 'name': expected the convoy id as the track's name: an id "
        "of letters, digits, '-', '_' or '.', got \"Convoy two (driver's phone)\"",
    ]


def test_geojson_points() -> None:
    log = ProblemLog()
    found = read_positions(DATA / "reports.geojson", log=log)
    assert [(p.time, p.speed_kmh, p.note) for p in found] == [
        (utc(12, 34), 19.5, ""),
        (utc(12, 38), None, "on the road"),
    ]
    assert sorted((p.where, p.field, p.expected) for p in log.errors) == [
        ("feature #3", "time", "a value (the field is required)"),
        ("feature #4", "geometry", "a Point (one report)"),
        ("feature #5", "geometry", "a geometry"),
    ]


def test_the_name_tells_the_format_and_others_are_refused(tmp_path: Path) -> None:
    upload = tmp_path / "upload-1234"
    upload.write_bytes((DATA / "reports.geojson").read_bytes())
    assert len(read_positions(upload, log=ProblemLog(), name="reports.geojson")) == 2
    log = ProblemLog()
    assert read_positions(DATA / "convoy-1.csv", log=log, name="track.kml") == []
    assert problems(log) == [
        "track.kml: expected a CSV, GPX or GeoJSON file of position reports (.csv, .gpx, "
        ".geojson), got '.kml'"
    ]


def test_an_empty_file_is_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text(HEADER, encoding="utf-8")
    log = ProblemLog()
    assert read_positions(path, log=log) == []
    assert problems(log) == [
        "warning: empty.csv: expected at least one position report, got 'none'"
    ]


# --- following a growing file ------------------------------------------------------------


def line(minute: int, note: str = "") -> str:
    return f"convoy-1,2016-12-15T12:{minute:02d}Z,36.18,37.14,,{note}\n"


def minutes(found: list[Position]) -> list[int]:
    return [p.time.minute for p in found]


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8", newline="") as handle:
        handle.write(text)


def test_follower_reads_only_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text(HEADER + line(30) + line(34), encoding="utf-8")
    follower, log = Follower(path), ProblemLog()
    assert minutes(follower.new_positions(log)) == [30, 34]
    assert follower.new_positions(log) == []
    append(path, line(38) + line(42)[:20])  # the last line is still being written
    assert minutes(follower.new_positions(log)) == [38]
    append(path, line(42)[20:] + "convoy-1,soon,36.18,37.14,,\n")
    assert minutes(follower.new_positions(log)) == [42]
    assert problems(log) == [
        "live.csv, row 6, field 'time': expected an ISO 8601 date-time with a UTC offset, such "
        "as 2016-12-15T14:30+02:00, got 'soon'"
    ]


def test_follower_starts_again_on_a_truncated_file(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text(HEADER + line(30) + line(34) + line(38), encoding="utf-8")
    follower, log = Follower(path), ProblemLog()
    assert minutes(follower.new_positions(log)) == [30, 34, 38]
    path.write_text(HEADER + line(50), encoding="utf-8")  # truncated and written anew
    assert minutes(follower.new_positions(log)) == [50]
    assert list(log) == []


def test_follower_starts_again_on_a_rotated_file(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text(HEADER + line(30), encoding="utf-8")
    follower, log = Follower(path), ProblemLog()
    assert minutes(follower.new_positions(log)) == [30]
    os.replace(path, tmp_path / "live.csv.1")
    fresh = tmp_path / "fresh.csv"
    fresh.write_text(HEADER + line(40) + line(44) + line(48), encoding="utf-8")
    os.replace(fresh, path)
    assert minutes(follower.new_positions(log)) == [40, 44, 48]
    path.unlink()
    assert follower.new_positions(log) == []
    assert [p.expected for p in log] == ["a readable UTF-8 CSV file"]


def test_a_feed_holds_what_it_read_until_it_is_saved(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text(HEADER + line(34) + line(38), encoding="utf-8")
    at_30 = Position("convoy-1", datetime(2016, 12, 15, 12, 30, tzinfo=UTC), 36.18, 37.14)
    kept = [*Follower(path).new_positions(ProblemLog())[:1], at_30]
    feed, log = Feed(path, "aleppo", kept), ProblemLog()
    assert (minutes(feed.reports), feed.unsaved) == ([30, 34], [])
    assert minutes(feed.poll(log)) == [38]  # 34 was kept already: not added twice
    assert (minutes(feed.reports), minutes(feed.unsaved)) == ([30, 34, 38], [38])
    append(path, line(42) + line(32))
    assert minutes(feed.poll(log)) == [42, 32]
    assert (minutes(feed.reports), minutes(feed.unsaved)) == ([30, 32, 34, 38, 42], [38, 42, 32])
    feed.saved(2)
    assert minutes(feed.unsaved) == [32]
    assert list(log) == []


def test_a_feed_does_not_take_a_rotated_file_s_old_lines_twice(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text(HEADER + line(30), encoding="utf-8")
    feed, log = Feed(path, "aleppo"), ProblemLog()
    assert minutes(feed.poll(log)) == [30]
    fresh = tmp_path / "fresh.csv"
    fresh.write_text(HEADER + line(30) + line(40) + line(40), encoding="utf-8")
    os.replace(fresh, path)
    assert minutes(feed.poll(log)) == [40]
    assert minutes(feed.reports) == minutes(feed.unsaved) == [30, 40]


def test_follower_takes_windows_files(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    text = "\ufeff" + HEADER.replace("latitude,longitude", "lat,lng") + line(30, "crlf")
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    found = Follower(path).new_positions(ProblemLog())
    assert [(p.latitude, p.longitude, p.note) for p in found] == [(36.18, 37.14, "crlf")]


def test_an_old_track_is_replayed_as_of_its_last_report(
    shipped: Scenario, track: list[Position]
) -> None:
    last = max(p.time for p in track)
    assert tracking.as_of(shipped, track, last + timedelta(hours=2)) == (
        last + timedelta(hours=2), False
    )  # fmt: skip
    assert tracking.as_of(shipped, track, last + timedelta(days=400)) == (last, True)
    assert tracking.as_of(shipped, [], shipped.start + timedelta(days=2)) == (shipped.start, True)


def test_the_tracking_table_has_a_row_per_reporting_convoy(
    shipped: Scenario, track: list[Position]
) -> None:
    from geo import tables

    states = track_states(shipped, track, max(p.time for p in track))
    table = tables.tracking_table(list(states.values()))
    reporting = [s for s in states.values() if s.latest is not None]
    assert list(table["convoy"]) == [s.convoy for s in reporting] != []
    assert table["done (km)"].dropna().map(lambda km: km == round(km, 1)).all()
