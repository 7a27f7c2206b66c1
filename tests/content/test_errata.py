"""Problem reports: learners file them, authors resolve them, errata show on the content."""

import re

import pytest
from sqlalchemy import select

from app.content.errata import ProblemReport
from tests.factories import (
    choice_ids,
    count_queries,
    count_rows,
    import_file,
    load_seed,
    question_id,
    tags,
)

NOTE = "/notes/tensorrt-note-2"
SECTION = "working-with-mixed-precision"
HTMX = {"HX-Request": "true"}
SEED_ERRATA = ("Set kINT8", "kSTRICT_TYPES is deprecated", "IInt8EntropyCalibrator2", "10.1")


def report(client, qid: int, **data: str):  # type: ignore[no-untyped-def]
    form = {"kind": "typo", "text": "The second choice has a typo in it.", **data}
    return client.post(f"/questions/{qid}/report", data=form, follow_redirects=False)


def reports(db) -> list[ProblemReport]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        rows = session.scalars(select(ProblemReport).order_by(ProblemReport.id)).all()
        session.expunge_all()
        return list(rows)


def test_the_seed_files_the_notes_known_slips_as_errata_shown_on_the_section(client, seeded):
    errata = [r for r in reports(seeded) if r.reporter_id is None]
    assert len(errata) == 4 and all(r.erratum and r.status == "open" for r in errata)
    html = client.get(NOTE).text
    aside = html[
        html.index('class="erratum"') : html.index("</aside>", html.index('class="erratum"'))
    ]
    for slip in SEED_ERRATA:
        assert slip in aside
    assert "kFP16" in aside and "kPREFER_PRECISION_CONSTRAINTS" in aside


def test_seed_run_again_neither_duplicates_nor_reopens_errata(seeded, user_client):
    author = user_client("ann", role="author")
    first = reports(seeded)[0]
    author.post(f"/author/reports/{first.id}/resolve", data={"resolution": "Fixed the note."})
    load_seed(seeded)
    again = reports(seeded)
    assert len(again) == 4
    assert again[0].status == "resolved"


def test_the_seed_note_itself_is_unchanged():
    from tests.factories import SEED_DIR

    text = next(SEED_DIR.glob("004_*.txt")).read_text(encoding="utf-8")
    assert "Usage: Set kINT8." in text and "IEntropyCalibrationV2" in text


def test_a_learner_reports_a_problem_with_a_question(seeded, user_client):
    learner = user_client("leo")
    qid = question_id(seeded, "1")
    page = learner.get(f"/questions/{qid}").text
    assert f"/questions/{qid}/report" in [a["href"] for a in tags(page, "a")]
    form = learner.get(f"/questions/{qid}/report")
    assert form.status_code == 200 and "Report a problem" in form.text
    response = report(learner, qid)
    assert response.status_code == 303
    assert response.headers["location"] == f"/questions/{qid}?done=reported"
    filed = reports(seeded)[-1]
    assert (filed.question_id, filed.kind, filed.erratum, filed.status) == (
        qid,
        "typo",
        False,
        "open",
    )
    assert "your report was sent" in learner.get(response.headers["location"]).text


def test_a_learner_reports_a_problem_with_a_note_section(seeded, user_client):
    learner = user_client("leo")
    page = learner.get(NOTE).text
    assert f"{NOTE}/report?section={SECTION}" in [a["href"] for a in tags(page, "a")]
    form = learner.get(f"{NOTE}/report?section={SECTION}").text
    selected = [o for o in tags(form, "option") if "selected" in o]
    assert selected == [{"value": SECTION, "selected": None}]
    response = learner.post(
        f"{NOTE}/report",
        data={"section": SECTION, "kind": "outdated", "text": "This API changed in version 10."},
        follow_redirects=False,
    )
    assert response.headers["location"] == f"{NOTE}?done=reported#{SECTION}"
    assert reports(seeded)[-1].kind == "outdated"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"kind": "rant"}, "kind", "Choose what kind of problem it is."),
        ({"text": "bad"}, "text", "Say what is wrong in 5 to 1000 characters."),
        ({"text": "x" * 1001}, "text", "Say what is wrong in 5 to 1000 characters."),
        ({"text": "   \n  "}, "text", "Say what is wrong in 5 to 1000 characters."),
        ({"text": "\u200b" * 10}, "text", "Say what is wrong in 5 to 1000 characters."),
        ({"text": "\u200b \u2060 \ufeff \u200b"}, "text", "Say what is wrong in 5 to 1000"),
        (
            {"text": "Choice b is \u202ethe right one."},
            "text",
            "Remove the invisible character U+202E (RIGHT-TO-LEFT OVERRIDE) at character 13",
        ),
        ({"text": "A typo\u200bhere."}, "text", "Remove the invisible character U+200B"),
    ],
    ids=["kind", "short", "long", "blank", "zero-width", "invisible", "bidi", "zero-width-inside"],
)
def test_bad_reports_are_shown_again_with_a_message(seeded, user_client, data, field, message):
    learner = user_client("leo")
    qid = question_id(seeded, "1")
    response = report(learner, qid, **data)
    assert response.status_code == 422
    assert message in response.text
    assert [t for t in tags(response.text, "textarea") if t.get("aria-invalid")] or field == "kind"
    assert count_rows(seeded, ProblemReport, ProblemReport.reporter_id.is_not(None)) == 0


def test_a_report_on_a_section_the_note_does_not_have_is_refused(seeded, user_client):
    learner = user_client("leo")
    response = learner.post(
        f"{NOTE}/report", data={"section": "nope", "kind": "typo", "text": "Something is off."}
    )
    assert response.status_code == 422
    assert "Choose the part of the note" in response.text


@pytest.mark.parametrize("url", ["/questions/999999/report", "/notes/no-such-note/report"])
def test_reports_on_missing_content_are_404(seeded, user_client, url):
    learner = user_client("leo")
    assert learner.get(url).status_code == 404
    data = {"section": SECTION, "kind": "typo", "text": "Something is off."}
    assert learner.post(url, data=data).status_code == 404


def test_guests_are_sent_to_log_in_first(seeded, client):
    qid = question_id(seeded, "1")
    response = client.get(f"/questions/{qid}/report", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")
    assert report(client, qid).status_code == 303
    assert count_rows(seeded, ProblemReport, ProblemReport.reporter_id.is_not(None)) == 0


def test_reports_are_rate_limited_per_account(seeded, user_client):
    learner = user_client("leo")
    qid = question_id(seeded, "1")
    limit = learner.app.state.settings.report_limit
    for _ in range(limit):
        assert report(learner, qid).status_code == 303
    refused = report(learner, qid)
    assert refused.status_code == 429 and "retry-after" in refused.headers
    other = user_client("lea")
    assert report(other, qid).status_code == 303


def test_a_cross_site_report_is_refused(seeded, user_client):
    learner = user_client("leo")
    qid = question_id(seeded, "1")
    data = {"kind": "typo", "text": "The second choice has a typo."}
    response = learner.post(
        f"/questions/{qid}/report", data=data, headers={"sec-fetch-site": "cross-site"}
    )
    assert response.status_code == 403


# --- the authors' queue ---------------------------------------------------------------------


def test_authors_see_the_open_reports(seeded, user_client):
    learner, author = user_client("leo"), user_client("ann", role="author")
    qid = question_id(seeded, "1")
    report(learner, qid, text="Choice two is misspelt.")
    page = author.get("/author/reports")
    assert page.status_code == 200
    assert "Choice two is misspelt." in page.text and "reported by leo" in page.text
    assert re.search(r"Question: \w", page.text)  # the start of the stem
    assert page.text.count('class="report card"') == 5  # four seed errata and this one
    assert "/author/reports" in [a["href"] for a in tags(author.get("/").text, "a")]


@pytest.mark.parametrize("role", ["learner", None])
def test_the_queue_is_for_authors_only(seeded, client, user_client, role):
    who = user_client("leo") if role else client
    response = who.get("/author/reports", follow_redirects=False)
    assert response.status_code == (403 if role else 303)
    first = reports(seeded)[0].id
    response = who.post(
        f"/author/reports/{first}/resolve", data={"resolution": "x"}, follow_redirects=False
    )
    assert response.status_code == (403 if role else 303)
    assert reports(seeded)[0].status == "open"


def test_resolving_an_erratum_takes_it_off_the_content(seeded, user_client):
    author = user_client("ann", role="author")
    errata = [r for r in reports(seeded) if r.erratum]
    for erratum in errata:
        response = author.post(
            f"/author/reports/{erratum.id}/resolve",
            data={"resolution": "The note was corrected."},
            follow_redirects=False,
        )
        assert response.headers["location"] == "/author/reports?done=report-resolved"
    assert 'class="erratum"' not in author.get(NOTE).text
    resolved = author.get("/author/reports?status=resolved").text
    assert "The note was corrected." in resolved and "by ann" in resolved
    assert reports(seeded)[0].resolved_by_id is not None


def test_a_report_in_a_right_to_left_script_or_with_emoji_is_filed(seeded, user_client):
    text = "התשובה שגויה\u200f (the answer is wrong) 👩\u200d💻"
    response = report(user_client("leo"), question_id(seeded, "1"), text=text)
    assert response.status_code == 303
    assert reports(seeded)[-1].text == text


def test_a_resolution_needs_a_note(seeded, user_client):
    author = user_client("ann", role="author")
    first = reports(seeded)[0].id
    for blank in ("  ", "\u200b\u200b"):
        response = author.post(f"/author/reports/{first}/resolve", data={"resolution": blank})
        assert response.status_code == 422
        assert "Say what was done" in response.text
    assert reports(seeded)[0].status == "open"


def test_marking_a_report_as_an_erratum_shows_it_on_the_question(seeded, user_client):
    learner, author = user_client("leo"), user_client("ann", role="author")
    qid = question_id(seeded, "2")
    answered = f"/questions/{qid}?choice={choice_ids(seeded, '2')[0]}"
    report(learner, qid, kind="wrong-answer", text="The marked answer is not the right one.")
    filed = reports(seeded)[-1].id
    assert "The marked answer is not the right one." not in learner.get(answered).text
    author.post(f"/author/reports/{filed}/erratum", data={"shown": "yes"})
    page = learner.get(answered).text
    assert "The marked answer is not the right one." in page and "Wrong answer" in page
    author.post(f"/author/reports/{filed}/erratum", data={"shown": "no"})
    assert "The marked answer is not the right one." not in learner.get(answered).text


SLIP = "The keyed answer is wrong; the right one is the entropy calibrator."


def _erratum_on(db, qid: int) -> None:  # type: ignore[no-untyped-def]
    with db.session_scope(write=True) as session:
        session.add(ProblemReport(question_id=qid, kind="wrong-answer", text=SLIP, erratum=True))


def _erratum_box(html: str) -> list[dict[str, str | None]]:
    return [a for a in tags(html, "aside") if a.get("aria-label") == "Errata for this question"]


def test_a_question_erratum_waits_for_the_answer(client, seeded):
    """An erratum may name the right answer: before answering only a notice says there is one."""
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    _erratum_on(seeded, qid)
    before = client.get(f"/questions/{qid}").text
    assert SLIP not in before and _erratum_box(before) == []
    assert "This question has a known erratum; it is shown after you answer." in before
    after = client.post(f"/questions/{qid}", data={"choice": str(right)}).text  # redirected
    assert SLIP in after and len(_erratum_box(after)) == 1
    assert "it is shown after you answer" not in after
    htmx = client.post(f"/questions/{qid}", data={"choice": str(right)}, headers=HTMX).text
    assert SLIP in htmx and "it is shown after you answer" not in htmx


def test_a_question_without_errata_has_no_notice(client, seeded):
    assert "known erratum" not in client.get(f"/questions/{question_id(seeded, '3')}").text


def test_the_api_gives_a_question_s_errata_only_with_the_check(client, seeded):
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    _erratum_on(seeded, qid)
    shown = client.get(f"/api/v1/questions/{qid}")
    assert shown.status_code == 200 and SLIP not in shown.text
    checked = client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]}).json()
    assert checked["errata"] == [{"kind": "wrong-answer", "label": "Wrong answer", "text": SLIP}]


def test_unknown_reports_are_404(seeded, user_client):
    author = user_client("ann", role="author")
    assert (
        author.post("/author/reports/999999/resolve", data={"resolution": "x"}).status_code == 404
    )
    assert author.post("/author/reports/999999/erratum", data={"shown": "yes"}).status_code == 404


def test_errata_add_no_query_to_the_pages(app, client, seeded):
    """Errata ride in a query the page runs anyway: the same count with or without them."""
    qid = question_id(seeded, "3")
    with seeded.session_scope(write=True) as session:
        session.add(ProblemReport(question_id=qid, kind="typo", text="A slip.", erratum=True))
    counts = {}
    right, _ = choice_ids(seeded, "3")
    for path in (f"/questions/{qid}?choice={right}", NOTE):
        with count_queries(app) as statements:
            html = client.get(path).text
        assert 'class="erratum"' in html
        counts[path] = len(statements)
    assert counts[f"/questions/{qid}?choice={right}"] == 3  # the question, then its grade


def test_a_reworded_seed_erratum_replaces_the_old_wording_instead_of_showing_twice(seeded):
    errata = """format = "studyhall.errata/1"

[[errata]]
target = "tensorrt-note-2#working-with-mixed-precision"
kind = "typo"
text = "{text}"
"""
    import_file(seeded, errata.format(text="First wording of the slip.").encode(), "e.toml")
    import_file(seeded, errata.format(text="Second wording, with the version.").encode(), "e.toml")
    with seeded.session_scope() as session:
        rows = session.execute(
            select(ProblemReport.text, ProblemReport.status).where(
                ProblemReport.text.in_(
                    ["First wording of the slip.", "Second wording, with the version."]
                )
            )
        ).all()
        still_open = session.scalars(
            select(ProblemReport.text).where(
                ProblemReport.status == "open", ProblemReport.source_key.is_not(None)
            )
        ).all()
    assert sorted(rows) == [
        ("First wording of the slip.", "resolved"),
        ("Second wording, with the version.", "open"),
    ]
    # the shipped errata on the same section were not in this file: resolved as well
    assert "Second wording, with the version." in still_open
