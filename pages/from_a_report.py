"""From a report: read a news report, see what Corridor found, review drafts, add them."""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from datetime import date

import pandas as pd
import streamlit as st

from geo import changes, drafts
from geo.errors import CorridorError, ValidationError
from geo.home import scenario_homes
from geo.reading import Extraction, extract
from geo.records import Confidence, ConvoyStatus, Scenario, TimePrecision
from geo.safe_html import markdown_literal
from geo.settings import Settings
from geo.store import open_workspace
from pages.shared.session import (
    language_choice,
    save,
    sign_in_form,
    viewer_only,
    who,
    workspace_location,
)

ss = st.session_state
SETTINGS = Settings.from_environment()
MAX_BYTES = 2_000_000
STATUSES = [status.value for status in ConvoyStatus]
CONFIDENCES = [level.value for level in reversed(Confidence)]  # low first, as drafts are
TIME_PRECISIONS = [precision.value for precision in TimePrecision]


@st.cache_data(show_spinner="Reading the report…", max_entries=20)
def read(text: str, published: date | None, home: tuple[str, ...]) -> Extraction:
    return extract(text, published=published, home=home)


def report_text() -> tuple[str, str]:
    upload = st.file_uploader("Upload a report (.txt)", type=["txt"], key="report_file")
    if upload is not None:
        if upload.size > MAX_BYTES:
            st.error(f"{upload.name}: expected at most {MAX_BYTES:,} bytes, got {upload.size:,}")
            return "", ""
        try:
            return upload.getvalue().decode("utf-8-sig"), upload.name
        except UnicodeDecodeError:
            st.error(f"{upload.name}: expected UTF-8 text")
            return "", ""
    return st.text_area("…or paste it here", height=200, key="report_text"), ""


def main() -> None:
    language_choice("report")
    st.title("From a report")
    st.caption("Corridor finds places, figures, times and convoys offline; nothing is added "
               "to the workspace until you tick rows and press “Add to workspace”.")  # fmt: skip
    user = who("report")
    sign_in_form()
    text, file_name = report_text()
    dated = date_from_first_line(text)
    published = st.date_input(
        "Published", value=None, key="report_published",
        help="The report's date: “Thursday” and “December 15” are read against it. Filled in "
        "from the report's first line when it gives one (“3 March 2025”, “Published: "
        "2016-12-16”); type or pick another if that is wrong. A typed date counts once you "
        "leave the field (click outside it): Enter and Tab keep it inside.",
    )  # fmt: skip
    if dated is not None and published == dated:
        st.caption(
            f"Publication date read from the report's first line: {dated.day} {dated:%B %Y}."
        )
    title = st.text_input("Report title (for the source)", value=file_name, key="report_title")
    scenario_id = chosen_scenario()
    if not text.strip():
        return
    if published is None:
        st.warning("No publication date yet: weekdays and dates in the text are left unresolved, "
                   "and drafts can be added once the date is set.")  # fmt: skip
    scenario = current_scenario(scenario_id)
    found = read(text, published, scenario_homes(scenario))
    st.caption(f"Read as a report about {', '.join(found.homes) or 'no particular country'} "
               "(the scenario's countries, or those the report names most).")  # fmt: skip
    st.subheader("What was found")
    st.html(drafts.highlighted(text, found))
    columns = st.columns(3)
    columns[0].metric("Places", len(found.places))
    columns[1].metric("Figures", len(found.figures))
    columns[2].metric("Convoy drafts", len(found.convoys))
    if found.skipped:
        with st.expander(f"Skipped: {len(found.skipped)} item(s) that could not be read"):
            st.dataframe(pd.DataFrame([asdict(item) for item in found.skipped]), hide_index=True)
    st.subheader("Convoy drafts: review, edit, tick the ones to add")
    rows = pd.DataFrame(drafts.review_rows(found, scenario, published=published))
    if rows.empty:
        st.info("No sentence about convoys, buses, ambulances or evacuations was found.")
        return
    edited = st.data_editor(
        rows,
        key="drafts",
        hide_index=True,
        column_config={
            "add": st.column_config.CheckboxColumn("Add"),
            "status": st.column_config.SelectboxColumn(options=STATUSES),
            "confidence": st.column_config.SelectboxColumn(options=CONFIDENCES),
            "depart": st.column_config.TextColumn(
                help="Departure read from the sentence, ISO 8601 in the scenario's time zone"
            ),
            "arrive": st.column_config.TextColumn(
                help="Arrival read from the sentence, ISO 8601 in the scenario's time zone"
            ),
            "time_precision": st.column_config.SelectboxColumn(options=TIME_PRECISIONS),
            "already in workspace": st.column_config.TextColumn(
                disabled=True, help="The convoy whose quote already holds this sentence"
            ),
            "sentence": st.column_config.TextColumn(disabled=True, width="large"),
        },
    )
    chosen = edited[edited["add"]].to_dict("records")
    question = None  # on the ticked rows' times, or the publication date before any is ticked
    if scenario is not None and published is not None:
        question = drafts.outside_span(scenario, chosen or [{}], published=published)
    if question is not None:
        advice = ("Choose another scenario above, create one on the New scenario page, "
                  "or confirm below to add them anyway.")  # fmt: skip
        st.warning(f"{markdown_literal(question)}\n\n{advice}")
    if viewer_only(open_workspace(workspace_location())):
        return
    confirmed = question is None or confirm_outside_span(question)
    pressed = st.button("Add to workspace", disabled=not chosen or published is None
                        or not confirmed, key="add_drafts")  # fmt: skip
    if pressed and published is not None:
        add(found, chosen, title, published, user, scenario_id)


def date_from_first_line(text: str) -> date | None:
    """The date the report's first line gives, put into the "Published" field once per text:
    when it is empty or still holds the date filled in from an earlier text (a date the user
    set is kept). A `value=None` date input starts empty, and typing into it is easy to miss."""
    dated = drafts.first_line_date(text) if text.strip() else None
    if not text.strip() or ss.get("report_published_read_from") == text:
        return dated
    ss["report_published_read_from"] = text
    untouched = ss.get("report_published") in (None, ss.get("report_published_filled"))
    if dated is not None and untouched:
        ss["report_published"] = ss["report_published_filled"] = dated
    return dated


def confirm_outside_span(question: str) -> bool:
    """The user's explicit "add anyway" for drafts dated outside the scenario's span; a new
    question (another report, scenario or date) asks again."""
    key = "add_outside_span:" + hashlib.sha256(question.encode()).hexdigest()[:8]
    answer = st.checkbox(markdown_literal("Add anyway: " + question[0].lower() + question[1:]),
                         value=False, key=key)  # fmt: skip
    return bool(answer)


def chosen_scenario() -> str:
    """The scenario the drafts go into, as the user chose it: the one last chosen or created in
    this session (`working_scenario`, kept across pages), else the shipped one."""
    wanted = str(ss.get("working_scenario", SETTINGS.default_scenario))
    workspace = open_workspace(workspace_location())
    try:
        ids = workspace.scenario_ids() if workspace.exists() else []
    except CorridorError:
        ids = []
    if not ids:
        return wanted
    index = ids.index(wanted) if wanted in ids else 0
    chosen = st.selectbox("Add the drafts to the scenario", ids, index=index, key="report_scenario")
    ss["working_scenario"] = chosen
    return str(chosen)


def current_scenario(scenario_id: str) -> Scenario | None:
    """The workspace's scenario the drafts would join, None when there is none to read."""
    workspace = open_workspace(workspace_location())
    if not workspace.exists():
        return None
    try:
        return workspace.load(scenario_id)
    except CorridorError:
        return None


def add(
    found: Extraction,
    rows: list[dict[str, object]],
    title: str,
    published: date,
    user: str,
    scenario_id: str,
) -> None:
    """The ticked drafts into the workspace, as `user`; repeats of its convoys are left out."""
    workspace = open_workspace(workspace_location())
    try:
        scenario = workspace.load(scenario_id)
        fresh, notes = drafts.left_out(scenario, rows)
        for note in notes:
            st.warning(markdown_literal(note))
        if not fresh:
            return
        added = drafts.add_to_scenario(scenario, found, fresh, title=title, published=published)
        edits = changes.edits_between(scenario, added)
        note = f"convoys from {title or 'a pasted report'}"
    except ValidationError as error:
        st.error(f"Nothing was added:\n\n{error}")
        return
    except CorridorError as error:
        st.error(f"The workspace could not be updated:\n\n{error}")
        return
    if save(workspace, scenario.id, edits, user, note=note, refused="Nothing was added") is None:
        return
    done = f"Added {len(fresh)} convoy(s) to {scenario.id} as {user}; open the map to see them, "
    st.success(markdown_literal(done + "or undo them on the Import and edit page."))


main()
