"""A CSV file read, checked and counted in chunks (issue 40) reports what the whole file read at
once reports, at the file's own row numbers, and a dry run holds none of its records."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

import pytest

from geo import importing
from geo.event_table import EventTable
from geo.importing import chunks as import_chunks
from geo.readers import columnar
from geo.records import Scenario

PLACES = ["id", "name", "kind", "latitude", "longitude", "admin1", "country_code"]
ACLED = [
    "event_id_cnty", "event_date", "event_type", "sub_event_type", "actor1", "country",
    "admin1", "location", "latitude", "longitude", "source", "notes", "fatalities",
]  # fmt: skip


def place(number: int, **cells: str) -> list[str]:
    row = {"id": f"p{number}", "name": f"Village {number}", "kind": "village",
           "latitude": f"{36.1 + number / 1000:.4f}", "longitude": "37.15", "admin1": "Aleppo",
           "country_code": "SY", **cells}  # fmt: skip
    return [row[name] for name in PLACES]


def event(number: int, fatalities: int = 1) -> list[str]:
    return [f"SYR{number}", f"{number} December 2016", "Battles", "Armed clash", "Forces A",
            "Syria", "Aleppo", f"Village {number}", f"{36.1 + number / 1000:.4f}", "37.15",
            "Agency A", f"Event {number}.", str(fatalities)]  # fmt: skip


def write(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    return path


def whole_and_chunked(
    path: Path, scenario: Scenario, monkeypatch: pytest.MonkeyPatch, **options: object
) -> tuple[importing.Prepared, importing.Prepared]:
    """The file prepared in one chunk, then in chunks of two rows (both paths)."""
    opts = importing.Options(**options)  # type: ignore[arg-type]
    whole = importing.prepare(path, scenario, options=opts, who="tester")
    monkeypatch.setattr(import_chunks, "CHUNK_ROWS", 2)
    monkeypatch.setattr(columnar, "CHUNK_ROWS", 2)
    chunked = importing.prepare(path, scenario, options=opts, who="tester")
    return whole, chunked


def test_a_problem_row_in_a_later_chunk_is_told_at_the_files_own_row_number(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [place(n) for n in range(1, 8)]
    rows[4] = place(5, latitude="north")  # row 6 of the file (the header is row 1)
    whole, chunked = whole_and_chunked(write(tmp_path / "p.csv", PLACES, rows), tiny, monkeypatch)
    assert [p.where for p in chunked.problems if p.severity == "error"] == ["row 6 (id 'p5')"]
    assert chunked.problems == whole.problems
    assert chunked.rejected == whole.rejected == ("p.csv, row 6 (id 'p5')",)
    assert (chunked.rows, chunked.accepted) == (whole.rows, whole.accepted) == (7, 6)
    assert [r.id for r in chunked.records["places"]] == [r.id for r in whole.records["places"]]


def test_an_id_used_again_in_a_later_chunk_is_refused_naming_its_first_row(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [place(n) for n in range(1, 7)]
    rows[4] = place(1, name="Village again")  # p1 again, at row 6
    whole, chunked = whole_and_chunked(write(tmp_path / "p.csv", PLACES, rows), tiny, monkeypatch)
    (problem,) = [p for p in chunked.problems if p.severity == "error"]
    assert (problem.where, problem.field) == ("row 6 (id 'p1')", "id")
    assert problem.expected == "a unique id (also used at row 2 (id 'p1'))"
    assert chunked.problems == whole.problems


def test_an_id_made_in_a_later_chunk_skips_the_ids_earlier_chunks_built(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ids built are held once (`chunks._Ids` over `_Seen`): an id made for a row without
    one in a later chunk is still not one a kept row of an earlier chunk has."""
    rows = [place(n) for n in range(1, 7)]
    rows[0] = place(1, id="village-1")  # the id a row named "Village 1" would be given
    rows[4] = place(1, id="")  # row 6, a later chunk: its id is made
    _, chunked = whole_and_chunked(write(tmp_path / "p.csv", PLACES, rows), tiny, monkeypatch)
    made = [r.id for r in chunked.records["places"]]
    assert made == ["village-1", "p2", "p3", "p4", "village-1-2", "p6"]
    assert not [p for p in chunked.problems if p.severity == "error"]


def test_a_malformed_row_after_the_first_chunk_ends_the_file_as_before(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = write(tmp_path / "p.csv", PLACES, [place(n) for n in range(1, 6)]).read_text()
    path = tmp_path / "p.csv"
    path.write_text(text + 'p9,"Village 9,village\n', encoding="utf-8")  # a quote left open
    whole, chunked = whole_and_chunked(path, tiny, monkeypatch)
    assert chunked.problems == whole.problems
    assert (chunked.rows, chunked.accepted, chunked.rejected) == (
        whole.rows, whole.accepted, whole.rejected,
    )  # fmt: skip


def test_a_dry_run_counts_what_an_import_would_add_and_cannot_be_committed(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch, tiny_workspace: object
) -> None:
    rows = [place(n) for n in range(1, 8)]
    rows[2] = place(3, longitude="200")
    path = write(tmp_path / "p.csv", PLACES, rows)
    full = importing.prepare(path, tiny, who="tester")
    monkeypatch.setattr(import_chunks, "CHUNK_ROWS", 2)
    dry = importing.prepare(path, tiny, options=importing.Options(check_only=True), who="tester")
    assert dry.checked_only
    assert not full.checked_only
    assert dry.summary() == full.summary()
    assert (dry.accepted, dry.rows, dry.problems) == (full.accepted, full.rows, full.problems)
    with pytest.raises(ValueError, match="dry run"):
        importing.commit_import(tiny_workspace, tiny.id, dry, who="tester")  # type: ignore[arg-type]


def test_a_clean_acled_file_read_in_column_chunks_gives_the_same_events(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "acled.csv", ACLED, [event(n) for n in range(1, 8)])
    whole, chunked = whole_and_chunked(path, tiny, monkeypatch)
    assert isinstance(chunked.records["events"], EventTable)  # (the columnar path took it)
    assert tuple(chunked.records["events"]) == tuple(whole.records["events"])
    assert chunked.problems == whole.problems


def test_an_id_repeated_across_column_chunks_is_told_by_the_rows_at_its_row(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [event(n) for n in range(1, 7)]
    rows[4] = event(1, fatalities=3)  # SYR1 again at row 6, two chunks after the first
    whole, chunked = whole_and_chunked(write(tmp_path / "acled.csv", ACLED, rows), tiny,
                                       monkeypatch)  # fmt: skip
    assert not isinstance(chunked.records["events"], EventTable)  # (left to the rows)
    (problem,) = [p for p in chunked.problems if p.severity == "error"]
    assert (problem.where, problem.field) == ("row 6 (id 'SYR1')", "id")
    assert chunked.problems == whole.problems


def test_pythons_reader_hands_its_columns_on_a_chunk_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(columnar, "CHUNK_ROWS", 2)
    rows = iter([["a", "1"], ["b", "2"], [], ["c", "3"]])
    chunks = list(columnar._columns(rows, ["id", None]))
    assert [chunk["id"].to_pylist() for chunk in chunks if chunk] == [["a", "b"], ["c"]]


@pytest.mark.parametrize("spoiled", [False, True], ids=["columns", "rows"])
def test_a_newer_acled_export_read_in_chunks_updates_and_keeps_as_whole(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch, spoiled: bool
) -> None:
    first = importing.prepare(write(tmp_path / "a.csv", ACLED, [event(n) for n in range(1, 6)]),
                              tiny, who="tester")  # fmt: skip
    had = replace(tiny, events=(*tiny.events, *first.records["events"]))
    newer = [event(1), event(2), event(3, fatalities=9), event(5), event(6), event(7)]
    if spoiled:  # (a row with a problem: the row-by-row path reads the file, in chunks)
        newer.append([*event(8)[:8], "north", *event(8)[9:]])
    whole, chunked = whole_and_chunked(write(tmp_path / "b.csv", ACLED, newer), had, monkeypatch)
    assert [e.id for e in chunked.revised] == [e.id for e in whole.revised] == ["SYR3"]
    assert chunked.unchanged == whole.unchanged == 3
    assert [e.id for e in chunked.records["events"]] == ["SYR6", "SYR7"]
    assert chunked.problems == whole.problems
    assert any("SYR4" in str(p.actual) for p in chunked.problems)  # gone from the export: said
