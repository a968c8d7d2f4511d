"""Extraction speed: kilobytes of news text read per second once the index is built."""

from __future__ import annotations

import statistics
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from geo.extract import extract  # noqa: E402
from geo.geocoding import OfflineGeocoder  # noqa: E402

RUNS = 5
COPIES = 40


def main() -> None:
    reports = sorted((ROOT / "tests" / "data" / "reports").glob("*.txt"))
    text = "\n".join(path.read_text(encoding="utf-8") for path in reports) * COPIES
    start = time.perf_counter()
    geocoder = OfflineGeocoder()
    geocoder.geocode("Aleppo")
    ready = time.perf_counter() - start
    extract(text[:5000], published=date(2016, 12, 15), geocoder=geocoder)  # warm caches
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        found = extract(text, published=date(2016, 12, 15), geocoder=geocoder)
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    print(f"{len(reports)} reports × {COPIES} = {len(text) / 1000:,.0f} KB of text; "
          f"median of {RUNS} runs")  # fmt: skip
    print(f"index ready                {ready:.2f} s")
    print(f"extract                    {seconds:.2f} s")
    print(f"speed                      {len(text) / 1000 / seconds:,.0f} KB/s")
    print(f"places / figures / drafts  {len(found.places):,} / {len(found.figures):,} / "
          f"{len(found.convoys):,}")  # fmt: skip


if __name__ == "__main__":
    main()
