"""The dashboard as a person sees it: `streamlit run` on localhost, in the system Chromium."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlparse

import pytest
from conftest import ARTIFACTS, STORES, dashboard_page, shipped_served
from playwright.sync_api import Browser, FrameLocator, Page
from playwright.sync_api import Error as PlaywrightError
from streamlit.proto.BackMsg_pb2 import BackMsg

from geo.mapview import DEFAULT_LAYERS, ZONE_COLOURS
from geo.records import Control

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


@pytest.fixture(scope="module", params=STORES)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with shipped_served(request, tmp_path_factory.mktemp("browser")) as url:
        yield url


@pytest.fixture
def blocked() -> list[str]:
    """The requests the page tried to send off this machine."""
    return []


@pytest.fixture
def page(browser: Browser, blocked: list[str], request: pytest.FixtureRequest) -> Iterator[Page]:
    """A page that may only reach this machine: every other request is aborted and recorded."""
    with dashboard_page(browser, request, blocked=blocked) as opened:
        yield opened


def test_dashboard_renders_the_scenario_offline(
    server: str, page: Page, blocked: list[str]
) -> None:
    page.goto(server, wait_until="domcontentloaded")
    heading = page.get_by_role("heading", name="East Aleppo evacuation, 15 December 2016")
    heading.wait_for(timeout=30_000)
    page.get_by_text("Disclaimer:").wait_for(timeout=30_000)
    first_convoy = page.locator("td[role='gridcell']", has_text="First convoy: ambulances")
    first_convoy.first.wait_for(state="attached", timeout=30_000)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)
    assert page.get_by_role("heading", name="Convoys").is_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    assert blocked == []


MAP_FRAME = "iframe[title='streamlit_folium.st_folium']"
GOVERNMENT_PATH = f"path.leaflet-interactive[stroke='{ZONE_COLOURS[Control.GOVERNMENT]}']"


def test_the_page_settles_after_loading(server: str, page: Page) -> None:
    """The map's reported view goes back to it on the next run; a pixel's difference between
    the two must not make them answer each other for ever (it once reran every 0.7 s). On a
    PostGIS workspace the page also asks every WATCH_SECONDS whether another analyst wrote: a
    rerun of that fragment alone (`is_auto_rerun`, with its fragment id), which is let be."""
    sent: list[tuple[float, BackMsg]] = []

    def note(load: bytes | str) -> None:
        message = BackMsg.FromString(load if isinstance(load, bytes) else load.encode())
        sent.append((time.monotonic(), message))

    page.on("websocket", lambda socket: socket.on("framesent", note))
    page.goto(server, wait_until="domcontentloaded")
    frame = page.frame_locator(MAP_FRAME)
    frame.locator(
        ".leaflet-container[data-corridor-layers] path.leaflet-interactive"
    ).first.wait_for(timeout=60_000)
    page.get_by_text("Disclaimer:").wait_for(timeout=30_000)

    def asked() -> list[tuple[float, BackMsg]]:
        """What the page sent other than the watch's look and Streamlit's heartbeat."""
        return [(at, m) for at, m in sent if not (watch_look(m) or m.HasField("app_heartbeat"))]

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and time.monotonic() - max(at for at, _ in asked()) < 3.0:
        page.wait_for_timeout(250)
    last = max(at for at, _ in asked())
    assert time.monotonic() - last >= 3.0, "the page kept rerunning the script"
    assert len(asked()) <= 6, f"{len(asked())} messages to the server while loading"


def watch_look(message: BackMsg) -> bool:
    """Whether a message is a fragment's rerun on its own timer (`st.fragment(run_every=…)`)."""
    state = message.rerun_script
    return message.HasField("rerun_script") and bool(state.fragment_id) and state.is_auto_rerun


def wait_until(page: Page, condition: Callable[[], T], what: str, seconds: float = 30) -> T:
    """Poll `condition` until it is truthy; fail with `what` after `seconds`.

    Waits with page.wait_for_timeout, not time.sleep: the sync API only takes in the page's
    events (its URL, the request routing) while Playwright is called.
    """
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {seconds} s waiting for {what}")
        page.wait_for_timeout(100)


def url_param(page: Page, name: str) -> str | None:
    values = parse_qs(urlparse(page.url).query).get(name)
    return values[0] if values else None


def corridor_layers(frame: FrameLocator) -> set[str] | None:
    """The overlays the map says are on (its data-corridor-layers), None while it is redrawn."""
    container = frame.locator(".leaflet-container[data-corridor-layers]")
    try:
        if container.count() != 1:
            return None
        value = container.get_attribute("data-corridor-layers", timeout=1_000)
    except PlaywrightError:
        return None
    return set(value.split()) if value is not None else None


@pytest.mark.store_free
def test_map_layer_control_and_sidebar_stay_in_step(
    server: str, page: Page, blocked: list[str]
) -> None:
    page.goto(server, wait_until="domcontentloaded")
    frame = page.frame_locator(MAP_FRAME).last  # the newest while a redraw replaces it
    toggle = frame.locator(".leaflet-control-layers-toggle")
    toggle.wait_for(timeout=60_000)
    overlays = frame.locator(".leaflet-control-layers-overlays")
    assert not overlays.is_visible(), "the layer control should start folded"
    wait_until(page, lambda: corridor_layers(frame) == set(DEFAULT_LAYERS), "every overlay on")
    # the map's first answer (its centre) has reached Python and come back in the URL
    wait_until(page, lambda: url_param(page, "center"), "the map's centre in the URL")
    assert frame.locator(".leaflet-control-layers-overlays input:checked").count() == len(
        DEFAULT_LAYERS
    )
    paths = frame.locator("path.leaflet-interactive")
    before = paths.count()
    assert frame.locator(GOVERNMENT_PATH).count() == 1
    sidebar_box = page.get_by_role("checkbox", name="Government-held")
    assert sidebar_box.is_checked()

    frame.locator(".leaflet-control-layers").hover()  # a folded layer control opens under it
    frame.get_by_role("checkbox", name="Government-held").uncheck()
    wait_until(page, lambda: not sidebar_box.is_checked(), "the sidebar checkbox to follow the map")
    wait_until(
        page,
        lambda: "zones-government" not in (url_param(page, "layers") or "zones-government"),
        "the URL to drop zones-government",
    )
    wait_until(
        page,
        lambda: corridor_layers(frame) == set(DEFAULT_LAYERS) - {"zones-government"},
        "the redrawn map without zones-government",
    )
    wait_until(page, lambda: paths.count() == before - 1, "one polygon fewer")
    assert frame.locator(GOVERNMENT_PATH).count() == 0

    moment = url_param(page, "at")
    assert moment == "2016-12-15T13:00Z"
    page.get_by_role("slider").first.focus()
    page.keyboard.press("ArrowRight")
    wait_until(
        page, lambda: url_param(page, "at") == "2016-12-15T13:15Z", "the URL's at to move on"
    )
    title = frame.locator(".corridor-title-sub", has_text="(13:15 UTC)")
    title.wait_for(timeout=30_000)  # the map was rebuilt for the new moment
    wait_until(page, lambda: corridor_layers(frame) is not None, "the rebuilt map")
    assert corridor_layers(frame) == set(DEFAULT_LAYERS) - {"zones-government"}
    assert not frame.get_by_role(
        "checkbox", name="Government-held", include_hidden=True
    ).is_checked()
    assert frame.locator(GOVERNMENT_PATH).count() == 0
    assert not sidebar_box.is_checked()
    assert "zones-government" not in (url_param(page, "layers") or "")
    assert page.locator("[data-testid='stException']").count() == 0
    assert blocked == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-map.png"))
