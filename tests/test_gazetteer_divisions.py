"""A first-level division under its bare name ("Chechnya") only when that is unambiguous."""

from __future__ import annotations

import pytest

from geo.geocoding.gazetteer_sources import DIVISION_SOURCE, SourceRows, with_bare_division_names
from geo.geocoding.names import normalise

Namesakes = dict[str, list[tuple[str, int]]]


def rows(*entries: tuple[str, list[str], int, str]) -> SourceRows:
    """(name, aliases, population, source) per entry; the other columns are filler."""
    found = SourceRows([], [], [], [], [], [], [], [], [], [], [])
    for number, (name, aliases, population, source) in enumerate(entries):
        found.ids.append(f"corridor:{number}")
        found.names.append(name)
        for column in (found.kinds, found.country_codes, found.admin1, found.precisions):
            column.append("")
        found.sources.append(source)
        found.latitudes.append(0.0)
        found.longitudes.append(0.0)
        found.populations.append(population)
        found.all_names.append([name, *aliases])
    return found


def added(found: SourceRows, namesakes: Namesakes | None = None) -> list[list[str]]:
    table = {normalise(name): places for name, places in (namesakes or {}).items()}
    result = with_bare_division_names(found, lambda key: table.get(key, []))
    return [
        after[len(before) :]
        for before, after in zip(found.all_names, result.all_names, strict=True)
    ]


CHECHNYA = (
    "Chechnya (Republic)",
    ["Chechnya region", "Chechnya republic"],
    932_274,
    DIVISION_SOURCE,
)


def test_a_division_far_bigger_than_its_namesake_village_gets_its_bare_name() -> None:
    assert added(rows(CHECHNYA), {"Chechnya": [("village", 1_350)]}) == [["Chechnya"]]


def test_an_alternate_name_gets_its_bare_form_too() -> None:
    ingush = ("Ingush", ["Ingush republic", "Ingushetia republic", "Ingushetia oblast"], 1, "")
    found = rows((*ingush[:3], DIVISION_SOURCE))
    assert added(found) == [["Ingushetia"]]


@pytest.mark.parametrize(
    ("namesakes", "people"),
    [
        ({"Kherson": [("town", 66_000)]}, 1_000_000),  # the city is what "Kherson" means
        ({"Kherson": [("village", 900)]}, 0),  # the division's people unknown
        ({"Kherson": [("country", 0)]}, 1_000_000),
    ],
)
def test_the_bare_name_is_withheld_when_a_namesake_counts(
    namesakes: Namesakes, people: int
) -> None:
    found = rows(("Kherson (Oblast)", ["Kherson oblast"], people, DIVISION_SOURCE))
    assert added(found, namesakes) == [[]]


def test_a_division_of_unknown_size_without_namesakes_gets_its_bare_name() -> None:
    found = rows(("Kherson (Oblast)", ["Kherson oblast"], 0, DIVISION_SOURCE))
    assert added(found) == [["Kherson"]]


def test_a_name_two_divisions_or_a_curated_place_carry_stays_with_neither() -> None:
    found = rows(
        ("Punjab Province", ["Punjab province"], 100_000_000, DIVISION_SOURCE),
        ("Punjab State", ["Punjab state"], 30_000_000, DIVISION_SOURCE),
        CHECHNYA,
        ("Chechnya", [], 0, "corridor:places"),
    )
    assert added(found) == [[], [], [], []]


def test_features_generic_words_and_other_sources_get_no_bare_name() -> None:
    found = rows(
        ("Fars (Province)", ["Persian Gulf province", "North region"], 4_000_000, DIVISION_SOURCE),
        ("Rivers State", ["Rivers state"], 7_000_000, DIVISION_SOURCE),
        ("Aleppo (Governorate)", ["Aleppo governorate"], 4_000_000, "corridor:governorates"),
    )
    assert added(found) == [["Fars"], [], []]
