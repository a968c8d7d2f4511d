"""What a map export holds: the scenario, the view, the page size and the frame (a typed record)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from geo import extent
from geo.mapview import MapView
from geo.mapview.viewport import ViewRequest
from geo.records import Scenario


@dataclass(frozen=True)
class Snapshot:
    """What to export: the scenario, the view (moment, layers, filters), the page size,
    for CSV whether to write HXL hashtags, and the map's frame (None: the story frame)."""

    scenario: Scenario
    view: MapView
    width: int = 1600
    height: int = 1000
    scale: float = 1.0
    paper: str = "A4"
    created: datetime | None = None
    hxl: bool = False
    """CSV: an HXL hashtag row under every table's header (for HDX)."""
    frame: ViewRequest | None = None
    """The view the map opens on (geo.extent.on_screen, geo.extent.asked); None: the story at
    the moment, as the dashboard first frames it."""
    frame_note: str = extent.SCREEN_NOTE
    """What the page says a `frame` is (geo.extent.SCREEN_NOTE or ASKED_NOTE)."""

    @property
    def made(self) -> datetime:
        return self.created or datetime.now(UTC)

    @property
    def extent_note(self) -> str:
        """The line a map export carries saying what it frames."""
        return extent.STORY_NOTE if self.frame is None else self.frame_note
