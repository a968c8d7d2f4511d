"""What a map opens on (the story at the moment) and the view requests the browser applies."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from geo import mapview
from geo.mapview import MapView, viewport
from geo.mapview.viewport import ViewRequest
from geo.records import ConvoyStatus, Scenario
from geo.scenario import read_scenario


@pytest.fixture(scope="module")
def shipped() -> Scenario:
    return read_scenario(Path(__file__).parent.parent / "data" / "scenarios" / "aleppo-2016-12")


def utc(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2016, 12, day, hour, minute, tzinfo=UTC)


def test_the_story_is_the_convoys_moving_and_the_besieged_zones(shipped: Scenario) -> None:
    (south, west), (north, east) = mapview.story_frame(shipped, MapView(at=utc(15, 13))).bounds
    # east Aleppo's pocket (east edge 37.176) and the Fuaa–Kafraya enclave (west edge 36.665),
    # where the vehicles under way were headed: besieged both
    assert (west, east) == pytest.approx((36.665, 37.176))
    assert south == pytest.approx(35.968)
    assert north == pytest.approx(36.198)


def test_the_story_leaves_out_what_does_not_matter_at_the_moment(shipped: Scenario) -> None:
    (south, west), _ = mapview.story_frame(shipped, MapView(at=utc(15, 13))).bounds
    everything = viewport.everything(shipped)
    assert everything[0][0] < 35.5  # Hama province's label point and the opposition zone
    assert south > 35.95  # not the planned onward route to Idlib province (35.85)
    assert west > 36.6  # nor the opposition-held zone reaching 36.2


def test_a_filtered_view_frames_what_it_shows(shipped: Scenario) -> None:
    only_arrived = MapView(at=utc(15, 18), statuses=frozenset({ConvoyStatus.ARRIVED}))
    (_south, west), (_north, east) = mapview.story_frame(shipped, only_arrived).bounds
    assert west == pytest.approx(36.665)  # the besieged enclave still counts
    assert east == pytest.approx(37.176)


def test_with_nothing_under_way_and_no_zone_the_frame_is_everything(shipped: Scenario) -> None:
    bare = dataclasses.replace(shipped, zones=(), convoys=())
    assert mapview.story_frame(bare, MapView(at=utc(15, 13))).bounds == viewport.everything(bare)
    empty = dataclasses.replace(bare, places=(), routes=())
    assert viewport.everything(empty) == viewport.SYRIA


def test_a_convoy_frame_holds_its_route_and_is_not_too_close(shipped: Scenario) -> None:
    frame = mapview.convoy_frame(shipped, "convoy-1", utc(15, 13))
    assert frame is not None
    (_south, west), (_north, east) = frame.bounds or []
    assert (west, east) == pytest.approx((37.03, 37.14953))
    assert frame.max_zoom == viewport.CONVOY_MAX_ZOOM
    assert mapview.convoy_frame(shipped, "fuaa-kafraya-vehicles", utc(15, 13)) is None  # no route
    assert mapview.convoy_frame(shipped, "no-such-convoy", utc(15, 13)) is None


def test_every_request_is_new_but_the_maps_default_is_stable(shipped: Scenario) -> None:
    bounds = [[36.0, 37.0], [36.2, 37.2]]
    assert ViewRequest.fit(bounds).token != ViewRequest.fit(bounds).token
    view = MapView(at=utc(15, 13))
    assert mapview.story_frame(shipped, view) == mapview.story_frame(shipped, view)


def test_a_request_reaches_the_page_as_rounded_json() -> None:
    request = ViewRequest.at([[36.0, 37.0], [36.2, 37.2]], (36.1234567891, 37.1), 11.5)
    assert request.script_data() == {
        "token": request.token,
        "bounds": [[36.0, 37.0], [36.2, 37.2]],
        "center": [36.123457, 37.1],
        "zoom": 11.5,
    }
    assert "center" not in ViewRequest.fit([[1, 2], [3, 4]], max_zoom=13).script_data()


def keeper(html: str) -> tuple[dict[str, object], object]:
    """The request and the storage key the map's ViewKeeper script was given."""
    keeps = r"\}\)\(map_\w+, (\{[^{}]*\"token\"[^{}]*\}), (\"[^\"]*\"|null), (?:true|false)\);"
    found = re.search(keeps, html)
    assert found, "no view keeper in the map"
    return json.loads(found[1]), json.loads(found[2])


def test_the_map_opens_on_its_request_and_keeps_the_view_only_when_asked(
    shipped: Scenario,
) -> None:
    view = MapView(at=utc(15, 13))
    plain = mapview.build_map(shipped, view).get_root().render()
    request, store = keeper(plain)
    assert request["token"] == "story"
    assert store is None
    asked = ViewRequest.at([[36.0, 37.0], [36.2, 37.2]], (36.17, 37.02), 11)
    kept = mapview.build_map(shipped, view, frame=asked, keep_view="corridor-view:x")
    request, store = keeper(kept.get_root().render())
    assert request == asked.script_data()
    assert store == "corridor-view:x"
    still = mapview.build_map(shipped, view, frame=asked, keep_view="k", still=True)
    assert keeper(still.get_root().render())[1] is None  # a picture never keeps a view


def test_the_layer_control_starts_folded(shipped: Scenario) -> None:
    html = mapview.build_map(shipped, MapView(at=utc(15, 13))).get_root().render()
    assert re.search(r"L\.control\.layers\([^;]*\"collapsed\": true", html, re.DOTALL)
