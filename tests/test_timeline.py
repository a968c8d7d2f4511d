"""The scenario at a moment: zones, figures, convoy states and positions, steps and counts."""

from __future__ import annotations

import dataclasses
import itertools
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from geo import synthetic, tables, timeline
from geo.records import Convoy, ConvoyStatus, Count, Qualifier, Scenario
from geo.scenario import read_scenario
from geo.timeline import ConvoyState


def utc(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(2016, 12, day, hour, minute, second, tzinfo=UTC)


@pytest.fixture(scope="module")
def tiny() -> Scenario:
    return read_scenario(Path(__file__).parent / "data" / "scenarios" / "tiny")


@pytest.fixture(scope="module")
def shipped() -> Scenario:
    return read_scenario(Path(__file__).parent.parent / "data" / "scenarios" / "aleppo-2016-12")


def convoy(scenario: Scenario, convoy_id: str, **changes: object) -> Convoy:
    found = next(c for c in scenario.convoys if c.id == convoy_id)
    return dataclasses.replace(found, **changes)


def point_along(coords: list[tuple[float, float]], share: float) -> tuple[float, float]:
    """The point `share` of the way along a polyline (planar), worked out independently."""
    pairs = list(itertools.pairwise(coords))
    target = share * sum(math.dist(a, b) for a, b in pairs)
    for a, b in pairs:
        step = math.dist(a, b)
        if target <= step:
            t = target / step
            return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
        target -= step
    return coords[-1]


# --- zones and figures -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        (utc(14, 21, 59), []),  # before valid_from (2016-12-15T00:00+02:00)
        (utc(14, 22), ["z1", "z2"]),  # valid_from itself
        (utc(15, 12), ["z1", "z2"]),
        (utc(15, 22), ["z2"]),  # valid_to is exclusive; z2 is open-ended
        (datetime(2030, 1, 1, tzinfo=UTC), ["z2"]),
    ],
)
def test_zones_valid_at_a_moment(tiny: Scenario, at: datetime, expected: list[str]) -> None:
    assert [zone.id for zone in timeline.zones_at(tiny, at)] == expected


def test_open_ended_zone_has_no_valid_to(tiny: Scenario) -> None:
    assert {zone.id: zone.valid_to for zone in tiny.zones}["z2"] is None


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        (utc(15, 14, 59), []),
        (utc(15, 15), ["f1"]),  # reported at 17:00+02:00, counted from that minute
        (utc(15, 16), ["f1", "f2"]),
    ],
)
def test_figures_reported_by_a_moment(tiny: Scenario, at: datetime, expected: list[str]) -> None:
    assert [figure.id for figure in timeline.figures_at(tiny, at)] == expected


# --- convoy states -----------------------------------------------------------------------


def test_convoy_states_follow_departure_and_arrival(tiny: Scenario) -> None:
    first = convoy(tiny, "c1")  # departs 12:30 UTC, arrives 13:35 UTC, reported arrived
    assert first.depart == utc(15, 12, 30)
    assert first.arrive == utc(15, 13, 35)
    assert timeline.state_at(first, utc(15, 12, 29)) is ConvoyState.NOT_DEPARTED
    assert timeline.state_at(first, utc(15, 12, 30)) is ConvoyState.UNDER_WAY
    assert timeline.state_at(first, utc(15, 13, 34)) is ConvoyState.UNDER_WAY
    assert timeline.state_at(first, utc(15, 13, 35)) is ConvoyState.ARRIVED
    assert timeline.state_at(first, utc(16, 0)) is ConvoyState.ARRIVED


@pytest.mark.parametrize(
    ("status", "expected"),
    [(ConvoyStatus.CANCELLED, ConvoyState.CANCELLED), (ConvoyStatus.HALTED, ConvoyState.HALTED)],
)
def test_cancelled_or_halted_convoys_after_their_departure(
    tiny: Scenario, status: ConvoyStatus, expected: ConvoyState
) -> None:
    stopped = convoy(tiny, "c1", status=status)
    assert timeline.state_at(stopped, utc(15, 12)) is ConvoyState.NOT_DEPARTED
    assert timeline.state_at(stopped, utc(15, 13)) is expected
    assert timeline.state_at(stopped, utc(15, 20)) is expected


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (ConvoyStatus.PLANNED, ConvoyState.PLANNED),
        (ConvoyStatus.UNDER_WAY, ConvoyState.UNDER_WAY),
        (ConvoyStatus.ARRIVED, ConvoyState.ARRIVED),
        (ConvoyStatus.HALTED, ConvoyState.HALTED),
        (ConvoyStatus.CANCELLED, ConvoyState.CANCELLED),
    ],
)
def test_convoy_without_times_takes_its_reported_status(
    tiny: Scenario, status: ConvoyStatus, expected: ConvoyState
) -> None:
    timeless = convoy(tiny, "c1", depart=None, arrive=None, status=status)
    for at in (utc(14, 0), utc(15, 13), utc(16, 0)):
        assert timeline.state_at(timeless, at) is expected


def test_arrived_status_without_an_arrival_time_stays_under_way(tiny: Scenario) -> None:
    open_ended = convoy(tiny, "c1", arrive=None)
    assert timeline.state_at(open_ended, utc(15, 23)) is ConvoyState.UNDER_WAY


# --- positions and routes ----------------------------------------------------------------


def test_route_joins_the_legs_in_order_without_repeating_the_shared_vertex(
    tiny: Scenario,
) -> None:
    legs = sorted((r for r in tiny.routes if r.convoy == "c1"), key=lambda r: r.leg)
    first, second = (list(leg.geometry.coords) for leg in legs)
    assert first[-1] == second[0]
    expected = first + second[1:]
    line = timeline.route_of(tiny, "c1")
    assert line is not None
    assert list(line.coords) == expected
    shuffled = dataclasses.replace(tiny, routes=tuple(reversed(tiny.routes)))
    line = timeline.route_of(shuffled, "c1")
    assert line is not None
    assert list(line.coords) == expected


def test_route_keeps_both_ends_when_legs_do_not_touch(tiny: Scenario) -> None:
    legs = sorted((r for r in tiny.routes if r.convoy == "c1"), key=lambda r: r.leg)
    moved = dataclasses.replace(legs[1], geometry=legs[1].geometry.reverse())
    scenario = dataclasses.replace(tiny, routes=(legs[0], moved))
    line = timeline.route_of(scenario, "c1")
    assert line is not None
    assert len(line.coords) == len(legs[0].geometry.coords) + len(moved.geometry.coords)


def test_route_of_a_convoy_without_legs_is_none(tiny: Scenario) -> None:
    assert timeline.route_of(tiny, "c2") is None
    assert timeline.convoy_at(tiny, convoy(tiny, "c2"), utc(15, 17)).position is None


def test_position_is_interpolated_along_the_joined_legs(tiny: Scenario) -> None:
    first = convoy(tiny, "c1")
    assert first.depart is not None
    assert first.arrive is not None
    line = timeline.route_of(tiny, "c1")
    assert line is not None
    coords = [(x, y) for x, y, *_ in line.coords]

    start = timeline.convoy_at(tiny, first, first.depart)
    assert start.state is ConvoyState.UNDER_WAY
    assert start.progress == 0.0
    assert start.position is not None
    assert (start.position.x, start.position.y) == coords[0]

    middle = timeline.convoy_at(tiny, first, first.depart + (first.arrive - first.depart) / 2)
    assert middle.progress == pytest.approx(0.5)
    assert middle.position is not None
    x, y = point_along(coords, 0.5)
    assert middle.position.x == pytest.approx(x, abs=1e-9)
    assert middle.position.y == pytest.approx(y, abs=1e-9)

    after = timeline.convoy_at(tiny, first, first.arrive + timedelta(hours=3))
    assert after.state is ConvoyState.ARRIVED
    assert after.progress == 1.0
    assert after.position is not None
    assert (after.position.x, after.position.y) == coords[-1]


def test_no_position_without_an_arrival_time_or_when_stopped(tiny: Scenario) -> None:
    open_ended = convoy(tiny, "c1", arrive=None, status=ConvoyStatus.UNDER_WAY)
    item = timeline.convoy_at(tiny, open_ended, utc(15, 13))
    assert (item.state, item.position, item.progress) == (ConvoyState.UNDER_WAY, None, None)
    halted = convoy(tiny, "c1", status=ConvoyStatus.HALTED)
    item = timeline.convoy_at(tiny, halted, utc(15, 13))
    assert (item.state, item.position, item.progress) == (ConvoyState.HALTED, None, None)


# --- the shipped scenario ----------------------------------------------------------------


def test_headline_before_during_and_after_the_first_convoys(shipped: Scenario) -> None:
    morning = timeline.headline(shipped, utc(15, 10))
    assert morning.evacuated == []
    assert morning.trapped == []
    assert morning.convoys == {
        ConvoyState.CANCELLED: 1,  # the collapsed attempt of the 14th
        ConvoyState.NOT_DEPARTED: 3,
        ConvoyState.UNDER_WAY: 1,  # the Fuaa-Kafraya vehicles: under way, no times
        ConvoyState.PLANNED: 1,
    }

    first_convoy = timeline.headline(shipped, utc(15, 13))
    assert first_convoy.evacuated == []
    assert first_convoy.convoys == {
        ConvoyState.CANCELLED: 1,
        ConvoyState.UNDER_WAY: 2,
        ConvoyState.NOT_DEPARTED: 2,
        ConvoyState.PLANNED: 1,
    }

    evening = timeline.headline(shipped, utc(15, 16, 30))
    assert [timeline.count_text(f.count) for f in evening.evacuated] == [
        "about 3,000",
        "more than 40",
    ]
    assert {f.id for f in evening.trapped} == {
        "trapped-people-east-aleppo",
        "trapped-civilians-east-aleppo",
        "trapped-fighters-east-aleppo",
    }
    assert evening.convoys == {
        ConvoyState.CANCELLED: 1,
        ConvoyState.ARRIVED: 2,
        ConvoyState.UNDER_WAY: 2,  # the third convoy (no arrival time) and Fuaa-Kafraya
        ConvoyState.PLANNED: 1,
    }


def test_the_headline_counts_halted_convoys_not_one_called_off_the_day_before(
    shipped: Scenario,
) -> None:
    metrics = {m.label: m for m in tables.headline_metrics(shipped, utc(15, 13))}
    assert "Stopped" not in metrics
    assert metrics["Halted"].value == "0"  # the attempt of the 14th was called off, not halted
    assert "1 called off before leaving (not counted)" in metrics["Halted"].help


def test_steps_are_fifteen_minutes_apart_from_start_to_end(shipped: Scenario) -> None:
    moments = timeline.steps(shipped)
    assert moments[0] == shipped.start == utc(14, 4)
    assert moments[-1] == shipped.end == utc(15, 22)
    assert len(moments) == 42 * 4 + 1
    assert {b - a for a, b in itertools.pairwise(moments)} == {timedelta(minutes=15)}
    hourly = timeline.steps(shipped, minutes=60)
    assert len(hourly) == 43
    assert hourly[-1] == shipped.end


def test_steps_stop_at_the_end_when_it_is_not_on_a_step(shipped: Scenario) -> None:
    odd = dataclasses.replace(shipped, end=shipped.start + timedelta(minutes=50))
    assert timeline.steps(odd) == [shipped.start + timedelta(minutes=m) for m in (0, 15, 30, 45)]


def test_step_labels_are_each_steps_local_time_made_once_per_scenario(shipped: Scenario) -> None:
    labels = tables.step_labels(shipped)
    assert list(labels) == timeline.steps(shipped)
    assert labels[utc(15, 13)] == "15 Dec 15:00"  # Aleppo: UTC+2 in December 2016
    assert tables.step_labels(shipped) is labels
    hourly = tables.step_labels(shipped, minutes=60)
    assert len(hourly) == 43
    later = dataclasses.replace(shipped, end=shipped.start + timedelta(minutes=50))
    assert list(tables.step_labels(later)) == timeline.steps(later)


def test_opening_moment_is_halfway_through_the_first_timed_convoy(shipped: Scenario) -> None:
    # convoy-1: 12:30 to 13:35 UTC
    assert timeline.opening_moment(shipped) == utc(15, 13, 2, 30)
    assert timeline.nearest_step(timeline.steps(shipped), utc(15, 13, 2, 30)) == utc(15, 13)
    assert timeline.opening_step(shipped) == utc(15, 13)  # where the dashboard and exports open
    untimed = dataclasses.replace(
        shipped, convoys=tuple(dataclasses.replace(c, arrive=None) for c in shipped.convoys)
    )
    assert timeline.opening_moment(untimed) == shipped.start


def test_nearest_step_prefers_the_earlier_step_on_a_tie() -> None:
    moments = [utc(15, 13), utc(15, 13, 15)]
    assert timeline.nearest_step(moments, utc(15, 13, 7)) == utc(15, 13)
    assert timeline.nearest_step(moments, utc(15, 13, 8)) == utc(15, 13, 15)
    assert timeline.nearest_step(moments, utc(15, 13, 7, 30)) == utc(15, 13)


# --- counts ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (None, ""),
        (Count(200, 200), "200"),
        (Count(40000, 40000), "40,000"),
        (Count(3000, 3000, Qualifier.ABOUT), "about 3,000"),
        (Count.parse("more than 310000"), "more than 310,000"),
        (Count.parse("nearly 30"), "nearly 30"),
        (Count(1500, 5000), "1,500–5,000"),
        (Count.parse("1500-5000"), "1,500–5,000"),
        (Count(1500, 5000, Qualifier.UP_TO), "up to 1,500–5,000"),
    ],
)
def test_count_text(count: Count | None, text: str) -> None:
    assert timeline.count_text(count) == text


def test_many_convoys_at_once_each_get_their_own_position() -> None:
    many = synthetic.generate(events=10, convoys=40, zones=2, seed=3)
    placed = 0
    for day in (5, 15, 25):
        at = many.start + timedelta(days=day)
        items = timeline.convoys_at(many, many.convoys, at)
        assert [item.convoy for item in items] == list(many.convoys)
        for item in items:
            if item.position is None:
                continue
            line = timeline.route_of(many, item.convoy.id)
            assert line is not None
            assert item.position.equals(line.interpolate(item.progress, normalized=True))
            placed += 1
    assert placed >= 10
    assert timeline.convoys_at(many, [], many.start) == []


def test_playing_steps_forward_and_stops_at_the_end(shipped: Scenario) -> None:
    steps = timeline.steps(shipped)
    assert timeline.next_step(steps, steps[0]) == steps[1]
    assert timeline.next_step(steps, steps[-2]) == steps[-1]
    assert timeline.next_step(steps, steps[-1]) is None
    between = steps[3] + timedelta(minutes=1)  # not a step: from the first
    assert timeline.next_step(steps, between) == steps[1]
    assert timeline.next_step(steps[:1], steps[0]) is None


def test_the_dashboards_convoy_list_and_one_convoys_facts(shipped: Scenario) -> None:
    from geo import mapview

    at = datetime(2016, 12, 15, 13, 0, tzinfo=UTC)
    view = mapview.MapView(at=at, statuses=frozenset({ConvoyStatus.ARRIVED}))
    shown = {c.id for c in mapview.visible_convoys(shipped, view)}
    risks = mapview.alerts(shipped, view)
    assert risks is not None
    frame = tables.shown_convoys(shipped, at, shown, selected=sorted(shown)[0], risks=risks)
    assert set(frame["id"]) == shown < {c.id for c in shipped.convoys}
    assert list(frame.columns[:4]) == ["selected", "id", "risk", "alert"]
    assert frame["selected"].tolist().count("●") == 1
    assert set(frame["risk"]) <= {"low", "medium", "high"}
    plain = tables.shown_convoys(shipped, at, {c.id for c in shipped.convoys})
    assert len(plain) == len(shipped.convoys)
    assert "risk" not in plain.columns

    facts = tables.convoy_details(shipped, "convoy-1", at)
    assert list(facts.columns) == [""]
    assert facts.loc["convoy", ""] == next(c.label for c in shipped.convoys if c.id == "convoy-1")
    assert "state at this moment" in facts.index
