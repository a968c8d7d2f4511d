"""Importing a user's file into a workspace scenario: each row goes in or is reported, none lost.

`flow`: a file prepared (read and checked, what it would add) and committed, a newer export's
revised and vanished events; `options`: how a file is read and the layers in order; `chunks`:
the file read into raw rows and checked, whole, a chunk at a time or a column at a time;
`rows`: each row filled in and checked against the scenario (defaults, place names, ids).
"""

from __future__ import annotations

from geo.importing.flow import (
    SWAPPED,
    Prepared,
    commit_import,
    prepare,
    prepare_upload,
    upload_sheets,
)
from geo.importing.options import (
    KINDS,
    MAX_UPLOAD_BYTES,
    ORDER,
    UNZIPPED_LIMITS,
    Options,
)
from geo.importing.rows import slug

__all__ = [
    "KINDS",
    "MAX_UPLOAD_BYTES",
    "ORDER",
    "SWAPPED",
    "UNZIPPED_LIMITS",
    "Options",
    "Prepared",
    "commit_import",
    "prepare",
    "prepare_upload",
    "slug",
    "upload_sheets",
]
