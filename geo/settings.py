"""Corridor's settings: one read-only object, read from the environment once."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CHECKOUT = not (PROJECT_ROOT / "corridor_data").is_dir()
"""Whether Corridor runs from its repository (`make run`, `python -m geo`, an editable install)
rather than installed (`pip install .`, the `corridor` command), where its data comes as the
package `corridor_data` beside `geo`."""


def _installed(package: str) -> Path:
    """The folder of a data package that `pip install .` puts beside `geo` (see setup.py)."""
    return PROJECT_ROOT / package


def _user_folder(variable: str, fallback: str) -> Path:
    """An XDG base folder (e.g. ~/.local/share) with Corridor's own folder in it."""
    return Path(os.environ.get(variable) or Path.home() / fallback) / "corridor"


DATA_DIR = PROJECT_ROOT / "data" if CHECKOUT else _installed("corridor_data")
"""The shipped data: scenarios, gazetteer, base map, reading lists, interface words."""
ASSETS_DIR = PROJECT_ROOT / "assets" / "node_modules" if CHECKOUT else _installed("corridor_assets")
"""Leaflet and its plugins as npm installs them (`make install`), copied into an installed
package when it was built from a checkout that has them."""
CACHE_DIR = PROJECT_ROOT / ".cache" if CHECKOUT else _user_folder("XDG_CACHE_HOME", ".cache")
"""Where derived files are kept between runs (the gazetteer's index)."""
WORKSPACE = (
    DATA_DIR / "workspace.gpkg"
    if CHECKOUT
    else (_user_folder("XDG_DATA_HOME", ".local/share") / "workspace.gpkg")
)
"""The workspace unless CORRIDOR_WORKSPACE or --workspace names another."""
USER_AGENT = "corridor/0.1 (offline-first evacuation maps)"
"""What Corridor calls itself to a web service (geopy's geocoders send it)."""


@dataclass(frozen=True)
class Settings:
    """Where Corridor keeps its data.

    Attributes
    ----------
    workspace
        The GeoPackage workspace; ``CORRIDOR_WORKSPACE`` overrides ``data/workspace.gpkg``
        (installed: ``~/.local/share/corridor/workspace.gpkg``).
    scenarios_dir
        The folder of shipped scenarios, ``data/scenarios``.
    default_scenario
        The scenario `make run` prepares the workspace from.
    sign_in_unchecked
        ``CORRIDOR_SIGN_IN_UNCHECKED=1``: a team workspace's sign-in form accepts a database
        that does not check passwords (trust authentication), for a test machine alone.
    """

    workspace: str
    """A GeoPackage's path, or a PostGIS database's ``postgresql://`` URL, as text
    (`geo.store.open_workspace` tells which)."""
    scenarios_dir: Path
    default_scenario: str
    sign_in_unchecked: bool = False

    @classmethod
    def from_environment(cls) -> Settings:
        return cls(
            workspace=os.environ.get("CORRIDOR_WORKSPACE") or str(WORKSPACE),
            scenarios_dir=DATA_DIR / "scenarios",
            default_scenario="aleppo-2016-12",
            sign_in_unchecked=os.environ.get("CORRIDOR_SIGN_IN_UNCHECKED") == "1",
        )

    @property
    def default_scenario_dir(self) -> Path:
        return self.scenarios_dir / self.default_scenario
