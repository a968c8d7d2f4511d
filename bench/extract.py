"""Extraction speed: kilobytes of news text read per second once the index is built."""

from __future__ import annotations

import resource
import statistics
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from geo.reading import extract, geocoder_for  # noqa: E402

RUNS = 5
COPIES = 40


def main() -> None:
    reports = sorted((ROOT / "tests" / "data" / "reports").glob("*.txt"))
    text = "\n".join(path.read_text(encoding="utf-8") for path in reports) * COPIES
    start = time.perf_counter()
    geocoder_for(None).geocode("Aleppo")  # as the app reads: no country given, none assumed
    ready = time.perf_counter() - start
    extract(text[:5000], published=date(2016, 12, 15))  # warm caches
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        found = extract(text, published=date(2016, 12, 15))
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    print(f"{len(reports)} reports × {COPIES} = {len(text) / 1000:,.0f} KB of text; "
          f"median of {RUNS} runs")  # fmt: skip
    print(f"index ready                {ready:.2f} s")
    print(f"extract                    {seconds:.2f} s")
    print(f"speed                      {len(text) / 1000 / seconds:,.0f} KB/s")
    print(f"places / figures / drafts  {len(found.places):,} / {len(found.figures):,} / "
          f"{len(found.convoys):,}")  # fmt: skip
    print(f"read as about              {', '.join(found.homes) or 'no country'}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS                   {peak:,.0f} MB")


if __name__ == "__main__":
    main()
