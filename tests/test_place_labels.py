"""Place names printed in English, Arabic or both: which Arabic name, from where, and how."""

from __future__ import annotations

from dataclasses import replace

import pytest

from geo.geocoding import gazetteer
from geo.mapview.place_labels import LabelLanguage, arabic_names, best_arabic, label, own_arabic
from geo.records import Scenario
from geo.scenario import read_scenario
from geo.settings import Settings


@pytest.fixture(scope="module")
def shipped() -> Scenario:
    return read_scenario(Settings.from_environment().default_scenario_dir)


def test_geonames_forms_are_chosen_by_their_consonants() -> None:
    # GeoNames lists a misspelling first; the emphatic ţ of the transliteration picks طرطوس.
    assert best_arabic(["ترطوس", "طرطوس"], "Ţarţūs") == "طرطوس"
    assert best_arabic(["حمص", "مدينة حمص"], "Homs") == "حمص"


def test_the_form_written_most_often_wins_and_is_printed_with_its_article() -> None:
    forms = ["ئاممان", "امان", "عمان", "عمان شہر", "عمّان", "عَمّان", "عەممان"]
    assert best_arabic(forms, "Amman") == "عمان"
    assert best_arabic(["الرقة", "رقه", "ڕەققە"], "Ar Raqqah") == "الرقة"


def test_persian_and_kurdish_spellings_and_latin_names_are_never_printed() -> None:
    assert best_arabic(["ڕەققە", "Raqqa", "دیمەشق"], "Ar Raqqah") == ""


def test_curated_rows_keep_the_name_their_editors_put_first() -> None:
    assert best_arabic(["حلب الشرقية", "شرق حلب"], "East Aleppo", curated=True) == "حلب الشرقية"


def test_the_shipped_places_get_their_arabic_names_from_the_gazetteer(shipped: Scenario) -> None:
    found = arabic_names(shipped.places, gazetteer.default())
    assert found["aleppo"] == "حلب"
    assert found["east-aleppo"] == "حلب الشرقية"  # curated, first in data/gazetteer/aliases
    assert found["fuaa"] == "الفوعة"
    assert found["idlib-province"] == "محافظة إدلب"
    assert "opposition-west-of-aleppo" not in found  # a description, in no gazetteer


def test_a_place_s_own_arabic_alias_comes_first(shipped: Scenario) -> None:
    aleppo = next(p for p in shipped.places if p.id == "aleppo")
    mine = replace(aleppo, aliases=(*aleppo.aliases, "حلب الشهباء"))
    assert own_arabic(mine) == "حلب الشهباء"
    assert arabic_names([mine], gazetteer.default()) == {"aleppo": "حلب الشهباء"}


def test_a_namesake_far_away_lends_no_name(shipped: Scenario) -> None:
    aleppo = next(p for p in shipped.places if p.id == "aleppo")
    moved = replace(aleppo, latitude=aleppo.latitude + 0.5)  # 55 km north of Aleppo
    assert arabic_names([moved], gazetteer.default()) == {}


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "Aleppo"), ("ar", "حلب"), ("both", "Aleppo · حلب")],
)
def test_label_in_each_language(language: str, expected: str) -> None:
    assert label("Aleppo", "حلب", LabelLanguage(language)) == expected


def test_a_place_without_an_arabic_name_keeps_its_english_one() -> None:
    assert label("Opposition territory", "", LabelLanguage.ARABIC) == "Opposition territory"
