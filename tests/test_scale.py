"""Large scenarios: the synthetic generator, compact layers, and what they put in the page."""

from __future__ import annotations

import base64
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from geo import _memo, bulk, export, mapview, synthetic, timeline
from geo._script import script_json
from geo.records import Scenario
from geo.scenario import read_scenario, write_scenario

SIZE = {"events": 3_000, "convoys": 600, "zones": 12}


@pytest.fixture(scope="module")
def big() -> Scenario:
    return synthetic.generate(**SIZE, seed=7)


def render(scenario: Scenario, view: mapview.MapView) -> str:
    return str(mapview.build_map(scenario, view).get_root().render())


def test_the_generator_is_reproducible_and_valid(big: Scenario, tmp_path: Path) -> None:
    assert synthetic.generate(**SIZE, seed=7) == big
    assert synthetic.generate(**SIZE, seed=8) != big
    assert (len(big.events), len(big.convoys), len(big.routes)) == (3_000, 600, 600)
    assert 0 < len(big.zones) <= 12
    write_scenario(big, tmp_path / big.id)
    assert read_scenario(tmp_path / big.id, geocode=False) == big  # every rule holds


def test_generated_records_lie_in_syria(big: Scenario) -> None:
    lats = np.array([e.latitude for e in big.events])
    lons = np.array([e.longitude for e in big.events])
    assert lats.min() > 32.0
    assert lats.max() < 37.7
    assert lons.min() > 35.3
    assert lons.max() < 42.7
    for route in big.routes:
        west, south, east, north = route.geometry.bounds
        assert 32 < south < north < 37.7
        assert 35.3 < west < east < 42.7


def test_event_columns_round_trip_through_the_page(big: Scenario) -> None:
    chosen = bulk.selection(big, big.end, days=None, types=None)
    data = json.loads(script_json(bulk.payload(big, chosen)))
    lat = np.frombuffer(base64.b64decode(data["lat"]), dtype="<i4") / 1e5
    kinds = np.frombuffer(base64.b64decode(data["kind"]), dtype="<u2")
    assert data["n"] == len(chosen) == len(lat)
    expected = [big.events[i] for i in chosen]
    assert np.allclose(lat, [e.latitude for e in expected], atol=1e-5)
    assert [data["kinds"][k] for k in kinds] == [e.event_type for e in expected]
    assert "notes" not in data  # more than NOTES_LIMIT events: the page stays small


def test_event_selection_by_days_and_types(big: Scenario) -> None:
    at = big.start + timedelta(days=10)
    week = bulk.selection(big, at, days=7, types=None)
    last, first = at.date(), at.date() - timedelta(days=6)
    assert {big.events[i].id for i in week} == {e.id for e in big.events if first <= e.date <= last}
    battles = bulk.selection(big, at, days=None, types=frozenset({"Battles"}))
    assert {big.events[i].event_type for i in battles} == {"Battles"}
    assert len(battles) == sum(e.event_type == "Battles" and e.date <= last for e in big.events)


def test_a_few_events_carry_their_notes(tiny_dir: Path) -> None:
    from dataclasses import replace

    small = synthetic.generate(events=5, convoys=2, zones=2, seed=1)
    chosen = bulk.selection(small, small.end, days=None, types=None)
    data = bulk.payload(small, chosen)
    assert data["notes"] == [small.events[i].notes for i in chosen]
    hostile = replace(small.events[0], notes="</script><script>alert(1)</script>")
    text = script_json(bulk.payload(replace(small, events=(hostile,)), np.array([0])))
    assert "</script>" not in text
    assert "\\u003c/script\\u003e" in text


def test_many_convoys_draw_lean_routes_on_a_canvas(big: Scenario) -> None:
    view = mapview.MapView(at=big.start + timedelta(days=15))
    html = render(big, view)
    assert len(mapview.shown(big, view).convoys) > mapview.DETAIL_LIMIT
    assert '"t":"ant"' not in html  # no animated, per-convoy lines
    assert "L.DomUtil.create('canvas', 'corridor-lean-routes')" in html, "no lean routes layer"
    assert "Overview of 600 convoys: approximate lines thin and faded" in html
    assert not re.search(r"<(?:script|link)[^>]+(?:src|href)=\"https?://", html)


def test_lean_route_coordinates_decode_to_the_simplified_line(big: Scenario) -> None:
    leg = big.routes[0]
    points = mapview._simplified(big, leg.id)
    flat = mapview._encoded(big, leg.id)
    assert flat == bulk.delta_encoded(points)
    decoded = np.cumsum(np.array(flat).reshape(-1, 2), axis=0) / 1e5
    assert np.allclose(decoded, points, atol=1e-9)
    assert len(points) <= len(leg.geometry.coords)
    assert (
        leg.geometry.hausdorff_distance(type(leg.geometry)([(lon, lat) for lat, lon in points]))
        <= mapview.SIMPLIFY_DEGREES * 1.01
    )


def test_few_convoys_keep_their_detailed_routes(tiny_dir: Path) -> None:
    tiny = read_scenario(tiny_dir)
    html = render(tiny, mapview.MapView(at=tiny.start + timedelta(hours=14)))
    assert "data.lines" not in html
    assert "Dashed: approximate line" in html


def test_legs_index_follows_the_scenario(big: Scenario) -> None:
    legs = timeline.legs_of(big, "c3")
    assert [leg.convoy for leg in legs] == ["c3"]
    assert timeline.route_of(big, "c3") is not None
    assert timeline.legs_of(big, "nope") == []


def test_memo_is_by_identity_not_equality() -> None:
    first, same = (1, 2), tuple([1, 2])
    calls: list[int] = []
    assert _memo.derived(first, "t", lambda: calls.append(1) or "a") == "a"
    assert _memo.derived(first, "t", lambda: calls.append(1) or "b") == "a"
    assert _memo.derived(same, "t", lambda: calls.append(1) or "c") == "c"
    assert len(calls) == 2


@pytest.mark.browser
@pytest.mark.parametrize("still", [True, False], ids=["picture", "interactive"])
def test_events_are_drawn_in_every_kind_of_page(
    big: Scenario, still: bool, offline_page: Any, tmp_path: Path
) -> None:
    """Clusters are drawn once the events' group is on the map, whether or not the map moves
    after (a picture's map does not: its events were once left out of PNGs and PDFs)."""
    view = mapview.MapView(at=big.end, event_days=None)
    page_file = tmp_path / "page.html"
    page_file.write_text(export.page_html(export.Snapshot(big, view), still=still), "utf-8")
    page = offline_page.page
    page.goto(page_file.as_uri(), wait_until="load")
    page.wait_for_function("window.corridorReady === true")
    drawn = page.evaluate(
        "document.querySelector('.leaflet-container').getAttribute('data-corridor-events')"
    )
    assert drawn is not None, "the events were not drawn"
    assert int(drawn) > 0
    assert page.locator(".corridor-cluster").count() > 0
    assert offline_page.errors == []
