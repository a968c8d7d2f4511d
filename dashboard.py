"""Corridor's dashboard: its pages, named in the interface's language (the map first)."""

from __future__ import annotations

import streamlit as st

from geo import messages
from pages.shared.session import language

# Each page's file, its name (in English: the catalogue has its Arabic) and its address (the
# map's is the dashboard's own). No bare string here: Streamlit's magic would print it.
PAGES = (
    ("pages/map.py", "Map", None),
    ("pages/from_a_report.py", "From a report", "from_a_report"),
    ("pages/import_and_edit.py", "Import and edit", "import_and_edit"),
    ("pages/new_scenario.py", "New scenario", "new_scenario"),
)


def main() -> None:
    st.set_page_config(page_title="Corridor", layout="wide")
    name = messages.words(language())
    pages = [
        st.Page(path, title=name(title), url_path=address, default=address is None)
        for path, title, address in PAGES
    ]
    st.navigation(pages).run()


main()
