"""Extractor quality on the hand-labelled reports: places and figures, precision and recall.

For every tests/data/reports/<name>.labels.json, runs geo.extract.extract on <name>.txt (less its
"Published:" header) and compares with the labels. A predicted place is correct when its span
overlaps a labelled mention and it lies within 10 km of the label (60 km for a region; a
country must be the same country); a predicted figure is correct when its span overlaps a
labelled figure and its value, or its low and high, are the same. Prints a table; exits 0, or 2
when geo.extract won't import.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "tests" / "data" / "reports"
NEAR_KM = 10.0
NEAR_AREA_KM = 60.0
AREA_KINDS = {"region", "country"}

Item = dict[str, Any]
Match = Callable[[Item, Item], bool]


def distance_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance (haversine, mean Earth radius)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dlat, dlon = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dlat / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlon / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


def overlaps(a: Item, b: Item) -> bool:
    return a["start"] < b["end"] and b["start"] < a["end"]


def same_place(predicted: Item, label: Item) -> bool:
    if label["kind"] == "country":  # a country is right when it is the right country
        return bool(
            overlaps(predicted, label) and predicted["country_code"] == label["country_code"]
        )
    limit = NEAR_AREA_KM if label["kind"] in AREA_KINDS else NEAR_KM
    where = (predicted["latitude"], predicted["longitude"], label["latitude"], label["longitude"])
    return overlaps(predicted, label) and distance_km(*where) <= limit


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


def ratio(hits: int, total: int) -> str:
    share = f"{hits / total:.2f}" if total else "  - "
    return f"{share} ({hits}/{total})"


def row(name: str, counts: list[int]) -> str:
    cells = [ratio(counts[i], counts[i + 1]) for i in range(0, 8, 2)]
    return f"{name:<22}" + "".join(f"{cell:>16}" for cell in cells)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    try:
        from geo.extract import extract
    except Exception as error:  # noqa: BLE001 - whatever stops the import, nothing to measure
        problem = f"{type(error).__name__}: {error}"
        print(f"cannot measure: geo.extract does not import ({problem})", file=sys.stderr)
        return 2
    header = f"{'report':<22}" + "".join(
        f"{title:>16}" for title in ("places P", "places R", "figures P", "figures R")
    )
    print(header)
    print("-" * len(header))
    totals = [0] * 8
    for path in sorted(REPORTS.glob("*.labels.json")):
        name = path.name.removesuffix(".labels.json")
        labels = json.loads(path.read_text(encoding="utf-8"))
        text = (REPORTS / f"{name}.txt").read_text(encoding="utf-8")
        body = text.split("\n", 2)[2] if text.startswith("Published:") else text
        found = extract(body, published=date.fromisoformat(labels["published"])).to_json()
        figures = [with_span(figure, body) for figure in found["figures"]]
        counts = score(found["places"], labels["places"], same_place)
        counts += score(figures, labels["figures"], same_figure)
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        print(row(name, counts))
    print("-" * len(header))
    print(row("total", totals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
