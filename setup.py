"""What `pip install .` puts in the package: geo, the shipped data, and the map assets when
`make install` has fetched them (the rest of the metadata is in pyproject.toml)."""

from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
DATA = [
    "README.md",
    "basemap/*",
    "basemap/world/*",
    "gazetteer/*",
    "gazetteer/aliases/*",
    "interface/*",
    "reading/*",
    "scenarios/*/*",
]
ASSETS = [  # the files geo/mapview/assets.py reads, the images their styles use, and each licence
    "*/package.json",
    "*/LICENSE*",
    "leaflet/dist/*",
    "leaflet/dist/images/*",
    "leaflet-ant-path/dist/*",
    "leaflet.fullscreen/*.js",
    "leaflet.fullscreen/*.css",
    "leaflet.fullscreen/*.svg",
    "leaflet-measure/dist/*",
    "leaflet-measure/dist/assets/*",
    "leaflet.markercluster/dist/*",
    "leaflet-draw/dist/*",
    "leaflet-draw/dist/images/*",
    "supercluster/dist/*",
]

packages = [*find_packages(include=["geo", "geo.*"]), "corridor_data"]  # (every geo package)
folders = {"corridor_data": "data"}
files = {"corridor_data": DATA}
if (HERE / "assets" / "node_modules").is_dir():
    packages.append("corridor_assets")
    folders["corridor_assets"] = "assets/node_modules"
    files["corridor_assets"] = ASSETS

setup(packages=packages, package_dir=folders, package_data=files, include_package_data=False)
