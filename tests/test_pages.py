"""The "From a report" and "Import and edit" pages through AppTest: one user across pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "tests" / "data" / "reports" / "aleppo-evacuation-2016-12-15.txt"


@pytest.fixture
def workspace(shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch) -> Path | str:
    """The shipped scenario in each store, the workspace the pages open."""
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace))
    return shipped_workspace


def test_the_name_typed_on_one_page_is_the_name_on_the_next(workspace: Path | str) -> None:
    app = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60).run()
    app.switch_page("pages/import_and_edit.py").run()
    app.sidebar.text_input(key="who:import").input("Rania").run()
    assert not app.exception
    app.switch_page("pages/from_a_report.py").run()
    assert not app.exception
    assert app.sidebar.text_input(key="who:report").value == "Rania"
    app.switch_page("pages/import_and_edit.py").run()
    assert app.sidebar.text_input(key="who:import").value == "Rania"


def test_without_a_name_both_pages_write_the_same_session_label(workspace: Path | str) -> None:
    app = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60).run()
    app.switch_page("pages/from_a_report.py").run()
    label = app.session_state["session_label"]
    assert label.startswith("session-")
    app.switch_page("pages/import_and_edit.py").run()
    assert app.session_state["session_label"] == label


def test_drafts_wait_for_the_publication_date(workspace: Path | str) -> None:
    app = AppTest.from_file(str(ROOT / "pages" / "from_a_report.py"), default_timeout=60).run()
    app.text_area(key="report_text").input(REPORT.read_text(encoding="utf-8")).run()
    assert not app.exception
    assert any("No publication date yet" in w.value for w in app.warning)
    assert app.button(key="add_drafts").disabled
    drafts = app.dataframe[0].value if app.dataframe else None
    assert drafts is None or "already in workspace" in drafts.columns
