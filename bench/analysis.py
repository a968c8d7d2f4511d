"""Route risk speed: 1,000 routes against 100,000 events and the zones; prints a table.

.venv/bin/python bench/analysis.py
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from collections import Counter
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geo import analysis, synthetic


def main() -> None:
    scenario = synthetic.generate(events=100_000, convoys=1_000, zones=40)
    at = scenario.start + timedelta(days=15)
    start = time.perf_counter()
    risks = analysis.analyse(scenario, at)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    analysis.analyse(scenario, at + timedelta(hours=6))
    warm = time.perf_counter() - start
    fresh = synthetic.generate(events=100_000, convoys=1_000, zones=40)  # nothing remembered
    tracemalloc.start()  # in a run of its own: tracing slows every allocation
    analysis.analyse(fresh, at)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    levels = Counter(risk.level for risk in risks)
    rows = [
        (
            "routes / events / zones",
            f"{len(risks):,} / {len(scenario.events):,} / {len(scenario.zones)}",
        ),
        ("analyse, first (projects events, builds the index)", f"{cold:.2f} s"),
        ("analyse, another moment (index kept)", f"{warm:.2f} s"),
        ("Python peak memory (tracemalloc)", f"{peak:.0f} MB"),
        ("levels high / medium / low", f"{levels['high']} / {levels['medium']} / {levels['low']}"),
        ("alerts", f"{sum(risk.alert for risk in risks)}"),
        ("events within 5 km in 7 days, all routes", f"{sum(r.events for r in risks):,}"),
    ]
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
