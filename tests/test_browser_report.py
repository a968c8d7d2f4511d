"""The From a report page in the system Chromium: a report dated outside the scenario's span
gets a question, not a silent add; confirmed, its date, buses and names' ids are kept."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import dashboard_page, settled, streamlit_app
from playwright.sync_api import Browser, Page, expect
from test_browser_new_scenario import tick_first_draft

from geo.scenario import read_scenario
from geo.settings import Settings
from geo.store import Workspace, open_workspace

pytestmark = pytest.mark.browser
SCENARIO = "aleppo-2016-12"
REPORT = (
    "SARAQIB, Syria, 3 March 2025 (Reuters) - Forty buses carrying 300 people left Saraqib for "
    "the Bab al-Hawa crossing on Monday, aid workers said."
)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    found = open_workspace(tmp_path / "workspace.gpkg")
    found.save(read_scenario(Settings.from_environment().default_scenario_dir))
    return found


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with dashboard_page(browser, request, height=1000) as opened:
        yield opened


def test_a_report_dated_outside_the_span_is_asked_about_not_added(
    workspace: Workspace, page: Page
) -> None:
    before = len(workspace.load(SCENARIO).convoys)
    with streamlit_app(workspace.location) as server:
        page.goto(f"{server}/from_a_report", wait_until="domcontentloaded")
        page.get_by_role("heading", name="From a report").wait_for(timeout=60_000)
        settled(page)
        chosen = page.get_by_role("combobox", name="Add the drafts to the scenario")
        expect(chosen).to_have_value(SCENARIO, timeout=30_000)
        page.get_by_label("…or paste it here").fill(REPORT)
        page.keyboard.press("Control+Enter")

        # the publication date comes from the first line, and the question names it and the span
        page.get_by_text(
            "Publication date read from the report's first line: 3 March 2025"
        ).wait_for(timeout=60_000)
        question = page.get_by_text(  # (not the tick box's "Add anyway: the report is dated …")
            re.compile(r"^The report is dated 3 March 2025, outside the time span")
        )
        question.wait_for(timeout=60_000)
        expect(question).to_contain_text("14 December 2016 06:00 to 16 December 2016 00:00")
        add = page.get_by_role("button", name="Add to workspace")
        expect(add).to_be_disabled()
        settled(page)

        confirm = page.get_by_text(re.compile(r"^Add anyway: the report is dated 3 March 2025"))
        confirm.click()
        settled(page)
        tick_first_draft(page)  # (waits until the button takes the ticked row)
        expect(add).to_be_enabled()
        confirm.click()  # unconfirmed again: nothing can be added
        expect(add).to_be_disabled(timeout=30_000)
        assert len(workspace.load(SCENARIO).convoys) == before
        settled(page)
        confirm.click()
        expect(add).to_be_enabled(timeout=30_000)
        settled(page)
        add.click()
        page.get_by_text(f"Added 1 convoy(s) to {SCENARIO}").wait_for(timeout=60_000)

        scenario = workspace.load(SCENARIO)
        convoy = scenario.convoys[-1]
        assert len(scenario.convoys) == before + 1
        assert convoy.depart == datetime(2025, 3, 3, 9, 0, tzinfo=UTC)  # midday in Damascus
        assert (convoy.status.value, str(convoy.buses), convoy.destination) == (
            "under_way",
            "40",
            "bab-al-hawa-crossing",
        )
        assert page.locator("[data-testid='stException']").count() == 0
