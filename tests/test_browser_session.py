"""One state of the session, in the system Chromium: what a hand sets on the dashboard (the
moment, place names, a layer, a zoom) holds when the interface switches language and back,
and when another page is opened and left by the sidebar's links; Arabic holds on every page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import click_until, dashboard_page, shipped_served
from playwright.sync_api import Browser, Locator, Page
from playwright.sync_api import Error as PlaywrightError
from test_browser import MAP_FRAME, corridor_layers, url_param, wait_until
from test_browser_arabic import map_labels, sidebar_direction
from test_browser_view import WINDOW, View, map_box, map_view, open_dashboard, pixels_between

from geo.mapview import DEFAULT_LAYERS

pytestmark = pytest.mark.browser

SIDEBAR = "[data-testid='stSidebar']"
ISOLATES = dict.fromkeys(map(ord, "\u2066\u2067\u2068\u2069"))
"""The marks that keep a date in its own direction among Arabic words."""
BOTH_NAMES = "Aleppo\nحلب"
LAYERS = set(DEFAULT_LAYERS) - {"zones-opposition"}


@pytest.fixture(scope="module", params=["geopackage"])  # (the store plays no part in this)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with shipped_served(request, tmp_path_factory.mktemp("session")) as url:
        yield url


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with dashboard_page(browser, request, **WINDOW) as opened:
        yield opened


def radio(page: Page, index: int) -> Locator:
    """The sidebar's radio group `index` (0: interface, 1: place names, 2: base map)."""
    return page.locator(SIDEBAR).locator("[data-testid='stRadio']").nth(index)


def layer(page: Page, name: str) -> Locator:
    """The sidebar's checkbox of the layer `name`."""
    return page.locator(SIDEBAR).locator("[data-testid='stCheckbox']").filter(has_text=name)


def chosen(group: Locator) -> int:
    """The position of the choice ticked in a radio group (-1 for none)."""
    script = "g => Array.from(g.querySelectorAll('input[type=radio]')).findIndex(i => i.checked)"
    return int(group.evaluate(script))


def slider_moment(page: Page) -> str:
    """The moment the time slider shows, as it names it ("15 Dec 16:00")."""
    shown = page.locator(SIDEBAR).get_by_role("slider").first.get_attribute("aria-valuetext")
    return (shown or "").translate(ISOLATES)


def map_moment(page: Page) -> str:
    """The moment the map's title says it draws ("… (14:00 UTC)"), "" while it is redrawn."""
    title = page.frame_locator(MAP_FRAME).last.locator(".corridor-title-sub")
    try:
        return title.inner_text(timeout=1_000) if title.count() == 1 else ""
    except PlaywrightError:  # (the frame is replaced by a redraw)
        return ""


def agree(page: Page, *, moment: str, utc: str) -> bool:
    """Slider, place names, layers and map all show the state set by hand."""
    frame = page.frame_locator(MAP_FRAME).last
    return (
        slider_moment(page) == moment
        and f"({utc} UTC)" in map_moment(page)
        and chosen(radio(page, 1)) == 2  # English and Arabic
        and BOTH_NAMES in map_labels(page)
        and corridor_layers(frame) == LAYERS
        and url_param(page, "labels") == "both"
        and url_param(page, "at") == f"2016-12-15T{utc}Z"
    )


def same_view(page: Page, zoomed: View) -> bool:
    view = map_view(page)
    return bool(view and view[2] == zoomed[2] and pixels_between(page, view[:2], zoomed[:2]) < 5)


def switch_language(page: Page, name: str, layers_heading: str) -> None:
    """The interface switched by its radio, once the switch has run to its end (the pages'
    names too; a page link clicked while that run is under way, with the cores busy, once
    opened its page in the old language: see the closing note of stop 51)."""
    radio(page, 0).get_by_text(name, exact=True).click()
    page.locator(SIDEBAR).get_by_text(layers_heading, exact=True).wait_for(timeout=30_000)
    first_page = "الخريطة" if name == "العربية" else "Map"
    navigation = page.locator("[data-testid='stSidebarNav'] a").first
    wait_until(page, lambda: navigation.inner_text().strip() == first_page, "the pages renamed")
    page.wait_for_timeout(300)  # (the run the switch started shows its status first)
    page.locator("[data-testid='stStatusWidget']").wait_for(state="hidden", timeout=60_000)


def open_page(page: Page, path: str, title: str) -> None:
    """A page opened by its link in the sidebar's navigation, once its title shows."""
    link = page.locator(f"[data-testid='stSidebarNav'] a[href$='/{path}']")
    click_until(link, page.get_by_role("heading", name=title))


def test_language_and_pages_keep_the_moment_names_layers_and_view(server: str, page: Page) -> None:
    first = open_dashboard(page, server)
    page.locator(SIDEBAR).get_by_role("slider").first.focus()
    for _ in range(4):  # 13:00 to 14:00 UTC, a quarter of an hour a press
        page.keyboard.press("ArrowRight")
    wait_until(page, lambda: url_param(page, "at") == "2016-12-15T14:00Z", "the slider at 14:00")
    radio(page, 1).get_by_text("English and Arabic", exact=True).click()
    layer(page, "Opposition-held").click()  # (its label takes the click)
    wait_until(page, lambda: not layer(page, "Opposition-held").locator("input").is_checked(),
               "the opposition's zones off")  # fmt: skip
    box = map_box(page)
    page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.6)
    page.mouse.wheel(0, -240)
    zoomed = wait_until(
        page, lambda: (view := map_view(page)) and view[2] > first[2] and view, "the wheel zoom"
    )
    wait_until(page, lambda: url_param(page, "zoom") == f"{zoomed[2]:g}", "the zoom in the URL")
    wait_until(page, lambda: agree(page, moment="15 Dec 16:00", utc="14:00"), "the state set")

    switch_language(page, "العربية", "الطبقات")
    wait_until(page, lambda: agree(page, moment="15 Dec 16:00", utc="14:00"), "it in Arabic")
    assert chosen(radio(page, 2)) == 0, "the base map lost its choice"
    assert same_view(page, zoomed)
    switch_language(page, "English", "Layers")
    wait_until(page, lambda: agree(page, moment="15 Dec 16:00", utc="14:00"), "it in English")
    assert same_view(page, zoomed)
    assert not layer(page, "Opposition-held").locator("input").is_checked()

    page.locator(SIDEBAR).get_by_role("slider").first.focus()  # the next touch: one step on
    page.keyboard.press("ArrowRight")
    wait_until(page, lambda: agree(page, moment="15 Dec 16:15", utc="14:15"), "one step on")

    switch_language(page, "العربية", "الطبقات")
    open_page(page, "new_scenario", "سيناريو جديد")  # (its title in Arabic too)
    wait_until(page, lambda: sidebar_direction(page) == "rtl", "the page right to left")
    assert chosen(radio(page, 0)) == 1, "Arabic is not chosen on the new-scenario page"
    open_page(page, "import_and_edit", "استيراد وتحرير")  # (its title in Arabic too)
    wait_until(page, lambda: sidebar_direction(page) == "rtl", "the page right to left")
    assert chosen(radio(page, 0)) == 1, "Arabic is not chosen on the import page"
    open_page(page, "from_a_report", "من تقرير")  # (its title in Arabic too)

    link = page.locator("[data-testid='stSidebarNav'] a").first  # the dashboard's
    click_until(link, page.locator(SIDEBAR).get_by_text("الطبقات", exact=True))
    wait_until(page, lambda: agree(page, moment="15 Dec 16:15", utc="14:15"), "the state kept")
    wait_until(page, lambda: same_view(page, zoomed), "the zoomed view kept")
    assert url_param(page, "lang") == "ar"
    assert sidebar_direction(page) == "rtl"
    assert chosen(radio(page, 0)) == 1
    assert not layer(page, "تحت سيطرة المعارضة").locator("input").is_checked()
    assert page.locator("[data-testid='stException']").count() == 0


def test_a_page_link_clicked_as_the_language_switches_loses_nothing(
    server: str, page: Page
) -> None:
    """A hand that picks Arabic and at once a page link (within 0.1 s, before the switch's
    run has ended): whichever page that lands on, the session keeps its moment, layers and
    language. Before stop 52, the browser drew the sidebar's widgets again from their
    defaults and sent them back as the user's: the moment went to the span's start, every
    layer off, the interface English (4 of 4 tries at 0.1 s in Chromium)."""
    open_dashboard(page, server)
    wait_until(page, lambda: agree_opening(page), "the opening state")
    for attempt in range(3):
        language = "English" if attempt % 2 else "العربية"
        page.wait_for_timeout(300)  # (the last run shows its status first)
        page.locator("[data-testid='stStatusWidget']").wait_for(state="hidden", timeout=60_000)
        radio(page, 0).get_by_text(language, exact=True).click()
        page.wait_for_timeout(100)
        page.locator("[data-testid='stSidebarNav'] a[href$='/new_scenario']").click()
        page.wait_for_timeout(3_000)  # (what a late rerun does, it does within this)
        page.locator("[data-testid='stStatusWidget']").wait_for(state="hidden", timeout=60_000)
        link = page.locator("[data-testid='stSidebarNav'] a").first  # the dashboard's
        click_until(link, page.locator("h1").filter(has_text="East Aleppo"))
        expected = 0 if attempt % 2 else 1
        wait_until(page, lambda e=expected: chosen(radio(page, 0)) == e, f"{language} kept")
        wait_until(page, lambda: agree_opening(page), f"the state kept after {language}")
    assert page.locator("[data-testid='stException']").count() == 0


def agree_opening(page: Page) -> bool:
    """The map at the scenario's opening moment with the default layers, as the URL says."""
    return (
        slider_moment(page) == "15 Dec 15:00"
        and url_param(page, "at") == "2016-12-15T13:00Z"
        and url_param(page, "layers") == ",".join(DEFAULT_LAYERS)
    )
