"""Excel and OpenDocument workbooks imported: every sheet or the one named, ACLED and IOM DTM."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import openpyxl
import pytest

from geo import cli, importing, readers
from geo.errors import ProblemLog
from geo.importing import Options
from geo.readers import workbook as _workbook
from geo.records import FigureKind, Scenario
from geo.store import Workspace

IMPORTS = Path(__file__).parent / "data" / "import"


def prepare(path: Path, scenario: Scenario, **options: object) -> importing.Prepared:
    return importing.prepare(path, scenario, options=Options(**options), who="t")  # type: ignore[arg-type]


def messages(prepared: importing.Prepared) -> list[str]:
    return [str(problem) for problem in prepared.problems]


def workbook(path: Path, sheets: dict[str, list[list[object]]]) -> Path:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


def test_an_acled_workbook_imports_every_row_as_the_csv_does(tiny: Scenario) -> None:
    from_sheet = prepare(IMPORTS / "acled.xlsx", tiny)
    from_csv = prepare(IMPORTS / "acled.csv", tiny)
    assert (from_sheet.accepted, from_sheet.rejected) == (12, ())
    sheet_events = list(from_sheet.records["events"])
    assert [(e.id, e.date, e.latitude, e.fatalities) for e in sheet_events] == [
        (e.id, e.date, e.latitude, e.fatalities) for e in from_csv.records["events"]
    ]
    assert sheet_events[0].date == date(2016, 12, 12)
    assert "acled.xlsx, sheet 'Read me': expected columns of a layer" in messages(from_sheet)[0]


@pytest.mark.parametrize("name", ["dtm.xlsx", "dtm.ods"])
def test_an_iom_dtm_table_becomes_figures_of_displaced_people_at_its_sites(
    name: str, tiny: Scenario
) -> None:
    prepared = prepare(IMPORTS / name, tiny)
    figures = list(prepared.records["figures"])
    places = {place.id: place for place in prepared.records["places"]}
    assert (prepared.accepted, len(figures), len(places)) == (4, 4, 4)  # and a place each
    tawila = figures[0]
    assert (tawila.kind, tawila.count.low, tawila.what) == (
        FigureKind.DISPLACED,
        12400,
        "IDP individuals",
    )
    assert tawila.attribution == "Test Partner A"
    assert tawila.reported == datetime(2025, 4, 30, 21, 0, tzinfo=UTC)  # midnight in Damascus
    site = places[tawila.place]
    assert (site.name, site.latitude, site.longitude) == ("Tawila (test site)", 13.53, 24.65)
    assert (site.country_code, site.admin1, site.precision.value) == (
        "SD",
        "North Darfur",
        "approximate",
    )
    [refused] = prepared.rejected
    assert refused == f"{name}, sheet 'IDP sites', row 6"
    assert any(
        f"{name}, sheet 'IDP sites', row 6, field 'latitude'" in text and "'unknown'" in text
        for text in messages(prepared)
    )
    unread = next(text for text in messages(prepared) if "not read: " in text)
    assert "IDP households" in unread  # (households are no count of people)


def test_a_broken_sheet_names_sheet_row_and_column_and_keeps_the_good_rows(
    tmp_path: Path, tiny: Scenario
) -> None:
    path = workbook(tmp_path / "sites.xlsx", {"Sites": [
        ["id", "name", "lat", "lon", "country_code", "kind"],
        [None, None, None, None, None, None],
        ["s1", "Site one", 36.1, 37.1, "SY", "point"],
        ["s2", "Site two", "north", 37.2, "SY", "point"],
        ["s3", "Site three", 36.3, 37.3, "SY", "point", "stray"],
    ]})  # fmt: skip
    prepared = prepare(path, tiny)
    assert [p.id for p in prepared.records["places"]] == ["s1", "s3"]  # (s3's stray cell is told)
    found = messages(prepared)
    assert any("sheet 'Sites', row 4 (id 's2'), field 'latitude'" in m for m in found), found
    assert any("sheet 'Sites', header, field 'column G': expected a column name" in m
               for m in found), found  # fmt: skip


def test_one_sheet_is_read_when_named(tmp_path: Path, tiny: Scenario) -> None:
    places = [["id", "name", "latitude", "longitude", "country_code", "kind"],
              ["a1", "Alpha", 36.1, 37.1, "SY", "point"]]  # fmt: skip
    more = [places[0], ["b1", "Beta", 36.2, 37.2, "SY", "point"]]
    path = workbook(tmp_path / "two.xlsx", {"First": places, "Second": more})
    assert [p.id for p in prepare(path, tiny).records["places"]] == ["a1", "b1"]
    assert [p.id for p in prepare(path, tiny, sheet="Second").records["places"]] == ["b1"]
    missing = prepare(path, tiny, sheet="Third")
    assert messages(missing) == [
        "two.xlsx, field 'sheet': expected one of the sheets 'First', 'Second', got 'Third'"
    ]


def test_a_file_that_is_no_workbook_is_told_and_nothing_read(tmp_path: Path) -> None:
    fake = tmp_path / "fake.xlsx"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    log = ProblemLog()
    assert readers.read_file(fake, log=log) == []
    [problem] = list(log)
    assert (problem.file, problem.expected) == ("fake.xlsx", "an Excel or OpenDocument workbook")
    assert problem.actual.startswith("unreadable")


def test_a_sheet_is_named_only_for_a_workbook(tiny: Scenario) -> None:
    prepared = prepare(IMPORTS / "places.csv", tiny, sheet="Sites")
    assert messages(prepared) == [
        "places.csv, field 'sheet': expected a workbook (.xlsx, .ods) when a sheet is named, "
        "got 'Sites'"
    ]


def test_cells_read_as_a_csv_would_hold_them() -> None:
    assert [_workbook.cell_text(v) for v in (12.0, 0.1, True, None, "x")] == [
        "12",
        "0.1",
        "TRUE",
        "",
        "x",
    ]
    assert _workbook.cell_text(datetime(2016, 12, 15)) == "2016-12-15"
    assert _workbook.cell_text(datetime(2016, 12, 15, 13, 30)) == "2016-12-15T13:30:00"
    assert [_workbook.column_letter(i) for i in (0, 25, 26, 701, 702)] == [
        "A",
        "Z",
        "AA",
        "ZZ",
        "AAA",
    ]


def test_an_upload_lists_its_sheets(tmp_path: Path) -> None:
    data = (IMPORTS / "dtm.xlsx").read_bytes()
    assert importing.upload_sheets(data, "Sudan DTM.xlsx") == ["Read me", "IDP sites"]
    assert importing.upload_sheets(b"a,b\n", "table.csv") == []
    assert importing.upload_sheets(b"not a workbook", "broken.ods") == []


def test_the_command_line_imports_one_sheet(
    workspace: Workspace, tiny: Scenario, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["import", str(IMPORTS / "dtm.xlsx"), "--sheet", "IDP sites",
                     "--workspace", str(workspace.location), "--who", "cli-test"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 1, captured  # (the Kutum row is refused; the others are in)
    assert "dtm.xlsx, sheet 'IDP sites', row 6, field 'latitude'" in captured.err
    assert "Read me" not in captured.err  # (only the sheet named is read)
    assert len(workspace.load("tiny").figures) == len(tiny.figures) + 4
    assert "tawila-test-site" in {p.id for p in workspace.load("tiny").places}


@pytest.fixture
def workspace(tiny_workspace: Workspace) -> Workspace:
    return tiny_workspace
