"""Large scenarios: the synthetic generator, compact layers, and what they put in the page."""

from __future__ import annotations

import base64
import io
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import shapely
from PIL import Image, ImageChops

from geo import _memo, event_columns, export, mapview, synthetic, timeline
from geo.mapview import elements, event_points, lean, route_canvas
from geo.mapview._script import script_json
from geo.mapview.view import story_frame
from geo.mapview.viewport import ViewRequest
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
    chosen = event_columns.selection(big, big.end, days=None, types=None)
    data = json.loads(script_json(event_points.payload(big, chosen)))
    columns = event_points.unpacked(data)
    assert data["n"] == len(chosen) == len(columns["lat"])
    assert np.all(np.diff(columns["lat"]) >= 0)  # in order of latitude
    sent = sorted(zip(columns["lat"], columns["lon"], columns["kind"], columns["dead"],
                      strict=True))  # fmt: skip
    expected = sorted((e.latitude, e.longitude, e.event_type, e.fatalities)
                      for e in (big.events[i] for i in chosen))  # fmt: skip
    assert np.allclose([row[:2] for row in sent], [row[:2] for row in expected], atol=1e-5)
    assert [data["kinds"][row[2]] for row in sent] == [row[2] for row in expected]
    assert [int(row[3]) for row in sent] == [row[3] for row in expected]
    assert "notes" not in data  # more than NOTES_LIMIT events: the page stays small


def test_a_picture_carries_no_popups(big: Scenario) -> None:
    view = mapview.MapView(at=big.start + timedelta(days=15), event_days=None)
    chosen = event_columns.selection(big, view.at, days=None, types=None)
    data = event_points.payload(big, chosen, still=True)
    assert set(data) == {"n", "lat", "lon", "kind", "dead", "kinds", "colours", "popups"}
    assert data["popups"] is False
    assert event_points.payload(big, chosen)["popups"] is True
    interactive = export.page_html(export.Snapshot(big, view))
    still = export.page_html(export.Snapshot(big, view), still=True)
    assert '"tip":' in interactive
    assert "under way, about" in interactive
    assert '"tip":' not in still
    assert '"pop":' not in still
    assert "under way, about" not in still


def test_event_selection_by_days_and_types(big: Scenario) -> None:
    at = big.start + timedelta(days=10)
    week = event_columns.selection(big, at, days=7, types=None)
    last, first = at.date(), at.date() - timedelta(days=6)
    assert {big.events[i].id for i in week} == {e.id for e in big.events if first <= e.date <= last}
    battles = event_columns.selection(big, at, days=None, types=frozenset({"Battles"}))
    assert {big.events[i].event_type for i in battles} == {"Battles"}
    assert len(battles) == sum(e.event_type == "Battles" and e.date <= last for e in big.events)


def test_a_served_map_fetches_many_events_from_a_file_beside_it(
    big: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(event_points, "INLINE_LIMIT", 1_000)
    served = event_points.Served(tmp_path / "events", "../../app/static/events")
    view = mapview.MapView(at=big.end, event_days=None)
    chosen = mapview.shown(big, view).events
    assert len(chosen) > 1_000
    data = event_points.layer_data(big, chosen, served=served)
    assert set(data) == {"url", "n"}
    assert data["n"] == len(chosen)
    name = data["url"].removeprefix(f"{served.url}/")
    inline = event_points.payload(big, chosen)
    assert json.loads((served.folder / name).read_bytes()) == json.loads(script_json(inline))
    page = str(mapview.build_map(big, view, served=served).get_root().render())
    assert data["url"] in page
    assert inline["lat"] not in page
    assert "url" not in event_points.layer_data(big, chosen[:1_000], served=served)  # few: inline
    assert "url" not in event_points.layer_data(big, chosen, still=True, served=served)  # a picture
    assert "url" not in event_points.layer_data(big, chosen)  # a standalone file
    (served.folder / name).unlink()  # removed meanwhile (another session pruned it)
    assert event_points.layer_data(big, chosen, served=served) == data
    assert (served.folder / name).is_file()


def test_published_event_files_older_than_an_hour_go_beyond_the_newest(tmp_path: Path) -> None:
    import os
    import time

    served = event_points.Served(tmp_path, "events")
    for i in range(event_points.KEPT_FILES + 3):
        event_points.publish({"n": i}, served)
    assert len(list(tmp_path.glob("*.json"))) == event_points.KEPT_FILES + 3  # all recent: all kept
    hours_ago = time.time() - 2 * 3600
    for path in tmp_path.glob("*.json"):
        os.utime(path, (hours_ago, hours_ago))
    again = event_points.publish({"n": 0}, served)  # the same content: touched, not pruned
    assert len(list(tmp_path.glob("*.json"))) == event_points.KEPT_FILES + 3
    newest = event_points.publish({"n": -1}, served)
    left = {path.name for path in tmp_path.glob("*.json")}
    assert len(left) == event_points.KEPT_FILES
    assert {again.rsplit("/", 1)[1], newest.rsplit("/", 1)[1]} <= left


def test_a_few_events_carry_their_notes(tiny_dir: Path) -> None:
    from dataclasses import replace

    small = synthetic.generate(events=5, convoys=2, zones=2, seed=1)
    chosen = event_columns.selection(small, small.end, days=None, types=None)
    data = event_points.payload(small, chosen)
    by_note = {event.notes: event for event in (small.events[i] for i in chosen)}
    assert sorted(data["notes"]) == sorted(by_note)
    lat = event_points.unpacked(data)["lat"]  # each note goes with its own event's point
    assert [by_note[note].latitude for note in data["notes"]] == pytest.approx(lat, abs=1e-5)
    hostile = replace(small.events[0], notes="</script><script>alert(1)</script>")
    text = script_json(event_points.payload(replace(small, events=(hostile,)), np.array([0])))
    assert "</script>" not in text
    assert "\\u003c/script\\u003e" in text


def test_many_convoys_draw_lean_routes_on_a_canvas(big: Scenario) -> None:
    view = mapview.MapView(at=big.start + timedelta(days=15))
    html = render(big, view)
    assert len(mapview.shown(big, view).convoys) > mapview.DETAIL_LIMIT
    assert '"t":"ant"' not in html  # no animated, per-convoy lines
    assert "L.DomUtil.create('canvas', 'corridor-lean-routes')" in html, "no lean routes layer"
    assert "Overview of 600 convoys: lines 3 px wide, approximate ones thinner and faded" in html
    assert not re.search(r"<(?:script|link)[^>]+(?:src|href)=\"https?://", html)


def decoded_legs(data: dict[str, Any]) -> list[npt.NDArray[np.int64]]:
    """The page's decoding of packed legs, in Python: first points plus running sums of steps."""

    def unpack(name: str, dtype: str) -> npt.NDArray[Any]:
        return np.frombuffer(base64.b64decode(data[name]), dtype=dtype).astype(np.int64)

    starts, counts = unpack("starts", "<i4").reshape(-1, 2), unpack("counts", "<i4")
    steps = np.split(unpack("steps", "<i2").reshape(-1, 2), np.cumsum(counts)[:-1])
    return [
        np.cumsum(np.vstack([start, step]), axis=0)
        for start, step in zip(starts, steps, strict=True)
    ]


def test_lean_lines_thin_as_convoys_crowd() -> None:
    widths = [mapview.lean_weight(n) for n in (501, 1_000, 2_000, 4_000, 9_000, 100_000)]
    assert widths == [3.0, 3.0, 2.12, 1.5, 1.0, 1.0]


def test_lean_route_coordinates_decode_to_the_simplified_line(big: Scenario) -> None:
    legs = big.routes[:50]
    points = [lean.leg_points(big)[leg.id] for leg in legs]
    decoded = decoded_legs(route_canvas.packed_legs(points))
    for got, want in zip(decoded, points, strict=True):  # long steps come back in pieces
        assert {tuple(p) for p in want.tolist()} <= {tuple(p) for p in got.tolist()}
        assert shapely.LineString(got).hausdorff_distance(shapely.LineString(want)) <= 1
    assert sum(len(got) > len(want) for got, want in zip(decoded, points, strict=True)) > 0
    for leg, whole in zip(legs, points, strict=True):
        assert 2 <= len(whole) <= len(leg.geometry.coords)
        simplified = type(leg.geometry)(whole[:, ::-1] / 1e5)
        assert leg.geometry.hausdorff_distance(simplified) <= mapview.SIMPLIFY_DEGREES * 1.01


def test_long_steps_are_cut_into_pieces_on_the_same_line() -> None:
    far = np.array([[3_300_000, 3_600_000], [3_300_000 + 100_001, 3_600_000 - 65_534]])
    near = np.array([[3_500_000, 3_700_000], [3_500_010, 3_699_990], [3_500_020, 3_700_000]])
    one = np.array([[3_400_000, 3_800_000]])
    data = route_canvas.packed_legs([far, one, near])
    assert np.frombuffer(base64.b64decode(data["counts"]), "<i4").tolist() == [4, 0, 2]
    steps = np.frombuffer(base64.b64decode(data["steps"]), "<i2").reshape(-1, 2)
    assert np.abs(steps).max() <= route_canvas.MAX_STEP + 1
    decoded = decoded_legs(data)
    assert [leg[[0, -1]].tolist() for leg in decoded] == [far.tolist(), [one[0].tolist()] * 2,
                                                         near[[0, -1]].tolist()]  # fmt: skip
    pieces = decoded[0].astype(float)
    along = (pieces - far[0]) / (far[1] - far[0])
    assert np.allclose(along[:, 0], along[:, 1], atol=1e-4)  # every piece on the line
    assert np.array_equal(decoded[2], near)
    assert route_canvas.packed_legs([]) == {"n": 0, "starts": "", "counts": "", "steps": ""}


def test_spans_run_from_each_first_number() -> None:
    assert route_canvas.spans([5, 0, 9], [2, 0, 3]).tolist() == [5, 6, 9, 10, 11]
    assert route_canvas.spans([], []).tolist() == []


def test_some_packed_legs_are_packed_as_those_legs_alone(big: Scenario) -> None:
    far = np.array([[3_300_000, 3_600_000], [3_300_000 + 100_001, 3_600_000 - 65_534]])
    points = [lean.leg_points(big)[leg.id] for leg in big.routes[:30]] + [far]
    packed = route_canvas.pack_legs(points)
    chosen = np.array([30, 7, 3, 3, 29, 0])
    assert packed.page_data(chosen) == route_canvas.packed_legs([points[i] for i in chosen])
    none = route_canvas.packed_legs([])
    assert packed.page_data(np.array([], dtype=np.intp)) == none
    assert route_canvas.pack_legs([]).page_data(np.array([], dtype=np.intp)) == none


def test_few_convoys_keep_their_detailed_routes(tiny_dir: Path) -> None:
    tiny = read_scenario(tiny_dir)
    html = render(tiny, mapview.MapView(at=tiny.start + timedelta(hours=14)))
    assert "corridor-lean-routes" not in html
    assert "dashed: approximate" in html


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
        "document.querySelector('.folium-map').getAttribute('data-corridor-events')"
    )
    assert drawn is not None, "the events were not drawn"
    assert int(drawn) > 0
    assert page.locator(".corridor-cluster").count() > 0
    assert offline_page.errors == []


@pytest.mark.browser
@pytest.mark.parametrize("still", [True, False], ids=["picture", "interactive"])
def test_lean_routes_are_drawn_in_every_kind_of_page(
    big: Scenario, still: bool, offline_page: Any, tmp_path: Path
) -> None:
    view = mapview.MapView(at=big.start + timedelta(days=15), layers=frozenset({"routes"}))
    page_file = tmp_path / "page.html"
    page_file.write_text(export.page_html(export.Snapshot(big, view), still=still), "utf-8")
    page = offline_page.page
    page.goto(page_file.as_uri(), wait_until="load")
    page.wait_for_function("window.corridorReady === true")
    container = page.locator(".folium-map")
    drawn = container.get_attribute("data-corridor-legs")
    assert drawn is not None, "the legs were not drawn"
    assert 0 < int(drawn) <= len(mapview.shown(big, view).convoys)
    with_legs = container.screenshot()
    page.evaluate("document.querySelector('.corridor-lean-routes').style.visibility = 'hidden'")
    without = container.screenshot()
    changed = ImageChops.difference(
        Image.open(io.BytesIO(with_legs)).convert("RGB"),
        Image.open(io.BytesIO(without)).convert("RGB"),
    ).getbbox()
    assert changed is not None, "the legs' canvas is blank"
    if not still:  # zoomed in, only the legs in view are stroked
        page.evaluate(
            "window[Object.keys(window).find(k => /^map_[0-9a-f]+$/.test(k))].setView("
            "[34.8, 38.9], 12, {animate: false})"
        )
        page.wait_for_function(
            f"document.querySelector('.folium-map').dataset.corridorLegs !== '{drawn}'"
        )
        assert int(container.get_attribute("data-corridor-legs") or 0) < int(drawn)
    assert offline_page.errors == []


MAP = "window[Object.keys(window).find(k => /^map_[0-9a-f]+$/.test(k))]"


def cluster_labels(page: Any) -> list[str]:
    """Each cluster drawn: its label and where it stands, sorted."""
    return sorted(
        page.evaluate(
            "Array.from(document.querySelectorAll('.corridor-cluster'))"
            ".map(e => e.textContent + ' at ' + e.style.transform)"
        )
    )


@pytest.mark.browser
def test_a_picture_clusters_events_as_the_map_does_on_one_unpadded_canvas(
    big: Scenario, offline_page: Any, tmp_path: Path
) -> None:
    """Each zoom is clustered from the events themselves, in pictures as in interactive maps.

    Convoys and single events share one canvas (Chromium copies each canvas at every frame);
    a picture's canvas is the map's size, an interactive one's reaches past the edges.
    """
    view = mapview.MapView(at=big.start + timedelta(days=15), event_days=None)
    assert mapview.shown(big, view).moving, "no convoy under way to draw"
    # one centre and zoom for both: a fitted frame steps around each map's own controls
    # (an interactive map has zoom buttons, a picture none), which this test is not about
    bounds = story_frame(big, view).bounds
    assert bounds is not None
    (south, west), (north, east) = bounds
    frame = ViewRequest.at(bounds, ((south + north) / 2, (west + east) / 2), 7.0)
    page, found = offline_page.page, {}
    for still in (True, False):
        page_file = tmp_path / f"page-{still}.html"
        snapshot = export.Snapshot(big, view, frame=frame)
        page_file.write_text(export.page_html(snapshot, still=still), "utf-8")
        page.goto(page_file.as_uri(), wait_until="load")
        page.wait_for_function("window.corridorReady === true")
        page.wait_for_function(f"!{MAP}._animatingZoom")  # an interactive map zooms to fit
        shown = int(page.locator(".folium-map").get_attribute("data-corridor-events") or 0)
        clusters = cluster_labels(page)
        assert 0 < len(clusters) < shown, "expected clusters and single events both"
        canvases = page.evaluate(
            "Array.from(document.querySelectorAll('.leaflet-overlay-pane canvas'))"
            ".filter(c => !c.classList.contains('corridor-lean-routes'))"
            ".map(c => c.width / c.parentElement.closest('.leaflet-container').clientWidth)"
        )
        found[still] = clusters, canvases
    assert found[True][0] == found[False][0]
    assert found[True][1] == [1]
    assert found[False][1] == [pytest.approx(1 + 2 * 0.3, abs=0.01)]
    assert offline_page.errors == []


@pytest.mark.browser
def test_a_click_on_a_cluster_zooms_to_its_events(
    big: Scenario, offline_page: Any, tmp_path: Path
) -> None:
    view = mapview.MapView(at=big.end, event_days=None, layers=frozenset({"events"}))
    page_file = tmp_path / "page.html"
    page_file.write_text(export.page_html(export.Snapshot(big, view)), "utf-8")
    page = offline_page.page
    page.goto(page_file.as_uri(), wait_until="load")
    page.wait_for_function("window.corridorReady === true")
    page.wait_for_function(f"!{MAP}._animatingZoom")
    zoom = f"{MAP}.getZoom()"
    before, clusters = page.evaluate(zoom), cluster_labels(page)
    page.locator(".corridor-cluster").first.click()
    page.wait_for_function(f"{zoom} > {before}")
    page.wait_for_function(
        "labels => Array.from(document.querySelectorAll('.corridor-cluster'))"
        ".map(e => e.textContent + ' at ' + e.style.transform).sort().join() !== labels.join()",
        arg=clusters,
    )
    assert offline_page.errors == []


def test_published_event_files_stay_within_their_byte_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(event_points, "KEPT_BYTES", 2_500)
    served = event_points.Served(tmp_path, "events")
    writing = tmp_path / ".abc.tmp.json"  # another session's file being written
    writing.write_text("{}")
    for i in range(10):
        newest = event_points.publish({"n": i, "pad": "x" * 1_000}, served)
    left = sorted(path.name for path in tmp_path.glob("[0-9a-f]*.json"))
    assert newest.rsplit("/", 1)[1] in left
    assert 1 <= len(left) <= 2  # whatever their age
    assert writing.is_file()


def test_a_map_that_cannot_publish_carries_its_events(
    big: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(event_points, "INLINE_LIMIT", 1_000)
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    chosen = event_columns.selection(big, big.end, days=None, types=None)
    data = event_points.layer_data(
        big, chosen, served=event_points.Served(blocked / "events", "events")
    )
    assert "url" not in data
    assert data["n"] == len(chosen)


@pytest.mark.browser
def test_many_convoy_dots_write_their_style_once_and_each_is_drawn_with_it(
    big: Scenario, offline_page: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(elements, "SHARED_FROM", 100)
    view = mapview.MapView(at=big.start + timedelta(days=15), layers=frozenset({"convoys"}))
    html = export.page_html(export.Snapshot(big, view), still=False)
    dots = html.count('"t":"circle"')
    assert dots >= elements.SHARED_FROM
    assert html.count('"fillColor":"#009E73"') == 1
    page_file = tmp_path / "page.html"
    page_file.write_text(html, "utf-8")
    page = offline_page.page
    page.goto(page_file.as_uri(), wait_until="load")
    page.wait_for_function("window.corridorReady === true")
    drawn = page.evaluate(
        f"(() => {{ var styles = new Set(), n = 0; {MAP}.eachLayer(layer => {{"
        " if (layer instanceof L.CircleMarker) { n += 1;"
        " styles.add(layer.options.fillColor + ' ' + layer.options.radius); } });"
        " return [n, Array.from(styles)]; })()"
    )
    assert drawn == [dots, ["#009E73 5"]]
    assert offline_page.errors == []
