"""The readers' registry: every entry answers the Reader interface; one reader per text."""

from __future__ import annotations

import inspect
from datetime import date

import pytest

from geo.reading import (
    READERS,
    FigureMention,
    Reader,
    extract,
    is_people,
    is_vehicle,
    noun_kind,
    reader_for,
)
from geo.reading.mentions import NOUN_KINDS

ENGLISH = "Some 40 buses carrying 1,500 civilians left Madaya for Idlib on Friday."
ARABIC = "خرجت 20 حافلة تقل نحو 1500 مدني من حلب باتجاه إدلب يوم الخميس."


@pytest.mark.parametrize("reader", READERS, ids=lambda reader: reader.language)
def test_every_reader_answers_the_interface(reader: Reader) -> None:
    assert isinstance(reader, Reader)
    assert reader.language
    assert not inspect.isabstract(type(reader))
    for name in ("detects", "read", "places", "dateline", "noun_kind"):
        mine, interface = getattr(type(reader), name), getattr(Reader, name)
        assert inspect.signature(mine) == inspect.signature(interface), name


def test_the_last_reader_reads_any_text() -> None:
    assert READERS[-1].detects("")
    assert reader_for(ENGLISH).language == "English"
    assert reader_for(ARABIC).language == "Arabic"


@pytest.mark.parametrize("text", [ENGLISH, ARABIC], ids=["English", "Arabic"])
def test_every_figure_carries_the_kind_its_reader_gave_it(text: str) -> None:
    found = extract(text, published=date(2016, 12, 15), home=("SY",))
    kinds = {figure.kind for figure in found.figures}
    assert kinds == {"vehicles", "people"}
    assert kinds <= set(NOUN_KINDS)
    assert "kind" not in found.to_json()["figures"][0]


def test_a_figure_made_by_hand_is_read_by_its_words() -> None:
    buses = FigureMention("buses", None, "40 buses left.", "", 0, 8, 40)
    buses_in_arabic = FigureMention("حافلة", None, "خرجت 20 حافلة", "", 5, 7, 20)
    convoys = FigureMention("convoys", None, "3 convoys left.", "", 0, 9, 3)
    assert (noun_kind(buses), noun_kind(buses_in_arabic), noun_kind(convoys)) == (
        "vehicles", "vehicles", "convoys"
    )  # fmt: skip
    assert (is_vehicle(buses), is_people(buses)) == (True, False)
    assert (is_vehicle(convoys), is_people(convoys)) == (False, False)
