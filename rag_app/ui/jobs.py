"""The upload queue in the app: the Library page's panel and the indicator and notices of every page.

Both are fragments refreshed on a timer (`st.fragment(run_every=...)`), so the page itself is
not rerun while a worker ingests. They show only the jobs `rag_core.pipeline.list_jobs` lets
the signed-in principal see; cancel and retry go through the façade, which checks again.
File names are escaped before they reach Markdown. Nothing here ingests anything.
"""

from __future__ import annotations

import time

import streamlit as st

from rag_app.ui.i18n import STRINGS, t, user_message
from rag_app.ui.markdown import escape_md
from rag_core import pipeline
from rag_core.errors import RagError
from rag_core.pipeline import Principal, Settings

SEEN = "jobs_seen_states"  # job id -> last state this session saw: a change to an end state is a notice
PANEL = "jobs_panel_states"  # job id -> state at the panel's last refresh
ENDED = ("done", "failed", "cancelled")
ESTIMATES = "jobs_time_left"  # job id -> its `pipeline.TimeLeft`, kept between refreshes so the figure holds still


def duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def queue_line(place: int, small: bool, running: int, language: str | None = None) -> str:
    """A queued job's line: its place (« Premier », « 2ᵉ »...), and why it waits or goes first: a small
    file, or the imports running before it; nothing about imports ahead when none runs."""

    def say(key: str, **values: object) -> str:
        return STRINGS[key][language].format(**values) if language else t(key, **values)

    where = say("jobs.place_first") if place == 1 else say("jobs.place_nth", place=place)
    if small:
        why = say("jobs.place_small")
    elif running > 0:
        why = say("jobs.place_ahead_one") if running == 1 else say("jobs.place_ahead_many", running=running)
    else:
        return where
    return say("jobs.place_with", place=where, why=why)


def remember_submitted(job_ids: list[str]) -> None:
    """Jobs this session just queued: their end is noticed even if it comes before the next refresh."""
    seen = st.session_state.setdefault(SEEN, {})
    for job_id in job_ids:
        seen[job_id] = "queued"


def outcome(job, record=None) -> None:
    """An ended job's result line, as the inline import showed it: `file — result : message`."""
    if job.state == "done":
        key = "already_present" if job.message_key == "already_present" else "ingested"
        show = st.info if key == "already_present" else st.success
        # the job's message already opens with its verb ("Ingested: 20 pages…"): the result word only stands in
        # for a missing message, never before it ("ingested : Ingested: …")
        said = user_message(job.message) if job.message else t("library.result." + key)
        show(escape_md(f"{job.file_name} — {said}"))
        for warning in record.warnings if record is not None else []:
            st.warning(escape_md(f"{job.file_name} — {user_message(warning)}"))
    elif job.state == "failed":
        reason = t("library.result.refused") if job.message_key == "refused" else t(f"jobs.key.{job.message_key}")
        st.error(
            escape_md(
                f"{job.file_name} — {reason} : {user_message(job.message) if job.message else t('jobs.state.failed')}"
            )
        )
    else:
        st.caption(
            escape_md(t("jobs.line", file=job.file_name, collection=job.collection, state=t("jobs.state.cancelled")))
        )


def _act(verb: str, job_id: str, file_name: str, settings: Settings, principal: Principal) -> None:
    try:
        if verb == "cancel":
            pipeline.cancel_job(job_id, settings, principal=principal)
            st.session_state["jobs_flash"] = ("success", t("jobs.cancelled_now", file=file_name))
        else:
            pipeline.retry_job(job_id, settings, principal=principal)
            remember_submitted([job_id])
            st.session_state["jobs_flash"] = ("success", t("jobs.retried_now", file=file_name))
    except RagError as err:
        st.session_state["jobs_flash"] = ("error", user_message(err))


def _clear(settings: Settings, principal: Principal) -> None:
    try:
        pipeline.clear_finished_jobs(settings, principal=principal)
    except RagError as err:
        st.session_state["jobs_flash"] = ("error", user_message(err))


def _job_row(job, settings: Settings, principal: Principal, now: float, record=None, place=None) -> None:
    state = t(f"jobs.state.{job.state}")
    if job.state == "running" and job.stage:
        label = t(
            "jobs.line_stage",
            file=job.file_name,
            collection=job.collection,
            stage=t(f"library.stage.{job.stage}"),
            done=job.done,
            total=job.total,
        )
    else:
        label = t("jobs.line", file=job.file_name, collection=job.collection, state=state)
    main, action = st.columns([6, 1], vertical_alignment="center")
    with main:
        if job.state in ENDED:
            outcome(job, record)
        else:
            st.progress(pipeline.progress_of(job), text=escape_md(label))
        notes = []
        if job.state == "running":
            estimates = st.session_state.setdefault(ESTIMATES, {})
            left = pipeline.remaining_of(job, now, estimates.setdefault(job.id, pipeline.TimeLeft()))
            elapsed = duration(pipeline.elapsed_of(job, now))
            notes.append(
                t("jobs.times_left", elapsed=elapsed, left=duration(left))
                if left is not None
                else t("jobs.times", elapsed=elapsed)
            )
        elif job.state == "queued" and place is not None:
            notes.append(queue_line(*place))
        elif job.state in ENDED and job.started_at:
            notes.append(t("jobs.times", elapsed=duration(pipeline.elapsed_of(job, now))))
        if job.submitter != principal.user:
            notes.append(t("jobs.by", user=job.submitter))
        if notes:
            st.caption(escape_md(" · ".join(notes)))
    with action:
        if job.state in ("queued", "running") and not job.cancel:
            st.button(
                t("jobs.cancel"),
                key=f"job_cancel_{job.id}",
                on_click=_act,
                args=("cancel", job.id, job.file_name, settings, principal),
            )
        elif job.state in ("failed", "cancelled"):
            st.button(
                t("jobs.retry"),
                key=f"job_retry_{job.id}",
                on_click=_act,
                args=("retry", job.id, job.file_name, settings, principal),
            )


@st.fragment(run_every=2)
def queue_panel(settings: Settings, principal: Principal) -> None:
    """The queue and the recent jobs the principal may see, refreshed every two seconds."""
    flash = st.session_state.pop("jobs_flash", None)
    if flash:
        (st.success if flash[0] == "success" else st.error)(escape_md(flash[1]))
    try:
        jobs = pipeline.list_jobs(settings, principal=principal, limit=50)
        workers = pipeline.live_workers(settings)
    except RagError as err:
        st.error(escape_md(user_message(err)))
        return
    records = {}
    if any(j.state == "done" for j in jobs):
        try:  # only for the per-page warnings of ingested files; the document list reports its own errors
            records = {r.doc_id: r for r in pipeline.list_documents(settings, principal=principal)}
        except RagError:
            pass
    if not workers and any(j.state in ("queued", "running") for j in jobs):
        st.warning(t("jobs.no_worker"))
    if not jobs:
        st.caption(t("jobs.empty"))
    elif any(j.state in ENDED for j in jobs):  # cleared from the list only: the audit trail keeps them
        st.button(
            t("jobs.clear"), key="jobs_clear", icon=":material/clear_all:", on_click=_clear, args=(settings, principal)
        )
    now = time.time()
    running = {j.id for j in jobs if j.state == "running"}
    estimates = st.session_state.setdefault(ESTIMATES, {})
    for job_id in [i for i in estimates if i not in running]:  # ended or requeued: a fresh measurement next time
        del estimates[job_id]
    places = pipeline.queue_places(settings, jobs) if any(j.state == "queued" for j in jobs) else {}
    with st.container(key="jobs_queue"):
        for job in jobs:
            record = records.get(job.doc_id) if job.state == "done" else None
            _job_row(job, settings, principal, now, record, places.get(job.id))
    # A job that just finished changes the document list below: rerun the whole page once.
    states = {j.id: j.state for j in jobs}
    before = st.session_state.get(PANEL)
    st.session_state[PANEL] = states
    if before is not None and any(before.get(i) in ("queued", "running") and s == "done" for i, s in states.items()):
        st.rerun(scope="app")


@st.fragment(run_every=3)
def notices(settings: Settings, principal: Principal) -> None:
    """On every page: how many of the user's imports run, and a toast when one ends."""
    try:
        jobs = [j for j in pipeline.list_jobs(settings, principal=principal, limit=20) if j.submitter == principal.user]
    except RagError:
        return
    seen: dict[str, str] = st.session_state.setdefault(SEEN, {})
    for job in jobs:
        before = seen.get(job.id)
        if before in ("queued", "running") and job.state in ENDED:
            name = escape_md(job.file_name)
            if job.state == "done":
                st.toast(t("jobs.toast_done", file=name), icon=":material/task_alt:")
            elif job.state == "failed":
                st.toast(t("jobs.toast_failed", file=name), icon=":material/error:")
            else:
                st.toast(t("jobs.toast_cancelled", file=name), icon=":material/cancel:")
        seen[job.id] = job.state
    active = sum(1 for j in jobs if j.state in ("queued", "running"))
    if active:
        st.caption(t("jobs.indicator", n=active))
