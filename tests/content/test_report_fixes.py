"""From a problem report to a fix: the author edits the question beside the report, the save
resolves it, and the person who reported it (only they) sees a notice until they dismiss it."""

import pytest
from sqlalchemy import select

from app.content.errata import ProblemReport
from app.content.models import QuestionRevision
from app.content.notices import Notice
from app.db import Database
from tests.factories import a_question, a_set, count_rows, editor_form, load, question_id, tags

FIXED = "Why 1, said properly."


@pytest.fixture
def qids(db: Database) -> tuple[int, int]:
    load(db, a_set(a_question("1"), a_question("2")))
    return question_id(db, "1", "basics"), question_id(db, "2", "basics")


def _report(client, qid: int) -> int:  # type: ignore[no-untyped-def]
    form = {"kind": "wrong-answer", "text": "Choice 2 is the right one."}
    assert client.post(f"/questions/{qid}/report", data=form).status_code == 200
    with client.app.state.db.session_scope() as session:
        return session.scalars(select(ProblemReport.id).order_by(ProblemReport.id.desc())).first()


def _edit(author, qid: int, rid: int | str, note: str = "Explained it better"):  # type: ignore[no-untyped-def]
    form = editor_form(author, f"/author/questions/{qid}/edit?report={rid}")
    form.update(explanation=FIXED, note=note)
    return form


def _state(db: Database, rid: int) -> tuple[str, int, int]:
    """The report's status, the notices kept and the revisions kept."""
    with db.session_scope() as session:
        report = session.get_one(ProblemReport, rid)
        notices = session.scalars(select(Notice.id)).all()
        revisions = session.scalars(select(QuestionRevision.id)).all()
        return report.status, len(notices), len(revisions)


@pytest.fixture
def people(user_client):  # type: ignore[no-untyped-def]
    return user_client("lee"), user_client("ann", role="author"), user_client("max")


def test_the_queue_opens_the_editor_beside_the_report(people, qids):
    learner, author, _ = people
    rid = _report(learner, qids[0])
    queue = author.get("/author/reports").text
    link = f"/author/questions/{qids[0]}/edit?report={rid}"
    assert link in [a["href"] for a in tags(queue, "a")]
    page = author.get(link)
    assert page.status_code == 200
    assert f"Problem report {rid}" in page.text
    assert "Choice 2 is the right one." in page.text and "reported by lee" in page.text
    box = next(t for t in tags(page.text, "input") if t.get("name") == "resolve")
    assert "checked" in box
    plain = author.get(f"/author/questions/{qids[0]}/edit").text
    assert not [t for t in tags(plain, "input") if t.get("name") in ("resolve", "report")]


def test_saving_with_the_box_resolves_the_report_and_tells_only_the_reporter(people, qids, db):
    learner, author, other = people
    rid = _report(learner, qids[0])
    saved = author.post(
        f"/author/questions/{qids[0]}/edit",
        data=_edit(author, qids[0], rid),
        follow_redirects=False,
    )
    assert saved.status_code == 303
    assert saved.headers["location"] == f"/author/reports?done=report-corrected#report-{rid}"
    assert "the report resolved" in author.get(saved.headers["location"]).text
    with db.session_scope() as session:
        report = session.get_one(ProblemReport, rid)
        assert (report.status, report.resolution) == (
            "resolved",
            "Corrected the question: Explained it better",
        )
        assert report.resolved_by_id is not None
    for page in ("/", "/progress"):
        assert "was corrected after your report" in learner.get(page).text
        assert "was corrected after your report" not in other.get(page).text
        assert "was corrected after your report" not in author.get(page).text
    home = learner.get("/").text
    assert f"/questions/{qids[0]}" in [a["href"] for a in tags(home, "a")]
    assert "Question 1 of Basics" in home


def test_saving_without_the_box_leaves_the_report_open(people, qids, db):
    learner, author, _ = people
    rid = _report(learner, qids[0])
    form = _edit(author, qids[0], rid)
    del form["resolve"]
    saved = author.post(f"/author/questions/{qids[0]}/edit", data=form, follow_redirects=False)
    assert saved.headers["location"].endswith("done=question-saved")
    assert _state(db, rid) == ("open", 0, 3)


def test_a_notice_is_dismissed_by_its_owner_only(people, qids, db):
    learner, author, other = people
    rid = _report(learner, qids[0])
    author.post(f"/author/questions/{qids[0]}/edit", data=_edit(author, qids[0], rid))
    with db.session_scope() as session:
        notice = session.scalars(select(Notice.id)).one()
    url = f"/notices/{notice}/dismiss"
    assert other.post(url, data={"next": "/"}).status_code == 404
    assert author.post(url, data={"next": "/"}).status_code == 404
    assert "was corrected" in learner.get("/").text
    done = learner.post(url, data={"next": "/"}, follow_redirects=False)
    assert (done.status_code, done.headers["location"]) == (303, "/?done=notice-dismissed")
    assert "was corrected" not in learner.get("/").text
    again = learner.post(url, data={"next": "//evil.example"}, follow_redirects=False)
    assert again.headers["location"] == "/?done=notice-dismissed"  # once is enough; stays here
    assert learner.post("/notices/999999/dismiss").status_code == 404


def test_htmx_dismisses_a_notice_in_place(people, qids, db):
    learner, author, _ = people
    rid = _report(learner, qids[0])
    author.post(f"/author/questions/{qids[0]}/edit", data=_edit(author, qids[0], rid))
    with db.session_scope() as session:
        notice = session.scalars(select(Notice.id)).one()
    response = learner.post(f"/notices/{notice}/dismiss", headers={"hx-request": "true"})
    assert (response.status_code, response.text) == (200, "")
    with db.session_scope() as session:
        assert session.get_one(Notice, notice).dismissed_at is not None


def test_a_guest_cannot_dismiss(client, qids):
    response = client.post("/notices/1/dismiss", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_a_learner_cannot_open_the_editor_from_a_report(people, qids, db):
    learner, _, other = people
    rid = _report(learner, qids[0])
    assert other.get(f"/author/questions/{qids[0]}/edit?report={rid}").status_code == 403
    posted = other.post(
        f"/author/questions/{qids[0]}/edit",
        data={"report": str(rid), "resolve": "yes", "note": "mine", "opened": "1"},
    )
    assert posted.status_code == 403
    assert _state(db, rid) == ("open", 0, 2)


@pytest.mark.parametrize(
    ("which", "message"),
    [
        ("unknown", "There is no problem report with that number."),
        ("other", "is about another question"),
    ],
)
def test_opening_the_editor_from_a_wrong_report_says_so(people, qids, which, message):
    learner, author, _ = people
    rid = _report(learner, qids[0])
    target = qids[1] if which == "other" else qids[0]
    asked = 999_999 if which == "unknown" else rid
    page = author.get(f"/author/questions/{target}/edit?report={asked}")
    assert page.status_code == 422
    assert message in page.text


def _refused(author, db, url, form, rid, message):  # type: ignore[no-untyped-def]
    response = author.post(url, data=form)
    assert response.status_code == 422
    assert "Nothing was saved." in response.text
    assert message in response.text
    assert FIXED in response.text  # the author's text is kept in the form
    assert _state(db, rid) == ("open", 0, 2)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"report": "999999"}, "There is no problem report with that number."),
        ({"report": "x7"}, "There is no problem report with that number."),
        ({"report": "{other}"}, "is about another question"),
        ({"note": ""}, "Say in a few words why you change it"),
        ({"note": "Fixed \u202eit"}, "Remove the invisible character"),
    ],
)
def test_a_bad_save_from_a_report_saves_nothing(people, qids, db, change, message):
    learner, author, _ = people
    rid = _report(learner, qids[0])
    other = _report(learner, qids[1])
    form = _edit(author, qids[0], rid)
    form.update({k: v.format(other=other) for k, v in change.items()})
    _refused(author, db, f"/author/questions/{qids[0]}/edit", form, rid, message)
    assert _state(db, other)[0] == "open"


def test_a_save_that_changes_nothing_does_not_resolve(people, qids, db):
    learner, author, _ = people
    rid = _report(learner, qids[0])
    form = editor_form(author, f"/author/questions/{qids[0]}/edit?report={rid}")
    form.update(note="Nothing to fix")
    response = author.post(f"/author/questions/{qids[0]}/edit", data=form)
    assert response.status_code == 422
    assert "Nothing in the question changed, so the report was not resolved" in response.text
    assert _state(db, rid) == ("open", 0, 2)


def test_a_report_already_resolved_is_not_resolved_again(people, qids, db):
    learner, author, _ = people
    rid = _report(learner, qids[0])
    form = _edit(author, qids[0], rid)
    author.post(f"/author/reports/{rid}/resolve", data={"resolution": "Done elsewhere."})
    response = author.post(f"/author/questions/{qids[0]}/edit", data=form)
    assert response.status_code == 422
    assert "is already resolved" in response.text
    assert count_rows(db, Notice) == 0
    assert _state(db, rid) == ("resolved", 0, 2)
