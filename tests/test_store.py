"""The store interface: `open_workspace` picks the backend, and every backend answers it whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from geo.errors import WorkspaceError
from geo.store import GeoPackageWorkspace, Workspace, open_workspace
from geo.store.postgis import PostgisWorkspace

BACKENDS = (GeoPackageWorkspace, PostgisWorkspace)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_answers_the_whole_interface(backend: type[Workspace]) -> None:
    assert issubclass(backend, Workspace)
    assert not backend.__abstractmethods__


@pytest.mark.parametrize(
    ("location", "backend"),
    [
        ("postgresql://host/db", PostgisWorkspace),
        ("postgres://host/db?options=-csearch_path%3Dteam", PostgisWorkspace),
        ("workspace.gpkg", GeoPackageWorkspace),
        (Path("workspace.gpkg"), GeoPackageWorkspace),
    ],
)
def test_open_workspace_tells_a_url_from_a_path(location: Path | str, backend: type) -> None:
    workspace = open_workspace(location)
    assert type(workspace) is backend
    assert workspace.shared is (backend is PostgisWorkspace)
    assert str(workspace.location) == str(location)  # (a path as given, a URL as text)


def test_a_geopackage_has_no_roles(tmp_path: Path) -> None:
    workspace = open_workspace(tmp_path / "w.gpkg")
    assert workspace.signed_in() == ("", "")
    assert workspace.listener() is None
    assert workspace.author("amal") == "amal"
    assert workspace.modified() == 0.0
    with pytest.raises(WorkspaceError, match="no roles to sign in as"):
        workspace.sign_in("amal", "secret")
