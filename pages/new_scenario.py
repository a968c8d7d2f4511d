"""New scenario: start a crisis of one's own (title, time zone, span, first source, disclaimer)."""

from __future__ import annotations

from datetime import date, timedelta

import streamlit as st

from geo import new_scenario as n
from geo.errors import CorridorError
from geo.reading import read_home
from geo.safe_html import markdown_literal
from geo.store import Workspace, open_workspace
from pages.shared.session import (
    day_said,
    language_choice,
    t,
    viewer_only,
    who,
    workspace_location,
)


@st.cache_data(show_spinner=False)
def read_countries(text: str) -> tuple[str, ...]:
    return read_home(text)


def countries_of(text: str) -> tuple[str, ...]:
    """The countries the report is about (geo.reading.read_home), cached per text."""
    with st.spinner(t("Reading where the report is from…")):
        return read_countries(text)


def main() -> None:
    language_choice("new")
    st.title(t("New scenario"))
    st.caption(t(
        "Start a scenario for the crisis you work on: its title, time zone, time span, first "
        "source and disclaimer. Then add drafts from reports, import or draw places, zones and "
        "routes, and choose it under “Scenario” on the dashboard."
    ))  # fmt: skip
    who("new")
    workspace = open_workspace(workspace_location())
    if viewer_only(workspace):
        return
    report = st.text_area(t("A report to start from (optional)"), key="new_report", height=150)
    countries = countries_of(report) if report.strip() else ()
    title = st.text_input(t("Title"), key="new_title",
                          placeholder=t("El Fasher displacement, May 2024"))  # fmt: skip
    left, right = st.columns(2)
    country = left.text_input(
        t("Country (ISO code)"), value=countries[0] if countries else "",
        help=t("Read from the report when one is pasted; proposes the time zone"),
    ).strip().upper()  # fmt: skip
    timezone = right.text_input(t("Time zone (IANA)"), value=n.propose_timezone(country) or "UTC")
    published = left.date_input(t("The report's publication date"), value=date.today())
    start = right.date_input(t("Start"), value=published - timedelta(days=1))
    end = right.date_input(t("End"), value=start + timedelta(days=2))
    source_title = left.text_input(t("Source title"), value=n.title_line(report))
    publisher = left.text_input(t("Publisher"), placeholder=t("UNHCR, AP, a local newspaper…"))
    url = right.text_input(t("Source address (optional)"))
    disclaimer = st.text_area(t("Disclaimer"), value=n.DISCLAIMER)
    if st.button(t("Create the scenario"), key="create_scenario", disabled=not title.strip()):
        source = n.source_from(source_title or title, publisher, published, url=url)
        create(workspace, title, timezone, start, end, source, disclaimer, country)


def create(
    workspace: Workspace,
    title: str,
    timezone: str,
    start: date,
    end: date,
    source: n.Source,
    disclaimer: str,
    country: str,
) -> None:
    """Save the scenario in the workspace beside the others, or say why not."""
    try:
        scenario = n.new_scenario(
            title=title, timezone=timezone, start=start, end=end, source=source,
            disclaimer=disclaimer, countries=(country,) if country else (),
        )  # fmt: skip
        if workspace.exists() and scenario.id in workspace.scenario_ids():
            st.error(t("A scenario with the id {id} exists already: choose another title.",
                       id=repr(scenario.id)))  # fmt: skip
            return
        workspace.save(scenario)
    except CorridorError as error:
        st.error(t("The scenario was not created:") + f"\n\n{markdown_literal(str(error))}")
        return
    st.session_state["working_scenario"] = scenario.id  # (where the report page adds drafts)
    st.success(t(
        "Created {title} ({id}), {zone}, {start} to {end}. Drafts from reports go into it on "
        "From a report; choose it under “Scenario” on the dashboard or the import page.",
        title=markdown_literal(scenario.title), id=scenario.id, zone=scenario.timezone,
        start=day_said(scenario.start, short=True), end=day_said(scenario.end, short=True),
    ))  # fmt: skip


main()
