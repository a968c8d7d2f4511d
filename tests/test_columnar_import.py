"""Events read a column at a time give exactly what the row-by-row import gives, and any file
that path would say something about is left to it."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from geo import importing
from geo.event_table import EventTable
from geo.readers import columnar as columnar_import
from geo.records import Scenario

HEADER = [
    "event_id_cnty", "event_date", "year", "event_type", "sub_event_type", "actor1", "actor2",
    "country", "admin1", "location", "latitude", "longitude", "geo_precision", "source",
    "notes", "fatalities", "timestamp",
]  # fmt: skip
ROWS = [
    ["SYR1", "12 December 2016", "2016", "Battles", "Armed clash", "Forces A", "Forces B",
     "Syria", "Aleppo", "Aleppo - Salaheddine", "36.1810", "37.1330", "1", "Agency A",
     'Clashes, "heavy", reported.', "4", "1700000000"],
    ["SYR2", "13-Dec-2016", "2016", "Explosions/Remote violence", "", "  ", "", "Syria",
     "Aleppo", "Sukkari", " 36.179 ", "37.156", "", "Agency A; Monitor B",
     "Two lines\nof notes", "", "1700000001"],
    ["SYR3", "2016-12-14", "2016", "Protests", "Peaceful protest", "'=HYPERLINK(1)", "",
     "Syria", "حلب", "حي الشيخ مقصود", "36.2012", "37.1612", "2", "'-minus", "'+plus note",
     "0", "1700000002"],
    ["SYR4", "15 December 2016", "2016", "Riots", "Mob violence", "Rioters", "Civilians",
     "Syria", "Idlib", "Idlib", "35.93", "36.63", "3", "Agency C", "", "12", "1700000003"],
]  # fmt: skip


def write(path: Path, rows: list[list[str]], header: list[str] = HEADER, *, end: str = "\n",
          bom: bool = False) -> Path:  # fmt: skip
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator=end)
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(("\ufeff" if bom else "") + buffer.getvalue(), encoding="utf-8", newline="")
    return path


def both_ways(
    path: Path, scenario: Scenario, monkeypatch: pytest.MonkeyPatch, **options: Any
) -> tuple[importing.Prepared, importing.Prepared, bool]:
    """The import prepared as it is, and with the columnar path turned off; whether the
    columnar path took the file."""
    opts = importing.Options(**options)
    took = []
    real = columnar_import.read_events

    def watched(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        took.append(found is not None)
        return found

    monkeypatch.setattr(columnar_import, "read_events", watched)
    fast = importing.prepare(path, scenario, options=opts, who="tester")
    monkeypatch.setattr(columnar_import, "read_events", lambda *a, **k: None)
    slow = importing.prepare(path, scenario, options=opts, who="tester")
    return fast, slow, took == [True]


def same(fast: importing.Prepared, slow: importing.Prepared) -> None:
    assert tuple(fast.records["events"]) == tuple(slow.records["events"])
    for layer in importing.ORDER:
        assert len(fast.records[layer]) == len(slow.records[layer])
    assert fast.problems == slow.problems
    assert (fast.rows, fast.rejected, fast.revised, fast.unchanged) == (
        slow.rows, slow.rejected, slow.revised, slow.unchanged,
    )  # fmt: skip
    assert fast.summary().split(":", 1)[1] == slow.summary().split(":", 1)[1]


@pytest.mark.parametrize(
    ("end", "bom", "blank_line"),
    [("\n", False, False), ("\r\n", True, False), ("\n", False, True)],
    ids=["plain", "crlf-bom", "blank-line"],
)
def test_a_clean_acled_file_is_read_in_columns_as_rows_read_it(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch, end: str, bom: bool,
    blank_line: bool,
) -> None:  # fmt: skip
    rows = [*ROWS[:2], *([[]] if blank_line else []), *ROWS[2:]]
    path = write(tmp_path / "acled.csv", rows, end=end, bom=bom)
    fast, slow, took = both_ways(path, tiny, monkeypatch)
    assert took, "the columnar path did not take a clean file"
    assert isinstance(fast.records["events"], EventTable)
    assert len(fast.records["events"]) == 4
    same(fast, slow)
    events = {event.id: event for event in fast.records["events"]}
    assert events["SYR2"].actor1 == ""  # white space alone is blank
    assert events["SYR2"].date.isoformat() == "2016-12-13"
    assert events["SYR3"].actor1 == "=HYPERLINK(1)"  # a spreadsheet's quote taken off
    assert events["SYR2"].notes == "Two lines\nof notes"


def test_defaults_fill_blank_cells_and_missing_columns_alike(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    header = [name for name in HEADER if name != "admin1"]
    rows = [[cell for name, cell in zip(HEADER, row, strict=True) if name != "admin1"]
            for row in ROWS]  # fmt: skip
    path = write(tmp_path / "acled.csv", rows, header)
    fast, slow, took = both_ways(
        path, tiny, monkeypatch, defaults={"admin1": "Aleppo", "sub_event_type": "Unknown"}
    )
    assert took
    same(fast, slow)
    assert {event.admin1 for event in fast.records["events"]} == {"Aleppo"}
    assert fast.records["events"][1].sub_event_type == "Unknown"


def test_a_plain_events_file_with_its_own_columns_is_read_in_columns(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    header = ["id", "date", "event_type", "latitude", "longitude", "fatalities", "colour"]
    rows = [["e1", "2016-12-15", "Battles", "36.2", "37.1", "3", "red"],
            ["e2", "2016-12-16", "Protests", "36.3", "37.2", "", "blue"]]  # fmt: skip
    path = write(tmp_path / "events.csv", rows, header)
    fast, slow, took = both_ways(path, tiny, monkeypatch, layer="events")
    assert took
    same(fast, slow)
    assert any("colour" in str(problem.actual) for problem in fast.problems)  # not read: said


@pytest.mark.parametrize(
    "spoil",
    [
        lambda rows: rows[1].__setitem__(10, "north"),  # a latitude that is no number
        lambda rows: rows[2].__setitem__(10, "95"),  # off the globe
        lambda rows: rows[3].__setitem__(0, "SYR1"),  # an id twice
        lambda rows: rows[0].__setitem__(0, ""),  # an id to make
        lambda rows: rows[1].__setitem__(3, " "),  # a required type left blank
        lambda rows: rows[2].append("one cell too many"),
        lambda rows: rows[3].__setitem__(15, "-2"),  # negative fatalities
        lambda rows: rows[0].__setitem__(1, "32 December 2016"),  # no such day
    ],
    ids=[
        "latitude-text",
        "latitude-95",
        "id-twice",
        "id-blank",
        "type-blank",
        "long-row",
        "fatalities",
        "no-such-day",
    ],
)
def test_a_file_with_anything_to_report_is_read_row_by_row(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch, spoil: Any
) -> None:
    rows = [list(row) for row in ROWS]
    spoil(rows)
    path = write(tmp_path / "acled.csv", rows)
    fast, slow, took = both_ways(path, tiny, monkeypatch)
    assert not took
    same(fast, slow)  # each problem told at its row (or, for a blank id, an id made)


def test_an_encoding_guess_or_another_separator_is_left_to_the_rows(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    latin = write(tmp_path / "acled.csv", [row[:] for row in ROWS[:1]])
    latin.write_bytes(latin.read_bytes().replace(b"Forces A", b"For\xe7es A"))
    fast, slow, took = both_ways(latin, tiny, monkeypatch)
    assert not took
    same(fast, slow)
    semicolons = tmp_path / "semi.csv"
    semicolons.write_text(latin.read_text(encoding="cp1252").replace(",", ";"), "utf-8")
    fast, slow, took = both_ways(semicolons, tiny, monkeypatch)
    assert not took
    same(fast, slow)


def test_a_newer_export_read_in_columns_updates_and_keeps_as_rows_do(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    first = importing.prepare(write(tmp_path / "acled.csv", ROWS), tiny, who="tester")
    had = replace(tiny, events=(*tiny.events, *first.records["events"]))
    newer = [list(row) for row in (ROWS[0], ROWS[1], ROWS[3])]
    newer[1][15] = "7"  # SYR2 revised; SYR3 gone from the export
    newer.append(["SYR5", *ROWS[3][1:]])
    fast, slow, took = both_ways(write(tmp_path / "newer.csv", newer), had, monkeypatch)
    assert took
    same(fast, slow)
    assert [event.id for event in fast.revised] == ["SYR2"]
    assert [event.id for event in fast.records["events"]] == ["SYR5"]
    assert fast.unchanged == 2
    assert any("SYR3" in str(problem.actual) for problem in fast.problems)


def test_a_quote_before_a_tab_is_a_blank_cell_that_takes_the_default(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [list(row) for row in ROWS]
    rows[0][14], rows[1][15], rows[2][7] = "'\t", "'\t\t", "'\t "  # notes, fatalities, country
    path = write(tmp_path / "acled.csv", rows)
    defaults = {"notes": "N/A", "fatalities": "3", "country": "Syria"}
    fast, slow, took = both_ways(path, tiny, monkeypatch, defaults=defaults)
    assert took
    same(fast, slow)
    events = {event.id: event for event in fast.records["events"]}
    assert (events["SYR1"].notes, events["SYR2"].fatalities) == ("N/A", 3)


@pytest.mark.parametrize("second", ["ACTOR1", "reported_by", "id", "date"])
def test_two_columns_read_as_one_field_are_left_to_the_rows(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch, second: str
) -> None:
    rows = [[*row, f"other-{number}"] for number, row in enumerate(ROWS)]
    if second == "date":
        rows = [[*row[:-1], "2016-12-16"] for row in rows]
    path = write(tmp_path / "acled.csv", rows, [*HEADER, second])
    fast, slow, took = both_ways(path, tiny, monkeypatch)
    assert not took
    same(fast, slow)


@pytest.mark.parametrize(
    "text",
    [
        'id,b\n"x ""y"" z",2\n',  # doubled quotes
        'id,b\r\nq"r,2\r\n',  # a quote inside a cell
        "id,b\r1,2\r",  # old Mac line ends
        'id,b\n"ab"c,2\n',  # text after a closing quote
        'id,b\n"multi\nline",3\n\n',  # a line break inside quotes, a blank line
        "id,b\n1,2",  # no line end at the end
        "id,b\n1,\x002\n",  # a NUL (Python's reader takes it)
    ],
)
def test_arrows_reader_splits_rows_as_pythons_does(text: str) -> None:
    split = columnar_import._split(text, ",", ["id", "b"])
    assert split is not None
    assert split is not columnar_import._UNSPLIT
    rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row][1:]
    assert list(zip(split["id"].to_pylist(), split["b"].to_pylist(), strict=True)) == [
        tuple(row) for row in rows
    ]


def test_what_pythons_reader_refuses_is_refused_and_what_arrows_cannot_split_goes_to_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys: list[str | None] = ["id", "b"]
    unsplit = columnar_import._UNSPLIT
    assert columnar_import._split("id,b\n1,2,3\n", ",", keys) is unsplit  # a long row
    assert columnar_import._split("\ufeff\nid,b\n1,2\n", ",", keys) is unsplit  # a second BOM
    monkeypatch.setattr(csv, "field_size_limit", lambda: 5)
    assert columnar_import._split("id,b\n123456,2\n", ",", keys) is None  # over the limit
    assert columnar_import._split("id,b12345\n1,2\n", ",", keys) is None  # the header too


def test_a_line_break_inside_quotes_where_arrow_reads_a_new_block_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Arrow's reader drops the LF of a CR LF that its blocks split, even inside quotes: a
    block size that splits none is chosen."""
    monkeypatch.setattr(columnar_import, "BLOCK_BYTES", 64)
    head = "id,b\n" + "x,1\n" * 14  # 62 bytes
    text = head + '"a\r\nb",2\n'  # the CR is byte 63, its LF byte 64
    assert text.encode()[63:65] == b"\r\n"
    assert columnar_import._block_size(text.encode()) == 65
    split = columnar_import._split(text, ",", ["id", "b"])
    assert isinstance(split, dict)
    assert split["id"].to_pylist()[-1] == "a\r\nb"


@pytest.mark.parametrize("separator", [",", ";"])
def test_a_file_is_read_and_sniffed_once_when_the_columnar_path_declines_it(
    tmp_path: Path, tiny: Scenario, monkeypatch: pytest.MonkeyPatch, separator: str
) -> None:
    from geo.readers import text

    rows = [[*ROWS[0][:10], "36,1810", "37,1330", *ROWS[0][12:]], ["", *ROWS[1][1:]]]
    path = tmp_path / "acled.csv"
    buffer = io.StringIO(newline="")
    csv.writer(buffer, delimiter=separator, lineterminator="\n").writerows([HEADER, *rows])
    path.write_text(buffer.getvalue(), encoding="utf-8")
    decoded, took = [], []
    real_decoded, real_read = text.decoded, columnar_import.read_events
    monkeypatch.setattr(text, "decoded", lambda *a: decoded.append(a[1]) or real_decoded(*a))
    monkeypatch.setattr(
        columnar_import, "read_events", lambda *a, **k: took.append(real_read(*a, **k))
    )
    prepared = importing.prepare(path, tiny)
    assert decoded == ["acled.csv"]  # once, for both paths
    assert took == [None]  # (a blank id to make, or a ';')
    said = [str(problem) for problem in prepared.problems]
    assert sum("cells separated by ','" in line for line in said) == (separator == ";")
    assert len(prepared.records["events"]) == (2 if separator == ";" else 1)  # (36,1810: no ;)
