"""Extractor quality on the hand-labelled reports: places, figures and convoy endpoints.

For every tests/data/reports/<name>.labels.json, runs geo.reading.extract on <name>.txt (less its
"Published:" header) and compares with the labels. A predicted place is correct when its span
overlaps a labelled mention and it lies within 10 km of the label (25 km for a road, 100 km for
a region or governorate; a country must be the same country); a predicted figure is correct when
its span overlaps a labelled figure and its value, or its low and high, are the same.

"read right" is the share of labelled places whose span was found at all that were also put in
the right place (so a name found but geocoded to the wrong town counts against it, a name missed
altogether doesn't).

Reports whose labels have "convoys" (one per sentence that reports a movement, with its origin
and destination or null) are also scored for origin and destination recall: a labelled origin is
found when a convoy draft whose sentence overlaps the labelled sentence names an origin, and the
extracted place of that name lies within 10 km of the label (25 km when the label is a region;
the same country when it is a country); likewise for destinations. `--set NAME` (repeatable)
picks the sets. Prints a table; exits 0, or 2 when geo.reading won't import.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "tests" / "data" / "reports"
HOLDOUT = REPORTS / "holdout"
HOLDOUT_2 = REPORTS / "holdout2"
ARABIC = REPORTS / "arabic"
"""Arabic reports (issue 18), written and labelled blind by another hand."""
ARABIC_HOLDOUT = REPORTS / "arabic-holdout"
"""Four more Arabic reports by another hand, scored once before any rule was changed."""
WORLD = REPORTS / "world"
"""Reports of evacuations outside Syria written in the manner of published copy (issue 38)."""
WORLD_HOLDOUT = REPORTS / "world-holdout"
"""Reports outside Syria written and labelled blind by another hand, kept for a first run."""
WORLD_HOLDOUT_2 = REPORTS / "world-holdout2"
"""A second blind set (Mozambique, Ethiopia, DR Congo, Yemen), once the first was spent."""
WORLD_HOLDOUT_3 = REPORTS / "world-holdout3"
"""A third blind set (Haiti, Burkina Faso, South Sudan, the Philippines, Ukraine)."""
WORLD_HOLDOUT_4 = REPORTS / "world-holdout4"
"""A fourth blind set (Nigeria, Somalia, Central African Republic, Pakistan, Venezuela)."""
WORLD_HOLDOUT_5 = REPORTS / "world-holdout5"
"""A fifth blind set (Turkey, Kosovo, Sri Lanka, St Vincent, Malawi)."""
WORLD_HOLDOUT_6 = REPORTS / "world-holdout6"
"""A sixth blind set (Sudan's Al Jazirah, Donetsk, Myawaddy, Haiyan, Idai, Fallujah, Libya 2011,
Fort McMurray)."""
WORLD_HOLDOUT_7 = REPORTS / "world-holdout7"
"""A seventh blind set (Fukushima, Sindh floods, Georgia 2008, Rhodes fires, Dorian, Nepal 2015,
the Camp Fire, Mali 2013)."""
WORLD_HOLDOUT_8 = REPORTS / "world-holdout8"
"""An eighth blind set (Sulawesi 2018, Al Haouz 2023, Osh 2010, Mallacoota 2020, Burundi 2015,
Eta in Honduras 2020, Chechnya 1999, La Palma 2021)."""
WORLD_HOLDOUT_9 = REPORTS / "world-holdout9"
"""A ninth blind set (the Kakhovka dam 2023, Haiti 2010, Manipur 2023, the Ahr valley 2021, Fuego
2018, Enga 2024)."""
WORLD_HOLDOUT_10 = REPORTS / "world-holdout10"
"""A tenth blind set (Sinjar 2014, Lebanon 2006 via Cyprus, Katrina 2005, Kursk 2024, Valencia
2024, Cyclone Mocha 2023)."""
NEAR_KM = 10.0
NEAR_AREA_KM = 25.0
NEAR_REGION_KM = 100.0
"""Two fair middles of a region (an oblast, a state, 'southern Lebanon') lie this far apart."""
AREA_KINDS = {"region", "country", "road"}
SENTENCE_END = re.compile("[.!?][\"'\u201d\u2019)]*(?=\\s|$)|\n")  # a full stop, maybe quoted
COLUMNS = (
    "places P",
    "places R",
    "figures P",
    "figures R",
    "read right",
    "origins R",
    "dest. R",
)

SETS = {
    "labelled": ("labelled set", REPORTS),
    "holdout1": ("holdout 1 (tuned on after its first run)", HOLDOUT),
    "holdout2": ("holdout 2 (tuned on after its first run)", HOLDOUT_2),
    "arabic": ("Arabic (issue 18)", ARABIC),
    "arabic-holdout": ("Arabic holdout", ARABIC_HOLDOUT),
    "world": ("outside Syria (issue 38)", WORLD),
    "world-holdout": (
        "outside Syria, blind holdout (spent: curated after its first run)",
        WORLD_HOLDOUT,
    ),
    "world-holdout2": (
        "outside Syria, holdout 2 (spent: curated after its first run)",
        WORLD_HOLDOUT_2,
    ),
    "world-holdout3": (
        "outside Syria, holdout 3 (spent: curated after its first run)",
        WORLD_HOLDOUT_3,
    ),
    "world-holdout4": (
        "outside Syria, holdout 4 (spent: curated after its first run)",
        WORLD_HOLDOUT_4,
    ),
    "world-holdout5": (
        "outside Syria, holdout 5 (spent: curated after its first run)",
        WORLD_HOLDOUT_5,
    ),
    "world-holdout6": (
        "outside Syria, holdout 6 (spent: curated after its first run)",
        WORLD_HOLDOUT_6,
    ),
    "world-holdout7": (
        "outside Syria, holdout 7 (spent: curated after its first run)",
        WORLD_HOLDOUT_7,
    ),
    "world-holdout8": (
        "outside Syria, holdout 8 (spent: tuned on after its first run)",
        WORLD_HOLDOUT_8,
    ),
    "world-holdout9": ("outside Syria, blind holdout 9", WORLD_HOLDOUT_9),
    "world-holdout10": ("outside Syria, blind holdout 10", WORLD_HOLDOUT_10),
}
DEFAULT_SETS = ["labelled", "holdout1", "holdout2", "arabic", "arabic-holdout", "world"]
"""Every set but the blind holdouts, which are run on purpose (`--set world-holdout2`)."""

Item = dict[str, Any]
Match = Callable[[Item, Item], bool]


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance (haversine, mean Earth radius)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dlat, dlon = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dlat / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlon / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def overlaps(a: Item, b: Item) -> bool:
    return bool(a["start"] < b["end"] and b["start"] < a["end"])


def near(place: Item, label: Item, kind: str) -> bool:
    limit = NEAR_REGION_KM if kind == "region" else NEAR_AREA_KM if kind in AREA_KINDS else NEAR_KM
    where = (place["latitude"], place["longitude"], label["latitude"], label["longitude"])
    return distance_km(*where) <= limit


def same_place(predicted: Item, label: Item) -> bool:
    if label["kind"] == "country":  # a country is right when it is the right country
        return bool(
            overlaps(predicted, label) and predicted["country_code"] == label["country_code"]
        )
    return overlaps(predicted, label) and near(predicted, label, label["kind"])


def same_figure(predicted: Item, label: Item) -> bool:
    numbers = ("value", "low", "high")
    return overlaps(predicted, label) and all(predicted.get(k) == label.get(k) for k in numbers)


def with_span(figure: Item, body: str) -> Item:
    """A figure without offsets gets its sentence's span (-1, -1 if the sentence isn't found)."""
    if "start" in figure:
        return figure
    start = body.find(figure.get("sentence") or "\0")
    end = start + len(figure["sentence"]) if start >= 0 else -1
    return {**figure, "start": start, "end": end}


def score(predicted: list[Item], labels: list[Item], match: Match) -> list[int]:
    """[correct predictions, predictions, labels found, labels]."""
    correct = sum(any(match(p, label) for label in labels) for p in predicted)
    found = sum(any(match(p, label) for p in predicted) for label in labels)
    return [correct, len(predicted), found, len(labels)]


def read_right(predicted: list[Item], labels: list[Item]) -> list[int]:
    """[labelled places put in the right place, labelled places whose span was found]."""
    spotted = [label for label in labels if any(overlaps(p, label) for p in predicted)]
    right = sum(any(same_place(p, label) for p in predicted) for label in spotted)
    return [right, len(spotted)]


def sentence_span(body: str, start: int) -> Item:
    """The labelled sentence from its start to its full stop (or the end of its line)."""
    stop = SENTENCE_END.search(body, start + 1)
    return {"start": start, "end": stop.end() if stop else len(body)}


def endpoint_place(endpoint: Item, places: list[Item]) -> Item:
    """The labelled place at the endpoint's position (a point of no kind if none is)."""
    for place in places:
        if (place["latitude"], place["longitude"]) == (endpoint["latitude"], endpoint["longitude"]):
            return place
    return {**endpoint, "kind": "point", "country_code": ""}


def endpoint_near(place: Item, endpoint: Item, labelled: Item) -> bool:
    """Within reach of the labelled end; a country is right when it is the same country."""
    if labelled["kind"] == "country":
        return bool(
            place["kind"] == "country" and place["country_code"] == labelled["country_code"]
        )
    return near(place, endpoint, labelled["kind"])


def endpoint_found(role: str, label: Item, found: Item, body: str, places: list[Item]) -> bool:
    """Whether a draft of the labelled sentence names a `role` place near the labelled one."""
    endpoint = label[role]
    labelled = endpoint_place(endpoint, places)
    sentence = sentence_span(body, label["sentence_start"])
    for draft in found["convoys"]:
        span = {"start": draft["start"], "end": draft["start"] + len(draft["sentence"])}
        if not (draft[role] and overlaps(span, sentence)):
            continue
        named = [p for p in found["places"] if p["name"] == draft[role]]
        inside = [p for p in named if overlaps(p, span)]
        if any(endpoint_near(place, endpoint, labelled) for place in inside or named):
            return True
    return False


def convoy_counts(labels: Item, found: Item, body: str) -> list[int]:
    """[origins found, labelled origins, destinations found, labelled destinations]."""
    counts = []
    for role in ("origin", "destination"):
        wanted = [c for c in labels.get("convoys", []) if c[role]]
        hits = sum(endpoint_found(role, c, found, body, labels["places"]) for c in wanted)
        counts += [hits, len(wanted)]
    return counts


def ratio(hits: int, total: int) -> str:
    share = f"{hits / total:.2f}" if total else "  - "
    return f"{share} ({hits}/{total})"


def row(name: str, counts: list[int]) -> str:
    cells = [ratio(counts[i], counts[i + 1]) for i in range(0, len(counts), 2)]
    return f"{name:<30}" + "".join(f"{cell:>16}" for cell in cells)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    try:
        from geo.reading import extract
    except Exception as error:  # noqa: BLE001 - whatever stops the import, nothing to measure
        problem = f"{type(error).__name__}: {error}"
        print(f"cannot measure: geo.reading does not import ({problem})", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set", action="append", choices=sorted(SETS), dest="sets", help="a set (repeatable)"
    )
    chosen = parser.parse_args().sets or DEFAULT_SETS
    for name in chosen:
        title, folder = SETS[name]
        table(title, sorted(folder.glob("*.labels.json")), extract)
    return 0


def table(title: str, paths: list[Path], extract: Callable[..., Any]) -> None:
    """One row per labelled report, then the total."""
    header = f"{title:<30}" + "".join(f"{column:>16}" for column in COLUMNS)
    print(header)
    print("-" * len(header))
    totals = [0] * (2 * len(COLUMNS))
    for path in paths:
        name = path.name.removesuffix(".labels.json")
        labels = json.loads(path.read_text(encoding="utf-8"))
        text = (path.parent / f"{name}.txt").read_text(encoding="utf-8")
        body = text.split("\n", 2)[2] if text.startswith("Published:") else text
        found = extract(body, published=date.fromisoformat(labels["published"])).to_json()
        figures = [with_span(figure, body) for figure in found["figures"]]
        counts = score(found["places"], labels["places"], same_place)
        counts += score(figures, labels["figures"], same_figure)
        counts += read_right(found["places"], labels["places"])
        counts += convoy_counts(labels, found, body)
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        print(row(name, counts))
    print("-" * len(header))
    print(row("total", totals))
    print()


if __name__ == "__main__":
    sys.exit(main())
