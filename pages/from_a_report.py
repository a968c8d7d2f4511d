"""From a report: read a news report, see what Corridor found, review drafts, add them."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict
from datetime import date
from typing import Any

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
    MONTHS,
    day_said,
    headed,
    language_choice,
    named,
    namer,
    save,
    sign_in_form,
    t,
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


@st.cache_data(show_spinner=False, max_entries=20)
def read(text: str, published: date | None, home: tuple[str, ...]) -> Extraction:
    return extract(text, published=published, home=home)


MONTH = re.compile(r"\b(?:" + "|".join(MONTHS) + r")\b")
# What geo.drafts says in English (it takes no words of another language), read back to be
# said in the interface's: the out-of-span question and the note on a draft left out.
QUESTION = re.compile(
    r"The report is dated (?P<dates>.+), outside the time span of scenario (?P<scenario>\S+) "
    r"\((?P<start>.+) to (?P<end>.+), (?P<zone>[^,()]+)\)\.$"
)
LEFT_OUT = re.compile(
    r"Left out “(?P<label>.+)”: its sentence is already the source of convoy (?P<convoy>\S+)\.$"
)


def in_words(date_text: str) -> str:
    """A date as geo.drafts writes it ('3 March 2025 06:00'), its month in the interface's
    language."""
    return MONTH.sub(lambda month: t(month[0]), date_text)


def spoken(sentence: str, pattern: re.Pattern[str], message: str) -> str:
    """An English `sentence` of geo.drafts said again as `message`, in the interface's
    language, its parts (`pattern`'s groups) kept; the sentence itself when it is otherwise."""
    found = pattern.match(sentence)
    if found is None:
        return sentence
    return t(message, **{name: in_words(part) for name, part in found.groupdict().items()})


def question_said(question: str) -> str:
    return spoken(question, QUESTION, "The report is dated {dates}, outside the time span of "
                  "scenario {scenario} ({start} to {end}, {zone}).")  # fmt: skip


def report_text() -> tuple[str, str]:
    upload = st.file_uploader(t("Upload a report (.txt)"), type=["txt"], key="report_file")
    if upload is not None:
        if upload.size > MAX_BYTES:
            st.error(t("{file}: expected at most {limit} bytes, got {size}", file=upload.name,
                       limit=f"{MAX_BYTES:,}", size=f"{upload.size:,}"))  # fmt: skip
            return "", ""
        try:
            return upload.getvalue().decode("utf-8-sig"), upload.name
        except UnicodeDecodeError:
            st.error(t("{file}: expected UTF-8 text", file=upload.name))
            return "", ""
    return st.text_area(t("…or paste it here"), height=200, key="report_text"), ""


def main() -> None:
    language_choice("report")
    st.title(t("From a report"))
    st.caption(t("Corridor finds places, figures, times and convoys offline; nothing is added "
                 "to the workspace until you tick rows and press “Add to workspace”."))  # fmt: skip
    user = who("report")
    sign_in_form()
    text, file_name = report_text()
    dated = date_from_first_line(text)
    published = st.date_input(
        t("Published"), value=None, key="report_published",
        help=t("The report's date: “Thursday” and “December 15” are read against it. Filled in "
               "from the report's first line when it gives one (“3 March 2025”, “Published: "
               "2016-12-16”); type or pick another if that is wrong. A typed date counts once "
               "you leave the field (click outside it): Enter and Tab keep it inside."),
    )  # fmt: skip
    if dated is not None and published == dated:
        st.caption(t("Publication date read from the report's first line: {date}.",
                     date=day_said(dated)))  # fmt: skip
    title = st.text_input(t("Report title (for the source)"), value=file_name, key="report_title")
    scenario_id = chosen_scenario()
    if not text.strip():
        return
    if published is None:
        st.warning(t("No publication date yet: weekdays and dates in the text are left "
                     "unresolved, and drafts can be added once the date is set."))  # fmt: skip
    scenario = current_scenario(scenario_id)
    with st.spinner(t("Reading the report…")):
        found = read(text, published, scenario_homes(scenario))
    st.caption(t("Read as a report about {countries} (the scenario's countries, or those the "
                 "report names most).",
                 countries=", ".join(found.homes) or t("no particular country")))  # fmt: skip
    st.subheader(t("What was found"))
    st.html(drafts.highlighted(text, found))
    columns = st.columns(3)
    columns[0].metric(t("Places"), len(found.places))
    columns[1].metric(t("Figures"), len(found.figures))
    columns[2].metric(t("Convoy drafts"), len(found.convoys))
    if found.skipped:
        skipped = t("Skipped: {count} item(s) that could not be read", count=len(found.skipped))
        with st.expander(skipped):
            frame = pd.DataFrame([asdict(item) for item in found.skipped])
            frame["kind"] = frame["kind"].map(named)
            st.dataframe(frame, hide_index=True, column_config=headed(frame.columns))
    st.subheader(t("Convoy drafts: review, edit, tick the ones to add"))
    rows = pd.DataFrame(drafts.review_rows(found, scenario, published=published))
    if rows.empty:
        st.info(t("No sentence about convoys, buses, ambulances or evacuations was found."))
        return
    edited = st.data_editor(rows, key="drafts", hide_index=True, column_config=review_columns(rows))
    chosen = edited[edited["add"]].to_dict("records")
    question = None  # on the ticked rows' times, or the publication date before any is ticked
    if scenario is not None and published is not None:
        question = drafts.outside_span(scenario, chosen or [{}], published=published)
    if question is not None:
        advice = t("Choose another scenario above, create one on the New scenario page, "
                   "or confirm below to add them anyway.")  # fmt: skip
        st.warning(f"{markdown_literal(question_said(question))}\n\n{advice}")
    if viewer_only(open_workspace(workspace_location())):
        return
    confirmed = question is None or confirm_outside_span(question)
    pressed = st.button(t("Add to workspace"), disabled=not chosen or published is None
                        or not confirmed, key="add_drafts")  # fmt: skip
    if pressed and published is not None:
        add(found, chosen, title, published, user, scenario_id)


def review_columns(rows: pd.DataFrame) -> dict[str, Any]:
    """The drafts' table: its headings, choices named in words, what may be edited."""
    column = st.column_config
    return headed(
        rows.columns,
        {
            "add": column.CheckboxColumn(t("Add")),
            "status": column.SelectboxColumn(options=STATUSES, format_func=namer()),
            "confidence": column.SelectboxColumn(options=CONFIDENCES, format_func=namer()),
            "depart": column.TextColumn(
                help=t("Departure read from the sentence, ISO 8601 in the scenario's time zone")
            ),
            "arrive": column.TextColumn(
                help=t("Arrival read from the sentence, ISO 8601 in the scenario's time zone")
            ),
            "time_precision": column.SelectboxColumn(options=TIME_PRECISIONS, format_func=namer()),
            "already in workspace": column.TextColumn(
                disabled=True, help=t("The convoy whose quote already holds this sentence")
            ),
            "sentence": column.TextColumn(disabled=True, width="large"),
        },
    )


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
    said = question_said(question)
    if said == question:  # (English, or a question this page cannot say otherwise)
        label = "Add anyway: " + question[0].lower() + question[1:]
    else:
        label = t("Add anyway:") + " " + said
    answer = st.checkbox(markdown_literal(label), value=False, key=key)
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
    chosen = st.selectbox(
        t("Add the drafts to the scenario"), ids, index=index, key="report_scenario"
    )
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
            said = spoken(note, LEFT_OUT, "Left out “{label}”: its sentence is already the "
                          "source of convoy {convoy}.")  # fmt: skip
            st.warning(markdown_literal(said))
        if not fresh:
            return
        added = drafts.add_to_scenario(scenario, found, fresh, title=title, published=published)
        edits = changes.edits_between(scenario, added)
        note = f"convoys from {title or 'a pasted report'}"
    except ValidationError as error:
        st.error(t("Nothing was added:") + f"\n\n{error}")
        return
    except CorridorError as error:
        st.error(t("The workspace could not be updated:") + f"\n\n{error}")
        return
    refused = t("Nothing was added")
    if save(workspace, scenario.id, edits, user, note=note, refused=refused) is None:
        return
    done = t("Added {count} convoy(s) to {scenario} as {user}; open the map to see them, or "
             "undo them on the Import and edit page.",
             count=len(fresh), scenario=scenario.id, user=user)  # fmt: skip
    st.success(markdown_literal(done))


main()
