"""Position reports as columns: the same reports as records, told apart as records are."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from shapely.geometry import Point

from geo import synthetic, timeline, tracking
from geo.errors import ProblemLog
from geo.position_table import HeldReports, PositionTable
from geo.positions import Feed
from geo.records import Position, Scenario
from geo.tracking import track_states

START = datetime(2016, 12, 15, 12, 0, tzinfo=UTC)


def at(minutes: float) -> datetime:
    return START + timedelta(minutes=minutes)


REPORTS = [
    Position("c1", at(0), 36.2, 37.1),
    Position("c2", at(5), 36.25, 37.15, 42.5, "checkpoint «Ramouseh»"),
    Position("c1", at(10) + timedelta(microseconds=7), -0.0, 37.2, 0.0, ""),
]


def test_a_table_gives_back_the_records_it_was_made_of() -> None:
    table = PositionTable.of(REPORTS)
    assert len(table) == 3
    assert table == REPORTS
    assert table[-1] == REPORTS[-1]
    assert table[1].speed_kmh == 42.5
    assert table[0].speed_kmh is None
    assert table[1:] == REPORTS[1:]
    assert table[2].time.tzinfo is UTC
    assert table[2].time == REPORTS[2].time
    with pytest.raises(IndexError):
        table[3]


def test_a_table_of_another_zone_s_times_holds_the_same_moments() -> None:
    beirut = timezone(timedelta(hours=2))
    shifted = [Position(r.convoy, r.time.astimezone(beirut), r.latitude, r.longitude)
               for r in REPORTS]  # fmt: skip
    assert [r.time for r in PositionTable.of(shifted)] == [r.time for r in REPORTS]


def test_tables_joined_keep_each_row_s_convoy() -> None:
    first, second = PositionTable.of(REPORTS[:1]), PositionTable.of(REPORTS[1:])
    assert (first.convoys, second.convoys) == (("c1",), ("c2", "c1"))
    joined = first.then(second)
    assert joined == REPORTS
    assert list(joined.rows_of("c1")) == [0, 2]
    assert list(joined.rows_until("c1", at(9))) == [0]
    assert joined.counts() == {"c1": 2, "c2": 1}


def test_a_table_from_a_frame_s_columns() -> None:
    frame = pd.DataFrame(
        {
            "convoy": ["c1", "c2"],
            "time": pd.to_datetime([at(0), at(5)], utc=True).astype("datetime64[ms, UTC]"),
            "latitude": [36.2, 36.25],
            "longitude": [37.1, 37.15],
            "speed_kmh": [None, 42.5],
            "note": [None, "checkpoint «Ramouseh»"],
        }
    )
    table = PositionTable.from_columns(*(frame[name] for name in frame.columns))
    assert table == REPORTS[:2]


def test_equal_reports_have_equal_keys() -> None:
    again = [Position(r.convoy, r.time, r.latitude + 0.0, r.longitude, r.speed_kmh, r.note)
             for r in REPORTS]  # fmt: skip
    again[2] = Position("c1", REPORTS[2].time, 0.0, 37.2, -0.0, "")  # -0.0 == 0.0
    assert again == REPORTS
    assert list(PositionTable.of(again).keys()) == list(PositionTable.of(REPORTS).keys())
    other = PositionTable.of([Position("c1", at(0), 36.2, 37.1, None, "x")])
    assert other.keys()[0] != PositionTable.of(REPORTS).keys()[0]


def test_reports_with_one_key_are_still_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys only find candidates: two different reports whose keys collide are both kept,
    and a true repeat is still dropped."""
    monkeypatch.setattr(PositionTable, "keys", lambda self: np.zeros(len(self), np.uint64))
    held = HeldReports(PositionTable.of(REPORTS[:2] + REPORTS[:1]))
    assert held.table == REPORTS[:2]
    fresh = PositionTable.of([REPORTS[2], REPORTS[0], REPORTS[2], REPORTS[1]])
    assert list(held.unseen(fresh)) == [0]  # a repeat of the second held one is seen too
    within = PositionTable.of([REPORTS[2], REPORTS[1], REPORTS[1]])
    assert list(HeldReports(PositionTable.empty()).unseen(within)) == [0, 1]


def test_a_feed_holds_columns_and_drops_repeats_of_held_reports(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text(
        "convoy,time,latitude,longitude,speed_kmh,note\n"
        "c1,2016-12-15T12:00:00Z,36.2,37.1,,\n"
        "c1,2016-12-15T12:10:00.000007+00:00,0,37.2,0,\n"
        "c3,2016-12-15T11:00:00Z,36.0,37.0,,early\n",
        encoding="utf-8",
    )
    feed, log = Feed(path, "aleppo", REPORTS), ProblemLog()
    fresh = feed.poll(log)
    assert isinstance(fresh, PositionTable)
    assert isinstance(feed.reports, PositionTable)
    assert [r.convoy for r in fresh] == ["c3"]
    assert [r.convoy for r in feed.reports] == ["c3", "c1", "c2", "c1"]  # oldest first
    assert feed.unsaved == [fresh[0]]
    assert list(log) == []


def synthetic_reports() -> tuple[Scenario, list[Position]]:
    """Reports along the synthetic scenario's routes, with noise, some before departure."""
    scenario = synthetic.generate(events=0, convoys=12)
    rng = np.random.default_rng(3)
    found = []
    for convoy in scenario.convoys:
        line = timeline.route_of(scenario, convoy.id)
        assert line is not None
        assert convoy.depart is not None
        assert convoy.arrive is not None
        shares = np.sort(rng.uniform(0, rng.uniform(0.1, 1.0), 40))
        points = [line.interpolate(share, normalized=True) for share in shares]
        step = (convoy.arrive - convoy.depart) / 40
        found += [
            Position(convoy.id, convoy.depart + step * (i - 3), p.y + rng.normal(0, 2e-4),
                     p.x + rng.normal(0, 2e-4), None if i % 5 else float(i))
            for i, p in enumerate(points)
        ]  # fmt: skip
    found.append(Position("stranger", scenario.start, 36.0, 37.0))
    rng.shuffle(found)  # type: ignore[arg-type]
    return scenario, found


@pytest.mark.parametrize("share", [0.0, 0.3, 0.6, 1.0])
def test_states_measure_each_convoy_s_latest_report_up_to_the_moment(share: float) -> None:
    """Grouped, ordered and cut at the moment by columns, as the records say it should be."""
    scenario, reports = synthetic_reports()
    times = sorted(r.time for r in reports)
    moment = times[round(share * (len(times) - 1))]
    log = ProblemLog()
    states = track_states(scenario, PositionTable.of(reports), moment, log=log)
    assert [(p.field, p.actual) for p in log] == [("convoy", "stranger")]
    for convoy in scenario.convoys:
        seen = sorted((r for r in reports if r.convoy == convoy.id and r.time <= moment),
                      key=lambda r: r.time)  # fmt: skip
        state = states[convoy.id]
        assert state.latest == (seen[-1] if seen else None)
        if not seen:
            assert state.state == "no reports"
        elif convoy.depart is not None and seen[-1].time < convoy.depart:
            assert state.state == "before departure"
        else:
            route = tracking._projected_route(scenario, convoy.id)
            assert route is not None
            x, y = route.to_metres.transform(seen[-1].longitude, seen[-1].latitude)
            assert state.done_m == pytest.approx(route.line.project(Point(x, y)))
    measured = [s for s in states.values() if s.done_m is not None]
    assert len(measured) >= 3 or share == 0
    assert tracking.as_of(scenario, PositionTable.of(reports), moment)[0] == moment


def test_a_time_a_table_cannot_hold_is_a_bad_row_not_a_wrapped_one(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    path.write_text(
        "convoy,time,latitude,longitude\n"
        "c1,2300-01-01T00:00:00Z,36.2,37.1\n"
        "c1,1650-01-01T00:00:00Z,36.2,37.1\n"
        "c1,2016-12-15T12:00:00Z,36.2,37.1\n",
        encoding="utf-8",
    )
    feed, log = Feed(path, "aleppo"), ProblemLog()
    assert [r.time.year for r in feed.poll(log)] == [2016]
    assert [(p.where, p.field, p.actual) for p in log] == [
        ("row 2", "time", "2300-01-01T00:00:00Z"),
        ("row 3", "time", "1650-01-01T00:00:00Z"),
    ]
    assert "a time from 1678 to 2261" in str(next(iter(log)))
    with pytest.raises(ValueError, match="must lie from 1678 to 2261"):
        PositionTable.of([Position("c1", datetime(2300, 1, 1, tzinfo=UTC), 36.2, 37.1)])


def test_unknown_convoys_are_told_in_the_order_of_their_first_report() -> None:
    scenario, _ = synthetic_reports()
    reports = [Position("zz", at(60), 36.0, 37.0), Position("aa", at(0), 36.0, 37.0)]
    log = ProblemLog()
    track_states(scenario, PositionTable.of(reports), at(90), log=log)
    assert [p.actual for p in log] == ["aa", "zz"]
