"""The New scenario page through AppTest: a report about Sudan becomes a scenario in each store."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from geo.store import open_workspace

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "new_scenario.py")
REPORT = (
    "ADRE, Chad (Reuters) - Thousands of people fled El Geneina in Sudan's West Darfur state "
    "into Chad this week, crossing at Adre, aid workers said."
)


@pytest.fixture
def workspace(shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch) -> Path | str:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace))
    return shipped_workspace


def field(app: AppTest, label: str):  # type: ignore[no-untyped-def]
    """The text field with this label."""
    return next(box for box in app.text_input if box.label.startswith(label))


def test_a_pasted_report_proposes_country_and_time_zone(workspace: Path | str) -> None:
    app = AppTest.from_file(PAGE, default_timeout=60).run()
    assert app.button(key="create_scenario").disabled
    app.text_area(key="new_report").input(REPORT).run()
    assert not app.exception
    assert field(app, "Country").value == "TD"  # (the dateline's country)
    assert field(app, "Time zone").value == "Africa/Ndjamena"
    assert field(app, "Source title").value.startswith("ADRE, Chad (Reuters)")


def test_create_saves_a_new_scenario_beside_the_shipped_one(workspace: Path | str) -> None:
    app = AppTest.from_file(PAGE, default_timeout=60).run()
    app.text_input(key="new_title").input("El Geneina to Adre, June 2023").run()
    app.button(key="create_scenario").click().run()
    assert not app.exception
    assert any("Created El Geneina to Adre" in s.value for s in app.success)
    ids = open_workspace(workspace).scenario_ids()
    assert set(ids) == {"aleppo-2016-12", "el-geneina-to-adre-june-2023"}
    app.button(key="create_scenario").click().run()
    assert any("exists already" in e.value for e in app.error)


def test_bad_time_zone_is_refused_with_its_name(workspace: Path | str) -> None:
    app = AppTest.from_file(PAGE, default_timeout=60).run()
    app.text_input(key="new_title").input("Somewhere").run()
    field(app, "Time zone").input("Mars/Olympus").run()
    app.button(key="create_scenario").click().run()
    assert any("Mars/Olympus" in e.value for e in app.error)
    assert open_workspace(workspace).scenario_ids() == ["aleppo-2016-12"]


def test_the_dashboard_draws_the_new_scenario(workspace: Path | str) -> None:
    app = AppTest.from_file(PAGE, default_timeout=60).run()
    app.text_input(key="new_title").input("El Geneina to Adre, June 2023").run()
    app.button(key="create_scenario").click().run()
    dashboard = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60).run()
    dashboard.sidebar.selectbox(key="scenario").select("el-geneina-to-adre-june-2023").run()
    assert not dashboard.exception
    assert [title.value for title in dashboard.title] == ["El Geneina to Adre, June 2023"]
