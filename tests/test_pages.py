"""The "From a report" and "Import and edit" pages through AppTest: one user across pages."""

from __future__ import annotations

import ast
from datetime import date
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from geo import readers

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


@pytest.mark.geopackage_only
def test_the_upload_accepts_every_format_the_command_line_reads(workspace: Path | str) -> None:
    app = AppTest.from_file(str(ROOT / "pages" / "import_and_edit.py"), default_timeout=60).run()
    assert not app.exception
    (upload,) = app.get("file_uploader")
    assert list(upload.proto.type) == list(readers.SUFFIXES)  # .kmz and .xlsm among them


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


SARAQIB_2025 = (
    "SARAQIB, Syria, 3 March 2025 (Reuters) - Forty buses carrying 300 people left Saraqib for "
    "the Bab al-Hawa crossing on Monday, aid workers said."
)


def test_a_report_dated_outside_the_span_asks_before_adding(workspace: Path | str) -> None:
    app = AppTest.from_file(str(ROOT / "pages" / "from_a_report.py"), default_timeout=60).run()
    app.text_area(key="report_text").input(SARAQIB_2025).run()
    assert not app.exception
    assert app.date_input(key="report_published").value == date(2025, 3, 3)  # its first line
    assert app.selectbox(key="report_scenario").value == "aleppo-2016-12"
    [question] = [w.value for w in app.warning if "outside the time span" in w.value]
    assert "3 March 2025" in question
    assert "14 December 2016 06:00 to 16 December 2016 00:00" in question
    assert "New scenario page" in question
    [confirm] = [box for box in app.checkbox if box.label.startswith("Add anyway")]
    assert not confirm.value
    assert app.button(key="add_drafts").disabled
    row = app.dataframe[0].value.iloc[0]  # (the drafts' editor, as AppTest reads it)
    assert (row["status"], row["buses"], row["depart"]) == (
        "under_way",
        "40",
        "2025-03-03T12:00+03:00",
    )


def test_a_report_inside_the_span_asks_nothing(workspace: Path | str) -> None:
    app = AppTest.from_file(str(ROOT / "pages" / "from_a_report.py"), default_timeout=60).run()
    app.text_area(key="report_text").input(REPORT.read_text(encoding="utf-8")).run()
    app.date_input(key="report_published").set_value(date(2016, 12, 15)).run()
    assert not app.exception
    assert not [w for w in app.warning if "outside the time span" in w.value]
    assert not [box for box in app.checkbox if box.label.startswith("Add anyway")]


def test_no_page_prints_a_stray_string() -> None:
    """Streamlit's magic writes a bare string of a page's script onto the page (a docstring
    after an assignment once printed itself above the map's title)."""
    stray = [
        f"{script.name}:{node.lineno}"
        for script in [ROOT / "dashboard.py", *sorted((ROOT / "pages").glob("*.py"))]
        for node in bare_strings(ast.parse(script.read_text(encoding="utf-8")).body[1:])
    ]
    assert stray == []


def bare_strings(body: list[ast.stmt]) -> list[ast.stmt]:
    """The bare string statements magic would print: at any depth of blocks, but a function's
    or class's docstring (its first statement)."""
    found: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.append(node)
        inner = getattr(node, "body", [])
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            inner = inner[1:] if ast.get_docstring(node) is not None else inner
        for block in (inner, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
            if isinstance(block, list):
                found += bare_strings(block)
        for handler in getattr(node, "handlers", []):
            found += bare_strings(handler.body)
    return found


def test_the_dashboard_opens_on_the_map_with_no_stray_text(workspace: Path | str) -> None:
    app = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60).run()
    assert not app.exception
    assert [m.value for m in app.markdown if "page's file" in m.value] == []
    assert app.title[0].value == "East Aleppo evacuation, 15 December 2016"
