"""How an import reads a file: its options, the layers in order, the fields of places and times."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from geo import _schema as s
from geo.readers import ZipLimits

ORDER = ("places", "convoys", "routes", "figures", "zones", "events")
"""Layers in the order they are read: places first, so that later rows can name them."""
KINDS = {kind.name: kind for kind in (s.PLACES, s.CONVOYS, s.ROUTES, s.FIGURES, s.ZONES, s.EVENTS)}
PLACE_FIELDS = {"convoys": ("origin", "destination", "via"), "routes": ("from", "to"),
                "figures": ("place",)}  # fmt: skip
"""Fields that refer to places: an id, or a name resolved to a place (made when new)."""
MOMENT_FIELDS = {"convoys": ("depart", "arrive"), "figures": ("reported",),
                 "zones": ("valid_from", "valid_to")}  # fmt: skip
"""Fields that hold a moment (a time with its UTC offset)."""
FIGURE_PLACE_CELLS = ("latitude", "longitude", "admin1", "country_code")
"""Cells of a figure's row that say where its place is (IOM DTM tables give them)."""
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
"""The largest file accepted (Streamlit's server.maxUploadSize says the same to the browser)."""
UNZIPPED_LIMITS = ZipLimits(max_total_bytes=4 * MAX_UPLOAD_BYTES)
"""A zip may hold four times the upload limit once unpacked (a zipped Shapefile packs about
three to one); more is refused from its directory, before a byte is unpacked."""


@dataclass(frozen=True)
class Options:
    """How to read a file.

    Attributes
    ----------
    layer
        The layer every row goes to (None: guessed from the file).
    defaults
        Values for cells a file leaves blank, by field name (e.g. control, holder, valid_from
        for traced zones; convoy for a GPS track; status for a convoy list).
    swap
        Rows (their ``where``, as reported) whose latitude and longitude are to be swapped.
    max_bytes
        The largest file read.
    """

    layer: str | None = None
    defaults: Mapping[str, str] = field(default_factory=dict)
    swap: frozenset[str] = frozenset()
    max_bytes: int = MAX_UPLOAD_BYTES
    """The largest file read (a zip may hold four times this once unpacked): the browser's
    upload limit unless a command line reading the user's own file says more."""
    sheet: str | None = None
    """The one sheet of a workbook to read (None: every sheet with columns Corridor reads)."""
    check_only: bool = False
    """A dry run: a CSV file's rows are read, checked and counted a chunk at a time, and only
    its events are kept (the places, convoys … it adds are counted, not held: the `Prepared`
    cannot be committed)."""
