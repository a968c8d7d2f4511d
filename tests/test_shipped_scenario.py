"""The shipped scenario, aleppo-2016-12, checked against the report it is drawn from."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path

import pyproj
import pytest

from geo.records import Control, Count, FigureKind, Qualifier, Scenario
from geo.scenario import read_scenario

REPORT = Path(__file__).parent / "data" / "reports" / "aleppo-evacuation-2016-12-15.txt"
GEOD = pyproj.Geod(ellps="WGS84")
FIRST_CONVOY_CROSSES = datetime(2016, 12, 15, 12, 30, tzinfo=UTC)  # "around 2:30 pm (1230 GMT)"


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    folder = Path(__file__).parent.parent / "data" / "scenarios" / "aleppo-2016-12"
    return read_scenario(folder, strict=True)  # strict: no errors and no warnings


def squeeze(text: str) -> str:
    return " ".join(text.split())


def test_every_quote_is_in_the_report(scenario: Scenario) -> None:
    report = squeeze(REPORT.read_text(encoding="utf-8"))
    records = (*scenario.places, *scenario.convoys, *scenario.figures, *scenario.routes)
    quoted = [(r.id, r.quote) for r in (*records, *scenario.zones) if r.quote]
    assert len(quoted) > 30
    missing = [
        rid
        for rid, quote in quoted
        if any(squeeze(passage) not in report for passage in quote.split(" … "))
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("place_id", "name"),
    [
        ("aleppo", "Aleppo"),
        ("east-aleppo", "East Aleppo"),
        ("al-amiriyah", "Al-Amiriyah"),
        ("southern-aleppo-crossing", "southern Aleppo"),
        ("opposition-west-of-aleppo", "west of Aleppo"),
        ("idlib", "Idlib"),
        ("idlib-province", "Idlib province"),
        ("fuaa", "Fuaa"),
        ("kafraya", "Kafraya"),
        ("hama-province", "Hama province"),
    ],
)
def test_required_place(scenario: Scenario, place_id: str, name: str) -> None:
    place = scenario.place(place_id)
    assert name in place.name
    assert place.country_code == "SY"


@pytest.mark.parametrize(
    ("place_id", "lat", "lon"), [("fuaa", 35.982, 36.702), ("kafraya", 35.990, 36.678)]
)
def test_fuaa_and_kafraya_positions(
    scenario: Scenario, place_id: str, lat: float, lon: float
) -> None:
    place = scenario.place(place_id)
    assert place.latitude == pytest.approx(lat, abs=0.01)
    assert place.longitude == pytest.approx(lon, abs=0.01)


def test_first_convoy(scenario: Scenario) -> None:
    left = [c for c in scenario.convoys if c.origin == "east-aleppo" and c.status != "cancelled"]
    first = min(left, key=lambda c: c.depart or datetime.max.replace(tzinfo=UTC))
    assert first.depart == FIRST_CONVOY_CROSSES
    assert first.arrive is not None
    assert first.arrive > first.depart
    assert first.fighters == Count(200, 200, Qualifier.ABOUT)
    assert "ambulances" in first.label
    assert "buses" in first.label


@pytest.mark.parametrize(
    ("kind", "count", "place"),
    [
        (FigureKind.EVACUATED, Count(3000, 3000, Qualifier.ABOUT), "east-aleppo"),
        (FigureKind.EVACUATED, Count(40, 40, Qualifier.MORE_THAN), "east-aleppo"),
        (FigureKind.TRAPPED, Count(50000, 50000, Qualifier.ABOUT), "east-aleppo"),
        (FigureKind.TRAPPED, Count(40000, 40000), "east-aleppo"),
        (FigureKind.TRAPPED, Count(1500, 5000), "east-aleppo"),
        (FigureKind.TO_BE_EVACUATED, Count(4000, 4000, Qualifier.AT_LEAST), "east-aleppo"),
        (FigureKind.TO_BE_EVACUATED, Count(1200, 1200), "fuaa-kafraya"),
        (FigureKind.KILLED, Count(465, 465, Qualifier.MORE_THAN), "east-aleppo"),
        (FigureKind.KILLED, Count(149, 149), "aleppo"),
    ],
)
def test_reported_figure(scenario: Scenario, kind: FigureKind, count: Count, place: str) -> None:
    assert (kind, count, place) in {(f.kind, f.count, f.place) for f in scenario.figures}


def test_figure_what(scenario: Scenario) -> None:
    what = {(f.kind, f.count): f.what for f in scenario.figures}
    assert "civilians" in what[FigureKind.EVACUATED, Count(3000, 3000, Qualifier.ABOUT)]
    assert "wounded" in what[FigureKind.EVACUATED, Count(40, 40, Qualifier.MORE_THAN)]
    assert what[FigureKind.TRAPPED, Count(40000, 40000)] == "civilians"
    assert "fighters" in what[FigureKind.TRAPPED, Count(1500, 5000)]


def test_nearly_30_vehicles_to_fuaa_and_kafraya(scenario: Scenario) -> None:
    [convoy] = [c for c in scenario.convoys if c.vehicles == Count(30, 30, Qualifier.NEARLY)]
    assert convoy.destination in {"fuaa", "kafraya", "fuaa-kafraya"}


def test_zones_on_15_december(scenario: Scenario) -> None:
    moment = FIRST_CONVOY_CROSSES
    valid = {
        zone.id: zone.control
        for zone in scenario.zones
        if zone.valid_from <= moment and (zone.valid_to is None or moment < zone.valid_to)
    }
    assert valid == {
        "east-aleppo-pocket": Control.BESIEGED,
        "government-aleppo": Control.GOVERNMENT,
        "opposition-west-idlib": Control.OPPOSITION,
        "fuaa-kafraya-enclave": Control.BESIEGED,
    }


def test_approximate_records_cite_editors_or_report(scenario: Scenario) -> None:
    approximate = [
        r
        for r in (*scenario.places, *scenario.routes, *scenario.zones)
        if r.precision == "approximate"
    ]
    assert approximate
    uncited = [r.id for r in approximate if not {"corridor-editors", "seed-report"} & set(r.source)]
    assert uncited == []


def test_route_legs_start_and_end_at_their_places(scenario: Scenario) -> None:
    far = []
    for route in scenario.routes:
        coords = list(route.geometry.coords)
        for end, place_id in ((coords[0], route.from_place), (coords[-1], route.to_place)):
            place = scenario.place(place_id)
            _, _, metres = GEOD.inv(end[0], end[1], place.longitude, place.latitude)
            if metres > 100:
                far.append((route.id, place_id, round(metres)))
    assert far == []


def test_route_legs_chain_from_origin_to_destination(scenario: Scenario) -> None:
    convoys = {c.id: c for c in scenario.convoys}
    for convoy_id in {route.convoy for route in scenario.routes}:
        legs = sorted((r for r in scenario.routes if r.convoy == convoy_id), key=lambda r: r.leg)
        convoy = convoys[convoy_id]
        stops = [legs[0].from_place, *(leg.to_place for leg in legs)]
        assert [leg.leg for leg in legs] == list(range(1, len(legs) + 1)), convoy_id
        assert all(a.to_place == b.from_place for a, b in itertools.pairwise(legs))
        assert stops == [convoy.origin, *convoy.via, convoy.destination], convoy_id
