"""Count.parse: the grammar of reported numbers."""

from __future__ import annotations

import pytest

from geo.records import Count, Qualifier


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", Count(0, 0)),
        ("200", Count(200, 200)),
        ("  200 ", Count(200, 200)),
        ("3,000", Count(3000, 3000)),
        ("1,234,567", Count(1234567, 1234567)),
        ("1500-5000", Count(1500, 5000)),
        ("1,500-5,000", Count(1500, 5000)),
        ("1500 - 5000", Count(1500, 5000)),
        ("1500\u20135000", Count(1500, 5000)),
        ("1,500 \u2013 5,000", Count(1500, 5000)),
        ("200-200", Count(200, 200)),
    ],
)
def test_numbers_and_ranges(text: str, expected: Count) -> None:
    assert Count.parse(text) == expected


@pytest.mark.parametrize(
    ("word", "qualifier"),
    [
        ("about", Qualifier.ABOUT),
        ("around", Qualifier.ABOUT),
        ("some", Qualifier.ABOUT),
        ("approximately", Qualifier.ABOUT),
        ("roughly", Qualifier.ABOUT),
        ("at least", Qualifier.AT_LEAST),
        ("more than", Qualifier.MORE_THAN),
        ("over", Qualifier.MORE_THAN),
        ("nearly", Qualifier.NEARLY),
        ("almost", Qualifier.NEARLY),
        ("up to", Qualifier.UP_TO),
        ("at most", Qualifier.UP_TO),
        ("fewer than", Qualifier.FEWER_THAN),
        ("less than", Qualifier.FEWER_THAN),
        ("About", Qualifier.ABOUT),
        ("MORE  THAN", Qualifier.MORE_THAN),
    ],
)
def test_qualifiers_and_synonyms(word: str, qualifier: Qualifier) -> None:
    assert Count.parse(f"{word} 3,000") == Count(3000, 3000, qualifier)


def test_qualified_range() -> None:
    assert Count.parse("about 1500-5000") == Count(1500, 5000, Qualifier.ABOUT)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("200", "200"),
        ("3,000", "3000"),
        ("some 3,000", "about 3000"),
        ("over 40", "more than 40"),
        ("less than 10", "fewer than 10"),
        ("1,500\u20135,000", "1500-5000"),
        ("at least 4000", "at least 4000"),
        ("nearly 1-2", "nearly 1-2"),
    ],
)
def test_str_round_trip(text: str, shown: str) -> None:
    count = Count.parse(text)
    assert str(count) == shown
    assert Count.parse(str(count)) == count


def test_is_range() -> None:
    assert Count.parse("1500-5000").is_range
    assert not Count.parse("about 200").is_range


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("-5", r"expected a count such as .*, got '-5'"),
        ("about -5", r"expected a count such as .*, got 'about -5'"),
        ("5000-1500", r"a range needs low <= high, got '5000-1500'"),
        ("many 200", r"unknown qualifier 'many' in 'many 200'"),
        ("at about 200", r"unknown qualifier 'at about' in 'at about 200'"),
        ("a great many 200", r"expected a count such as .*, got 'a great many 200'"),
        ("", r"expected a count such as .*, got ''"),
        ("   ", r"expected a count such as .*, got '   '"),
        ("about", r"expected a count such as .*, got 'about'"),
        ("2.5", r"expected a count such as .*, got '2\.5'"),
        ("3,00", r"expected a count such as .*, got '3,00'"),
        ("200 people", r"expected a count such as .*, got '200 people'"),
    ],
)
def test_rejects(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Count.parse(text)


@pytest.mark.parametrize(("low", "high"), [(-1, 5), (5, 1)])
def test_constructor_rejects_bad_bounds(low: int, high: int) -> None:
    with pytest.raises(ValueError, match=r"0 <= low <= high"):
        Count(low, high)
