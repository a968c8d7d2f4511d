"""The countries a scenario is about: where its reports are read and its names looked up."""

from __future__ import annotations

from collections import Counter
from typing import Any

HOME_SHARE = 0.25
"""A country holding this share of a scenario's places is one of its homes."""


def scenario_homes(scenario: Any | None) -> tuple[str, ...]:
    """The scenario's own countries when it names them, else the countries most of its places
    lie in (ISO 3166-1 codes, most first); () for none or a scenario without places."""
    if scenario is None:
        return ()
    declared = tuple(code.upper() for code in getattr(scenario, "countries", ()) or () if code)
    if declared:
        return declared
    counts = Counter(p.country_code.upper() for p in scenario.places if p.country_code)
    total = sum(counts.values())
    return tuple(code for code, n in counts.most_common() if n >= HOME_SHARE * total)
