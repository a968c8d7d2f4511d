"""The New scenario page in the system Chromium: a pasted report becomes a scenario on the map."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import dashboard_page, streamlit_app
from playwright.sync_api import Browser, Page, expect
from test_browser import MAP_FRAME
from test_browser_edit import settled

from geo.scenario import read_scenario
from geo.settings import Settings
from geo.workspace import Workspace

pytestmark = pytest.mark.browser
REPORT = (
    "ADRE, Chad (Reuters) - Thousands of people fled El Geneina in Sudan's West Darfur state "
    "into Chad this week, crossing at Adre, aid workers said."
)
TITLE = "El Geneina to Adre, June 2023"


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    found = Workspace(tmp_path / "workspace.gpkg")
    found.save(read_scenario(Settings.from_environment().default_scenario_dir))
    return found


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with dashboard_page(browser, request, height=1000) as opened:
        yield opened


def test_a_report_about_sudan_becomes_a_scenario_on_the_dashboard(
    workspace: Workspace, page: Page
) -> None:
    with streamlit_app(workspace.location) as server:
        page.goto(f"{server}/new_scenario", wait_until="domcontentloaded")
        page.get_by_role("heading", name="New scenario").wait_for(timeout=60_000)
        settled(page)
        page.get_by_role("textbox", name="A report to start from (optional)").fill(REPORT)
        page.keyboard.press("Control+Enter")  # (as a hand commits a text area)
        expect(page.get_by_role("textbox", name="Country (ISO code)")).to_have_value(
            "TD", timeout=60_000
        )
        expect(page.get_by_role("textbox", name="Time zone (IANA)")).to_have_value(
            "Africa/Ndjamena"
        )
        settled(page)
        page.get_by_role("textbox", name="Title", exact=True).fill(TITLE)
        page.keyboard.press("Enter")
        settled(page)
        create = page.get_by_role("button", name="Create the scenario")
        expect(create).to_be_enabled(timeout=30_000)
        create.click()
        page.get_by_text("Created El Geneina to Adre").wait_for(timeout=60_000)
        assert "el-geneina-to-adre-june-2023" in workspace.scenario_ids()

        page.goto(server, wait_until="domcontentloaded")
        page.get_by_text("Disclaimer:").first.wait_for(timeout=60_000)
        settled(page)
        page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(
            has_text="Scenario"
        ).first.click()
        page.get_by_role("option", name="el-geneina-to-adre-june-2023").click()
        page.get_by_role("heading", name=TITLE).wait_for(timeout=60_000)
        page.locator(MAP_FRAME).wait_for(timeout=60_000)
        page.wait_for_timeout(3_000)  # (and it stays drawn: no error comes after)
        expect(page.get_by_role("heading", name=TITLE)).to_be_visible()
        assert page.locator("[data-testid='stException']").count() == 0
