"""The layered map as HTML: nothing from the network, layer toggles, time, filters, escaping."""

from __future__ import annotations

import base64
import json
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import folium.plugins
import pytest
import tomli_w
from playwright.sync_api import Browser, Route

from geo import mapview, messages, timeline
from geo.errors import AssetsMissingError
from geo.mapview import ALL_LAYERS, LAYER_LABELS, MapView, assets, basemap
from geo.mapview.layers import arabic_names
from geo.mapview.legend import ROUTE_LEGEND
from geo.mapview.place_labels import LabelLanguage, zone_arabic
from geo.records import Confidence, ConvoyStatus, Scenario
from geo.scenario import read_scenario
from geo.timeline import ConvoyState

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "scenarios" / "aleppo-2016-12"
FIRST = "First convoy: ambulances and buses"  # convoy-1: 12:30 to 13:35 UTC
ZONE_KEYS = [key for key in ALL_LAYERS if key.startswith("zones-")]


def utc(hour: int, minute: int = 0, day: int = 15) -> datetime:
    return datetime(2016, 12, day, hour, minute, tzinfo=UTC)


@pytest.fixture(scope="module")
def shipped() -> Scenario:
    return read_scenario(SHIPPED)


def render(scenario: Scenario, view: MapView) -> str:
    return str(mapview.build_map(scenario, view).get_root().render())


# --- reading the rendered page -------------------------------------------------------------

ITEMS = re.compile(r"^\s*\}\)\((\w+), (\[.*\])\);\s*$", re.MULTILINE)
OVERLAYS = re.compile(r"overlays\s*:\s*\{(.*?)\}", re.DOTALL)
OVERLAY_ENTRY = re.compile(r'("(?:[^"\\]|\\.)*")\s*:\s*(\w+)')
PANEL = re.compile(
    r'\}\)\(map_\w+, "(?:top|bottom)(?:left|right)", "(corridor-[a-z]+)", ("(?:[^"\\]|\\.)*"),'
)
"""A Panel's call: its CSS class and its HTML as a JSON string."""
RANDOM_ID = re.compile(r"_[0-9a-f]{32}")


@dataclass(frozen=True)
class Overlay:
    """One overlay of the rendered map: its Leaflet variable, whether it starts on, its items."""

    name: str
    shown: bool
    items: list[dict[str, Any]]

    def tips(self) -> list[str]:
        return [item["tip"] for item in self.items if "tip" in item]


def overlays(html: str) -> dict[str, Overlay]:
    """The layer control's overlays by layer key, read from the page's script."""
    block = OVERLAYS.search(html)
    assert block, "no layer control in the page"
    items = {name: json.loads(data) for name, data in ITEMS.findall(html)}
    keys = {label: key for key, label in LAYER_LABELS.items()}
    found = {}
    for label, name in OVERLAY_ENTRY.findall(block[1]):
        shown = re.search(rf"\b{name}\.addTo\(map_\w+\)", html) is not None
        found[keys[json.loads(label)]] = Overlay(name, shown, items.get(name, []))
    return found


def panel(html: str, css_class: str) -> str:
    """The HTML of a title or legend panel (a JSON string in the page's script)."""
    return next(json.loads(text) for name, text in PANEL.findall(html) if name == css_class)


def texts(html: str) -> list[str]:
    """Every tooltip, popup and panel as the HTML Leaflet will insert (decoded from JSON)."""
    found = [text for _, text in PANEL.findall(html)]
    found = [json.loads(text) for text in found]
    for _, data in ITEMS.findall(html):
        for item in json.loads(data):
            found += [item.get("tip", ""), item.get("pop", "")]
    return found


def convoy_items(html: str, label: str) -> list[dict[str, Any]]:
    return [i for i in overlays(html)["routes"].items if i.get("tip", "").startswith(label + " — ")]


# --- nothing from the network --------------------------------------------------------------


REMOTE_TAG = re.compile(
    r"<(?:script|link)\b[^>]*\b(?:src|href)\s*=\s*['\"]?\s*(?:https?:)?//", re.I
)


def loaded(html: str) -> list[str]:
    """The src of every script and the href of every stylesheet link, in page order."""
    tags = re.findall(r"<(?:script|link)\b[^>]*>", html)
    found = (re.search(r'\b(?:src|href)\s*=\s*"([^"]*)"', tag) for tag in tags)
    return [match[1] for match in found if match]


def test_no_script_or_stylesheet_is_loaded_from_the_network(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(13)))
    assert not REMOTE_TAG.search(html)
    assert "@import" not in html
    assert "tile.openstreetmap.org" not in html
    sources = loaded(html)
    assert len(sources) == 2  # one script bundle and one stylesheet bundle
    for source in sources:
        kind, _, body = source.partition(";base64,")
        assert kind in ("data:text/javascript", "data:text/css"), source[:60]
        text = base64.b64decode(body).decode("utf-8")
        if kind == "data:text/css":  # a stylesheet's images are inlined too
            assert not re.search(r"""url\(\s*['"]?\s*(?:https?:)?//""", text)
            assert "@import" not in text
    script = base64.b64decode(sources[0].partition(",")[2]).decode()
    assert script.index("Leaflet 1.9") < script.index("antPath") < script.index("CORRIDOR_BASEMAP")
    assert "control.fullscreen" in script.lower()
    assert "measure" in script


def test_the_online_base_is_only_there_when_asked_for(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(13), base="osm"))
    assert "tile.openstreetmap.org" in html  # tiles, asked for; never code or styles
    assert not REMOTE_TAG.search(html)
    assert all(source.startswith("data:") for source in loaded(html))


def test_map_options_include_max_and_min_zoom(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(13)))
    options = re.search(r"L\.map\(\s*\"map_\w+\",\s*\{(.*?)\}\s*\);", html, re.DOTALL)
    assert options
    assert '"zoom": 9' in options[1]
    assert re.search(r'"maxZoom": 18\b', options[1])
    assert re.search(r'"minZoom": 4\b', options[1])


def test_the_dashboards_map_loads_the_lean_bundle_with_leaflets_rules_inline(
    shipped: Scenario, tmp_path: Path
) -> None:
    base = "../../app/static/vendor"
    folium_map = mapview.build_map(shipped, MapView(at=utc(13)), asset_url=base)
    html = str(folium_map.get_root().render())
    assert loaded(html) == [f"{base}/{assets.LEAN_JS}", f"{base}/{assets.LEAN_CSS}"]
    head = html[: html.index("</head>")]
    assert ".leaflet-top" in head  # laid out before the stylesheet link has loaded
    assets.publish(tmp_path)
    lean = (tmp_path / assets.LEAN_JS).read_text(encoding="utf-8")
    full = (tmp_path / assets.BUNDLE_JS).read_text(encoding="utf-8")
    assert "L.Control.Draw" not in lean
    assert "L.Control.Draw" in full
    assert len(lean) < len(full) - 90_000


@pytest.fixture
def no_node_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(assets, "MODULES", tmp_path / "node_modules")
    clear = (assets.bundle.cache_clear, assets.bundle_uri.cache_clear)
    for function in clear:
        function()
    yield tmp_path / "node_modules"
    for function in clear:
        function()


@pytest.mark.usefixtures("no_node_modules")
def test_missing_assets_are_reported_not_fetched(shipped: Scenario) -> None:
    with pytest.raises(AssetsMissingError, match=r"leaflet/dist/leaflet\.js is missing.*npm ci"):
        mapview.build_map(shipped, MapView(at=utc(13)))


def test_publishing_without_node_modules_fails(no_node_modules: Path, tmp_path: Path) -> None:
    with pytest.raises(AssetsMissingError, match=r"map asset leaflet/.* is missing"):
        assets.publish(tmp_path / "static")


def test_an_element_with_unknown_cdn_links_is_refused() -> None:
    with pytest.raises(AssetsMissingError, match="MiniMap would load its code from a CDN"):
        assets.needed(folium.plugins.MiniMap())


def test_rendering_is_deterministic_but_for_folium_ids(shipped: Scenario) -> None:
    view = MapView(at=utc(13))
    first, second = render(shipped, view), render(shipped, view)
    assert RANDOM_ID.sub("_ID", first) == RANDOM_ID.sub("_ID", second)
    routes_only = render(shipped, MapView(at=utc(13), layers=frozenset({"routes"})))
    assert RANDOM_ID.sub("_ID", routes_only) != RANDOM_ID.sub("_ID", first)


# --- layer toggles -------------------------------------------------------------------------


def legend_rows(html: str) -> list[str]:
    """The labels of the legend panel's symbols (each a cell of a wrapping line)."""
    legend = panel(html, "corridor-legend")
    return re.findall(r'<span class="corridor-legend-cell"><svg.*?</svg>(.*?)</span>', legend)


def test_every_layer_is_in_the_layer_control_and_on_by_default(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(13)))
    found = overlays(html)
    assert list(found) == list(ALL_LAYERS)
    assert [key for key, overlay in found.items() if not overlay.shown] == ["risk"]
    assert found["risk"].items == []  # not analysed unless asked for
    for key in ("zones-government", "zones-opposition", "zones-besieged"):
        assert found[key].items, key
    assert f'"zones-government": {found["zones-government"].name}' in html  # _LayerSync
    rows = legend_rows(html)
    for label in ("Government-held", "Opposition-held", "Besieged"):
        assert label in rows
    assert {"under way", "not yet left or planned"} <= set(rows)


def test_unticked_layers_are_rendered_hidden_and_left_out_of_the_legend(
    shipped: Scenario,
) -> None:
    html = render(shipped, MapView(at=utc(13), layers=frozenset({"routes"})))
    found = overlays(html)
    assert list(found) == list(ALL_LAYERS)  # all still in the layer control, to tick back on
    assert {key for key, overlay in found.items() if overlay.shown} == {"routes"}
    assert found["zones-government"].items  # drawn, only not added to the map
    rows = legend_rows(html)
    assert rows
    routes = {label for _, label in ROUTE_LEGEND}
    assert set(rows) <= routes | {"dashed: approximate", "destination, origin not reported"}
    assert not set(rows) & {LAYER_LABELS[key] for key in ZONE_KEYS}
    nothing = MapView(at=utc(13), layers=frozenset())
    assert "corridor-legend-cell" not in mapview.legend_html(shipped, nothing)


def absent(html: str) -> list[str]:
    """The legend's notes on layers with nothing at the moment."""
    legend = panel(html, "corridor-legend")
    return re.findall(r'<div class="corridor-legend-absent" role="note">(.*?)</div>', legend)


def test_a_moment_without_zones_says_so_on_the_map(shipped: Scenario) -> None:
    before = render(shipped, MapView(at=shipped.start))  # zones are valid on 15 Dec only
    assert absent(before)[0] == (
        "Government-held, Opposition-held and Besieged zones: none at this moment "
        "(valid 15 Dec 2016 00:00 to 16 Dec 00:00 EET)"
    )
    assert not {"Government-held", "Opposition-held", "Besieged"} & set(legend_rows(before))
    assert not any("zones" in note for note in absent(render(shipped, MapView(at=utc(13)))))


def test_a_layer_switched_off_or_present_has_no_note(shipped: Scenario) -> None:
    only_routes = MapView(at=shipped.start, layers=frozenset({"routes"}))
    assert absent(render(shipped, only_routes)) == []
    late = render(shipped, MapView(at=utc(16)))  # every figure reported by then
    assert not any(note.startswith("Reported figures") for note in absent(late))


def test_figures_not_yet_reported_are_announced(shipped: Scenario) -> None:
    notes = absent(render(shipped, MapView(at=utc(13))))
    assert notes == ["Reported figures: none yet (the first at 15 Dec 17:00 EET)"]


# --- the moment ----------------------------------------------------------------------------


def test_a_convoy_not_yet_departed_is_dotted_without_a_marker(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(10)))
    lines = convoy_items(html, FIRST)
    assert lines
    assert {item["t"] for item in lines} == {"line"}
    assert {item["tip"] for item in lines} == {f"{FIRST} — not departed"}
    assert {item["o"]["dashArray"] for item in lines} == {mapview.PLANNED_DASH}
    assert not any(FIRST in tip for tip in overlays(html)["convoys"].tips())
    assert not [i for i in overlays(html)["routes"].items if i["t"] == "ant"]


def test_a_convoy_under_way_moves_and_has_a_marker(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(13)))
    lines = convoy_items(html, FIRST)
    assert {item["t"] for item in lines} == {"ant"}
    assert len(lines) == 2  # one per leg
    markers = [tip for tip in overlays(html)["convoys"].tips() if tip.startswith(FIRST)]
    assert markers == [f"{FIRST} — under way, about 46% of the route"]


def test_an_arrived_convoy_is_a_plain_line(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(16)))
    lines = convoy_items(html, FIRST)
    assert {item["t"] for item in lines} == {"line"}
    assert {item["tip"] for item in lines} == {f"{FIRST} — arrived"}
    assert {item["o"]["color"] for item in lines} == {mapview.STATE_COLOURS[ConvoyState.ARRIVED]}
    assert not any(FIRST in tip for tip in overlays(html)["convoys"].tips())
    ants = [i["tip"] for i in overlays(html)["routes"].items if i["t"] == "ant"]
    assert ants  # the third convoy is under way at 16:00
    assert not [tip for tip in ants if tip.startswith(FIRST)]


# --- filters -------------------------------------------------------------------------------


def route_labels(html: str) -> set[str]:
    """The convoys whose route is drawn (not those drawn at their destination alone)."""
    tips = [i.get("tip", "") for i in overlays(html)["routes"].items if i["t"] != "icon"]
    return {tip.split(" — ")[0] for tip in tips if " — " in tip}


def labels(scenario: Scenario, *ids: str) -> set[str]:
    return {c.label for c in scenario.convoys if c.id in ids}


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        (MapView(at=utc(13)), ["convoy-1", "convoy-2", "convoy-3", "onward-to-idlib"]),
        (
            MapView(at=utc(13), statuses=frozenset({ConvoyStatus.ARRIVED})),
            ["convoy-1", "convoy-2"],
        ),
        (MapView(at=utc(13), confidences=frozenset({Confidence.HIGH})), ["convoy-1"]),
        (MapView(at=utc(13), confidences=frozenset({Confidence.MEDIUM})), []),
        (
            MapView(at=utc(13), organisations=frozenset({""})),
            ["convoy-2", "convoy-3", "onward-to-idlib"],
        ),
    ],
)
def test_filters_leave_only_matching_routes(
    shipped: Scenario, view: MapView, expected: list[str]
) -> None:
    assert route_labels(render(shipped, view)) == labels(shipped, *expected)


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        (
            MapView(at=utc(13)),
            [
                "attempt-2016-12-14",
                "convoy-1",
                "convoy-2",
                "convoy-3",
                "fuaa-kafraya-vehicles",
                "onward-to-idlib",
            ],
        ),
        (
            MapView(at=utc(13), statuses=frozenset({ConvoyStatus.UNDER_WAY})),
            ["convoy-3", "fuaa-kafraya-vehicles"],
        ),
        (
            MapView(
                at=utc(13),
                statuses=frozenset({ConvoyStatus.ARRIVED, ConvoyStatus.UNDER_WAY}),
                confidences=frozenset({Confidence.LOW}),
            ),
            ["convoy-2", "convoy-3"],
        ),
        (
            MapView(
                at=utc(13),
                organisations=frozenset(
                    {"International Committee of the Red Cross (ICRC) and Syrian Arab Red Crescent"}
                ),
            ),
            ["convoy-1"],
        ),
        (MapView(at=utc(13), statuses=frozenset()), []),
    ],
)
def test_visible_convoys(shipped: Scenario, view: MapView, expected: list[str]) -> None:
    assert [c.id for c in mapview.visible_convoys(shipped, view)] == expected


def test_a_filtered_out_convoy_has_no_marker(shipped: Scenario) -> None:
    view = MapView(at=utc(13), confidences=frozenset({Confidence.LOW}))
    assert overlays(render(shipped, view))["convoys"].items == []


def test_the_selected_convoy_gets_a_halo_outside_the_layer_control(shipped: Scenario) -> None:
    plain = render(shipped, MapView(at=utc(13)))
    selected = render(shipped, MapView(at=utc(13), selected="convoy-1"))
    halo = '"color":"#F0E442"'
    assert halo not in plain
    assert halo in selected
    assert list(overlays(selected)) == list(ALL_LAYERS)


# --- clicks and the layer control's answer -------------------------------------------------


def test_convoy_near_finds_the_convoy_on_its_route(shipped: Scenario) -> None:
    view = MapView(at=utc(13))
    on_the_route = (36.16, 37.095)  # a vertex of convoy-1's second leg
    assert mapview.convoy_near(shipped, view, *on_the_route) == "convoy-1"
    beside = (36.175, 37.095)  # about 1.6 km north of that vertex (the line is nearer still)
    assert mapview.convoy_near(shipped, view, *beside) == "convoy-1"
    assert mapview.convoy_near(shipped, view, *beside, within_km=1.5) is None
    # convoys 2 and 3 share the road: with convoy-1 filtered out, the click finds the next one
    low = MapView(at=utc(13), confidences=frozenset({Confidence.LOW}))
    assert mapview.convoy_near(shipped, low, *on_the_route) == "convoy-2"


def test_convoy_near_finds_nothing_far_away(shipped: Scenario) -> None:
    view = MapView(at=utc(13))
    assert mapview.convoy_near(shipped, view, 33.51, 36.29) is None  # Damascus
    assert mapview.convoy_near(shipped, view, 36.16, 37.095, within_km=0.0) == "convoy-1"
    assert mapview.convoy_near(shipped, view, 36.25, 37.095) is None  # about 10 km north
    nothing = MapView(at=utc(13), statuses=frozenset())
    assert mapview.convoy_near(shipped, nothing, 36.16, 37.095) is None


def test_a_click_selects_the_convoy_its_tooltip_names(shipped: Scenario) -> None:
    view = MapView(at=utc(13))
    on_the_route = (36.16, 37.095)
    route_tip = "Second convoy (followed the first) — not departed"
    assert mapview.convoy_clicked(shipped, view, *on_the_route, route_tip, 11) == "convoy-2"
    marker_tip = "First convoy: ambulances and buses — under way, about 46% of the route"
    assert mapview.convoy_clicked(shipped, view, *on_the_route, marker_tip, 11) == "convoy-1"
    cross_tip = "Collapsed first evacuation attempt (Wed 14 Dec, morning): cancelled"
    picked = mapview.convoy_clicked(shipped, view, *on_the_route, cross_tip, 11)
    assert picked == "attempt-2016-12-14"


def test_a_click_on_a_zone_or_place_beside_a_route_selects_nothing(shipped: Scenario) -> None:
    view = MapView(at=utc(13))
    aleppo = (36.20124, 37.16117)  # under 3 km from convoy-1's start
    for tip in ("Aleppo (city)", "Government-held Aleppo (government)"):
        assert mapview.convoy_clicked(shipped, view, *aleppo, tip, 9) is None


def test_without_a_tooltip_a_click_takes_the_convoy_within_a_few_pixels(
    shipped: Scenario,
) -> None:
    view = MapView(at=utc(13))
    beside = (36.175, 37.095)  # about 1.6 km north of convoy-1's second leg
    assert mapview.convoy_clicked(shipped, view, *beside, None, 9) == "convoy-1"  # 12 px: 2.9 km
    assert mapview.convoy_clicked(shipped, view, *beside, None, 13) is None  # 12 px: 180 m


def test_selected_layers_from_streamlit_folium() -> None:
    corridor = [
        {"name": "routes", "url": "corridor"},
        {"name": "zones-besieged", "url": "corridor"},
    ]
    wms = [{"name": "roads", "url": "https://example.org/wms"}]
    assert mapview.selected_layers(None) is None
    assert mapview.selected_layers(wms) is None  # only WMS layers: nothing known of ours
    assert mapview.selected_layers(corridor) == {"routes", "zones-besieged"}
    assert mapview.selected_layers(corridor + wms) == {"routes", "zones-besieged"}
    assert mapview.selected_layers([]) == frozenset()  # every overlay unticked
    unknown = [{"name": "not-a-layer", "url": "corridor"}, "junk", {"url": "corridor"}]
    assert mapview.selected_layers(corridor + unknown) == {"routes", "zones-besieged"}


def test_figure_radius_grows_with_the_area() -> None:
    assert mapview.figure_radius(0) == 3.0
    assert mapview.figure_radius(4000) - 3.0 == pytest.approx(2 * (mapview.figure_radius(1000) - 3))
    assert mapview.figure_radius(10**9) == 45.0


# --- user text is escaped ------------------------------------------------------------------

PAYLOADS = (
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "`${alert(1)}`",
    "javascript:alert(1)",
    "{{ 7*7 }}",
)
EVIL = " ".join(PAYLOADS)
RAW = ("<script>alert", "<img src=x", "<svg onload", "${alert", "{{ 7*7 }}")


@pytest.fixture
def evil_scenario(tiny_copy: Path, edit_csv: Callable[..., None]) -> Scenario:
    edit_csv("places.csv", "aleppo", name=f"Aleppo {EVIL}", quote=EVIL)
    edit_csv("convoys.csv", "c1", label=f"First {EVIL}", quote=EVIL, organisation=EVIL)
    edit_csv("figures.csv", "f2", what=f"people {EVIL}", quote=EVIL)
    zones = json.loads((tiny_copy / "zones.geojson").read_text(encoding="utf-8"))
    zone = next(f for f in zones["features"] if f["properties"]["id"] == "z1")
    zone["properties"].update(name=f"Zone {EVIL}", holder=EVIL, quote=EVIL)
    (tiny_copy / "zones.geojson").write_text(json.dumps(zones), encoding="utf-8")
    meta = tomllib.loads((tiny_copy / "scenario.toml").read_text(encoding="utf-8"))
    meta["title"] = f"Tiny {EVIL}"
    meta["sources"][1]["title"] = "javascript:alert(1)"  # (as a url it is refused)
    (tiny_copy / "scenario.toml").write_text(tomli_w.dumps(meta), encoding="utf-8")
    return read_scenario(tiny_copy)


EVIL_AT = utc(16, 30)  # c1 arrived; f2 reported; zones valid; c2 under way (no route)
EVIL_UNDER_WAY = utc(13)  # c1 under way: ant path and marker


def test_user_text_never_reaches_the_page_raw(evil_scenario: Scenario, tiny_dir: Path) -> None:
    clean = read_scenario(tiny_dir)
    for at in (EVIL_AT, EVIL_UNDER_WAY):
        html = render(evil_scenario, MapView(at=at))
        for needle in RAW:
            assert needle not in html, needle
        assert not re.search(r"""(?:href|src)\s*=\s*["']?\s*javascript:""", html)
        # backquotes and "${" only where folium's own template literals put them
        assert html.count("`") == render(clean, MapView(at=at)).count("`")
        decoded = "\n".join(texts(html))
        for needle in (*RAW, "`", "onerror=alert(1)>"):
            assert needle not in decoded, needle
        assert "&lt;img src=x onerror=alert(1)&gt;" in decoded
        assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in decoded
        assert "&quot;&gt;&lt;svg onload=alert(1)&gt;" in decoded
        assert "&#96;&#36;&#123;alert(1)&#125;&#96;" in decoded
        assert "&#123;&#123; 7*7 &#125;&#125;" in decoded
        assert "Zone &lt;/script&gt;" in decoded  # zone name (tooltip and popup)
        assert "Tiny &lt;/script&gt;" in panel(html, "corridor-title")


OPEN_EVERYTHING = """
() => {
    const shown = [];
    const targets = Array.from(document.querySelectorAll('.leaflet-interactive'));
    for (const target of targets) {
        const box = target.getBoundingClientRect();
        const at = {bubbles: true, cancelable: true, view: window,
                    clientX: box.x + box.width / 2, clientY: box.y + box.height / 2};
        target.dispatchEvent(new MouseEvent('mouseover', at));
        target.dispatchEvent(new MouseEvent('click', at));
        document.querySelectorAll('.leaflet-popup-content, .leaflet-tooltip')
            .forEach((element) => shown.push(element.textContent));
        target.dispatchEvent(new MouseEvent('mouseout', at));
    }
    return {targets: targets.length, shown: shown};
}
"""


@pytest.mark.browser
@pytest.mark.parametrize("at", [EVIL_AT, EVIL_UNDER_WAY], ids=["arrived", "under-way"])
def test_popups_with_hostile_text_run_nothing_in_chromium(
    evil_scenario: Scenario, browser: Browser, tmp_path: Path, at: datetime
) -> None:
    page_file = tmp_path / "map.html"
    page_file.write_text(render(evil_scenario, MapView(at=at)), encoding="utf-8")
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    dialogs: list[str] = []
    errors: list[str] = []
    blocked: list[str] = []

    def only_local(route: Route) -> None:
        if route.request.url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_local)
    page = context.new_page()
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(page_file.as_uri(), wait_until="load")
        page.wait_for_function(
            "() => document.querySelector('.leaflet-container[data-corridor-layers]') !== null"
            " && document.querySelectorAll('.leaflet-interactive').length > 0",
            timeout=15_000,
        )
        result = page.evaluate(OPEN_EVERYTHING)
        # an <img onerror> would fire once its (failed) load settles: let that happen
        page.evaluate("() => new Promise((done) => setTimeout(done, 300))")
        assert dialogs == []
        assert errors == []
        assert blocked == []
        assert page.locator("img[src='x'], svg[onload]").count() == 0
        assert page.locator("[href^='javascript:'], [src^='javascript:']").count() == 0
        assert result["targets"] >= 5
        shown = "\n".join(result["shown"])
        for payload in PAYLOADS:
            assert payload in shown  # shown as the characters typed
    finally:
        context.close()


def test_times_give_the_utc_date_when_it_is_another_day() -> None:
    from geo.safe_html import times

    midnight = datetime(2016, 12, 15, 0, 0, tzinfo=ZoneInfo("Asia/Damascus"))
    assert times(midnight, "Asia/Damascus") == "15 Dec 2016 00:00 EET (14 Dec 22:00 UTC)"
    afternoon = datetime(2016, 12, 15, 20, 0, tzinfo=timezone(timedelta(hours=2)))
    assert times(afternoon, "Asia/Damascus") == "15 Dec 2016 20:00 EET (18:00 UTC)"


def test_a_convoy_card_explains_a_state_that_differs_from_its_status(shipped: Scenario) -> None:
    convoy = next(c for c in shipped.convoys if c.id == "convoy-2")  # arrived, left at 14:00 UTC
    early = timeline.convoy_at(shipped, convoy, utc(13))
    card = mapview.convoy_card(early, shipped)
    assert '<th>At this moment</th><td dir="auto">not departed</td>' in card
    assert '<th>Latest reported status</th><td dir="auto">arrived</td>' in card
    assert "the latest report on it says arrived" in card
    done = timeline.convoy_at(shipped, convoy, utc(18))
    assert mapview.state_note(done) == ""


def test_the_legend_names_every_kind_of_place_shown(shipped: Scenario) -> None:
    legend = mapview.legend_html(shipped, MapView(at=utc(13)))
    for kind in ("city", "village", "district", "crossing", "province"):
        assert f"{kind}</span>" in legend
    assert "town</span>" not in legend  # the shipped scenario has no town


def test_a_place_is_labelled_beside_its_symbol_with_a_short_name() -> None:
    assert mapview.label_text("East Aleppo (rebel-held pocket)") == "East Aleppo"
    long_name = "Crossing into government-held southern Aleppo (district not named)"
    assert mapview.label_text(long_name) == "Crossing into government-held…"
    assert len(mapview.label_text("x" * 80)) <= 31


def place_labels(html: str) -> dict[str, str]:
    """Each place's tooltip → the label HTML printed beside its symbol."""
    found = {}
    for item in overlays(html)["places"].items:
        label = re.search(r'<span class="corridor-label"[^>]*>(.*?)</span>$', item["i"]["html"])
        assert label, item
        found[item["tip"]] = label[1]
    return found


def test_place_names_are_printed_in_the_language_asked_for(shipped: Scenario) -> None:
    english = place_labels(render(shipped, MapView(at=utc(13))))
    assert english["Aleppo (city)"] == "Aleppo"
    arabic = place_labels(render(shipped, MapView(at=utc(13), labels=LabelLanguage.ARABIC)))
    assert arabic["حلب (city)"] == '<span lang="ar" dir="rtl">حلب</span>'
    both = place_labels(render(shipped, MapView(at=utc(13), labels=LabelLanguage.BOTH)))
    assert both["Aleppo · حلب (city)"] == 'Aleppo<br><span lang="ar" dir="rtl">حلب</span>'
    # a place no gazetteer names in Arabic keeps its English name
    assert any(tip.startswith("Opposition territory") for tip in arabic)


def test_an_arabic_popup_gives_both_names_and_reads_in_its_own_direction(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(13), labels=LabelLanguage.ARABIC))
    popup = next(i["pop"] for i in overlays(html)["places"].items if i["tip"] == "حلب (city)")
    assert '<b dir="auto">حلب</b>' in popup
    assert '<th>Arabic</th><td dir="auto">حلب</td>' in popup


def test_base_map_towns_carry_their_arabic_names() -> None:
    script = basemap.script()
    assert '"Aleppo","حلب"]' in script
    assert '"Tartus","طرطوس"]' in script


def test_a_convoy_headed_somewhere_from_an_unknown_origin_is_drawn_at_its_destination(
    shipped: Scenario,
) -> None:
    """'Nearly 30 vehicles were headed to Fuaa and Kafraya': no origin, no route, yet on the
    map (a ring of arrows on the enclave), with its quote as the source wrote it."""
    html = render(shipped, MapView(at=utc(13)))
    [ring] = [
        item
        for item in overlays(html)["routes"].items
        if "Nearly 30 vehicles" in item.get("tip", "")
    ]
    fuaa = shipped.place("fuaa-kafraya")
    assert ring["t"] == "icon"
    assert ring["ll"] == pytest.approx([fuaa.latitude, fuaa.longitude], abs=1e-4)
    assert ring["tip"].endswith("origin not reported")
    assert "nearly 30 vehicles were headed to Fuaa and Kafraya" in ring["pop"]
    assert "destination, origin not reported" in legend_rows(html)
    without = MapView(at=utc(13), layers=frozenset({"convoys"}))
    assert "destination" not in " ".join(legend_rows(render(shipped, without)))


def test_popups_name_their_sources_by_title_not_by_id(shipped: Scenario) -> None:
    html = render(shipped, MapView(at=utc(13)))
    seed = next(s for s in shipped.sources if s.id == "seed-report")
    popups = [item.get("pop", "") for o in overlays(html).values() for item in o.items]
    cited = [pop for pop in popups if "Source" in pop]
    assert cited
    assert any(seed.title in pop for pop in cited)
    assert not any(">seed-report<" in pop for pop in cited)


# --- the map in the reader's language ------------------------------------------------------


def test_an_arabic_map_says_its_title_legend_layers_and_popups_in_arabic(
    shipped: Scenario,
) -> None:
    html = render(shipped, MapView(at=utc(13), language="ar"))
    title, legend = panel(html, "corridor-title"), panel(html, "corridor-legend")
    assert title.startswith('<div dir="rtl">')
    # the moment kept in its own direction among the Arabic words
    assert "اعتبارًا من \u206815 Dec 2016 15:00 EET (13:00 UTC)\u2069" in title
    assert legend.startswith('<div dir="rtl"><button type="button" class="corridor-fold"')
    assert "مفتاح الخريطة" in legend
    assert "قافلة، موقع مُقدَّر" in legend
    assert "Legend" not in legend
    (convoy,) = [
        item for item in overlays_by_label(html, "ar")["convoys"] if item["tip"].startswith(FIRST)
    ]
    assert convoy["tip"].startswith(f"{FIRST} — في الطريق، نحو")
    assert convoy["pop"].startswith('<div class="corridor-card" dir="rtl"><b dir="auto">First')
    assert '<th>في هذه اللحظة</th><td dir="auto">في الطريق</td>' in convoy["pop"]
    english = render(shipped, MapView(at=utc(13)))
    assert "At this moment" in english
    assert "في هذه اللحظة" not in english


def overlays_by_label(html: str, language: str) -> dict[str, list[dict[str, Any]]]:
    """The items of each overlay, its layer named in `language` in the layer control."""
    block = OVERLAYS.search(html)
    assert block, "no layer control in the page"
    items = {name: json.loads(data) for name, data in ITEMS.findall(html)}
    keys = {messages.say(language, label): key for key, label in LAYER_LABELS.items()}
    entries = OVERLAY_ENTRY.findall(block[1])
    return {keys[json.loads(label)]: items.get(name, []) for label, name in entries}


def test_a_zone_in_a_route_risk_popup_follows_the_place_name_choice(shipped: Scenario) -> None:
    """The nearest besieged zone (and a reason naming one) in its place's Arabic name."""
    pocket = "Remaining opposition pocket in east Aleppo (encircled)"
    risk = frozenset({"risk", "routes"})
    english = render(shipped, MapView(at=utc(13), layers=risk, language="ar"))
    popups = [item.get("pop", "") for item in overlays_by_label(english, "ar")["risk"]]
    assert any(pocket in pop for pop in popups)
    view = MapView(at=utc(13), layers=risk, language="ar", labels=LabelLanguage.ARABIC)
    popups = [
        item.get("pop", "") for item in overlays_by_label(render(shipped, view), "ar")["risk"]
    ]
    assert any("حلب الشرقية (0.0 km)" in pop for pop in popups)
    assert not any(pocket in pop for pop in popups)
    enclave = next(zone for zone in shipped.zones if zone.id == "fuaa-kafraya-enclave")
    arabic = arabic_names(shipped)
    assert zone_arabic(enclave, shipped.places, arabic) == "الفوعة وكفريا"
    assert zone_arabic(enclave, [], arabic) == ""
