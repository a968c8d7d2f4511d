"""What makes large imports fast keeps them correct: parsing repeated values once, checking
references once per value, Arrow writes, the collector paused."""

from __future__ import annotations

import gc
import sqlite3
import threading
from datetime import date
from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import pyogrio
import pytest
from shapely.geometry import Point

from geo import _collector
from geo import _fields as f
from geo import _schema as s
from geo.errors import ProblemLog
from geo.store import geopackage as w


def _counting(parse: f.Field) -> tuple[f.Field, list[object]]:
    calls: list[object] = []

    def counted(value: object) -> object:
        calls.append(value)
        return parse.parse(value)

    return f.Field(parse.name, counted), calls


def test_a_repeated_value_is_parsed_once_and_each_row_gets_its_answer() -> None:
    kind, calls = _counting(f.Field("kind", f.text))
    memo, log = f.Memo(), ProblemLog()
    rows = [{"kind": " village "}, {"kind": "town"}, {"kind": " village "}]
    parsed = [f.parse_fields(row, [kind], f.Spot("p.csv", f"row {i}"), log, memo) for i, row in
              enumerate(rows, 2)]  # fmt: skip
    assert parsed == [{"kind": "village"}, {"kind": "town"}, {"kind": "village"}]
    assert calls == [" village ", "town"]


def test_a_refused_value_is_reported_on_every_row_that_holds_it() -> None:
    ids, calls = _counting(f.Field("id", f.identifier))
    memo, log = f.Memo(), ProblemLog()
    for row in (2, 3):
        spot = f.Spot("p.csv", f"row {row}")
        assert f.parse_fields({"id": "no spaces"}, [ids], spot, log, memo) is None
    assert calls == ["no spaces"]
    assert [(p.where, p.field, p.expected) for p in log] == [
        ("row 2", "id", "an id of letters, digits, '-', '_' or '.'"),
        ("row 3", "id", "an id of letters, digits, '-', '_' or '.'"),
    ]


def test_a_column_that_does_not_repeat_stops_being_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f.Memo, "KEPT", 3)
    ids, calls = _counting(f.Field("id", f.identifier))
    memo, log = f.Memo(), ProblemLog()
    for value in ("a", "b", "c", "d", "d", "a"):
        f.parse_fields({"id": value}, [ids], f.Spot("p.csv", "row 2"), log, memo)
    assert calls == ["a", "b", "c", "d", "d", "a"]  # three kept: then none


def _place(place_id: str, source: str) -> object:
    return s.PLACES.record(id=place_id, name=place_id, kind="town", latitude=35.93,
                           longitude=36.63, country_code="SY", precision="approximate",
                           source=source)  # fmt: skip


def test_recheck_reports_each_record_citing_a_source_that_is_gone() -> None:
    place, other, third = _place("p1", "gone"), _place("p2", "s1"), _place("p3", "gone")
    log = ProblemLog()
    known = s.Known(sources={"s1"}, places=set(), convoys=set())
    assert not s.recheck(s.PLACES, [place, other, third], known, "edit of places", log)
    assert [(p.where, p.field, p.actual) for p in log] == [
        ("id 'p1'", "source", "gone"),
        ("id 'p3'", "source", "gone"),
    ]
    assert s.recheck(s.PLACES, [other], known, "edit of places", ProblemLog())


def _stored(path: Path, layer: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute(f'SELECT * FROM "{layer}" ORDER BY fid').fetchall()


def test_rows_added_through_arrow_are_stored_as_the_usual_way_stores_them(
    tmp_path: Path,
) -> None:
    moments = pd.to_datetime(
        ["2016-12-15T14:00:00.250Z", "2016-12-15T16:00:00+02:00"], utc=True, format="ISO8601"
    )
    note = ["\u0627\u0644\u0631\u0627\u0634\u062f\u064a\u0646", ""]  # (Arabic text)
    frame = pd.DataFrame(
        {"at": moments.astype("datetime64[ms, UTC]"), "who": ["ana", None], "note": note}
    )
    usual, arrow = tmp_path / "usual.gpkg", tmp_path / "arrow.gpkg"
    for path in (usual, arrow):
        w._write(frame.head(0), path, "changes", None)
        w._write(frame, path, "changes", None, append=True, arrow=path == arrow)
    assert _stored(arrow, "changes") == _stored(usual, "changes")
    assert _stored(arrow, "changes")[0][1] == "2016-12-15T14:00:00.250Z"


def test_rows_arrow_cannot_type_are_written_the_usual_way(tmp_path: Path) -> None:
    path = tmp_path / "w.gpkg"
    frame = pd.DataFrame({"cell": ["text", "more"]})
    w._write(frame, path, "notes", None)
    mixed = pd.DataFrame({"cell": pd.Series(["text", 12], dtype=object)})  # text and a number
    w._write(mixed, path, "notes", None, append=True, arrow=True)
    assert [row[1] for row in _stored(path, "notes")] == ["text", "more", "text", "12"]


def test_dates_go_through_arrow_as_the_iso_text_the_usual_way_stores(tmp_path: Path) -> None:
    frame = gpd.GeoDataFrame(
        {"id": ["e1", "e2"], "date": [date(2016, 12, 15), date(2017, 1, 2)]},
        geometry=[Point(37.1, 36.2), Point(37.2, 36.3)],
        crs="EPSG:4326",
    )
    usual, arrow = tmp_path / "usual.gpkg", tmp_path / "arrow.gpkg"
    for path in (usual, arrow):
        w._write(frame.head(0), path, "events", "Point")
        assert w._days_kept_as_text(path, "events", {"date"})
    w._write(frame, usual, "events", "Point", append=True)
    w._write(w._days_as_text(frame, {"date"}), arrow, "events", "Point", append=True, arrow=True)
    assert _stored(arrow, "events") == _stored(usual, "events")
    assert [row[3] for row in _stored(arrow, "events")] == ["2016-12-15", "2017-01-02"]
    assert list(frame["date"]) == [date(2016, 12, 15), date(2017, 1, 2)]  # (a copy was changed)
    assert w._day_columns(s.EVENTS) == {"date"}
    assert not w._day_columns(s.PLACES)


def test_a_date_field_another_program_declared_stays_off_the_arrow_path(tmp_path: Path) -> None:
    path = tmp_path / "theirs.gpkg"
    days = pd.array([date(2016, 12, 15)], dtype="date32[pyarrow]")
    theirs = gpd.GeoDataFrame({"id": ["e1"], "date": days}, geometry=[Point(37, 36)], crs=4326)
    pyogrio.write_dataframe(theirs, path, layer="events", use_arrow=True)
    assert not w._days_kept_as_text(path, "events", {"date"})


def test_the_collector_comes_back_when_the_last_overlapping_pause_ends() -> None:
    assert gc.isenabled()
    inner_started, outer_may_end = threading.Event(), threading.Event()
    seen: list[bool] = []

    def other_thread() -> None:
        with _collector.paused():
            inner_started.set()
            outer_may_end.wait(5)
        seen.append(gc.isenabled())

    with _collector.paused():
        thread = threading.Thread(target=other_thread)
        thread.start()
        assert inner_started.wait(5)
    assert not gc.isenabled()  # the other thread's pause is still on
    outer_may_end.set()
    thread.join(5)
    assert seen == [True]
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off() -> None:
    gc.disable()
    try:
        with _collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_back_after_an_error() -> None:
    @_collector.pausing
    def fails() -> None:
        assert not gc.isenabled()
        raise ValueError("bad row")

    with pytest.raises(ValueError, match="bad row"):
        fails()
    assert gc.isenabled()


@pytest.mark.parametrize(
    ("parse", "value", "expected"),
    [
        (f.positive_integer, str(2**63), "a whole number from 1 to 9223372036854775807"),
        (f.whole_number, "1e20", "a whole number from 0 to 9223372036854775807"),
    ],
)
def test_a_number_larger_than_a_geopackage_holds_is_refused(
    parse: Any, value: str, expected: str
) -> None:
    with pytest.raises(f.FieldError, match=expected):
        parse(value)
    assert parse(str(2**62)) == 2**62
