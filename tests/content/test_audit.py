"""The admins' audit log: question revisions, resolved reports and role changes, newest first."""

import re

import pytest
from sqlalchemy import select

from app.accounts.models import RoleChange
from app.accounts.service import set_role
from app.content.audit import PAGE_SIZE
from app.db import Database
from tests.factories import a_question, a_set, count_rows, editor_form, load, question_id, tags


@pytest.fixture
def qid(db: Database) -> int:
    load(db, a_set(a_question("1")))
    return question_id(db, "1", "basics")


def _rows(html: str) -> list[str]:
    """The text of each row of the log's table, tags dropped and spaces squeezed."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in rows]


def test_a_role_change_is_recorded_and_listed(user_client, make_user, db):
    boss = user_client("boss", role="admin")
    make_user("lee")
    users = boss.get("/admin/users").text
    assert "/admin/audit" in [a["href"] for a in tags(users, "a")]
    boss.post("/admin/users/lee/role", data={"role": "author"})
    boss.post("/admin/users/lee/role", data={"role": "author"})  # no change: nothing recorded
    assert count_rows(db, RoleChange) == 1
    rows = _rows(boss.get("/admin/audit").text)
    assert len(rows) == 1
    assert "boss" in rows[0] and "Role of lee: learner → author" in rows[0]


def test_the_command_line_changes_roles_on_the_record_too(user_client, make_user, db):
    boss = user_client("boss", role="admin")
    make_user("lee")
    with db.session_scope(write=True) as session:
        set_role(session, None, "lee", "admin")
    (row,) = _rows(boss.get("/admin/audit?kind=role").text)
    assert "the command line" in row and "Role of lee: learner → admin" in row


def test_question_edits_and_resolutions_are_listed_newest_first(user_client, qid, db):
    boss = user_client("boss", role="admin")
    author = user_client("ann", role="author")
    form = editor_form(author, f"/author/questions/{qid}/edit")
    form.update(explanation="Better.", note="Say why it holds")
    author.post(f"/author/questions/{qid}/edit", data=form)
    author.post(f"/questions/{qid}/report", data={"kind": "typo", "text": "A typo in choice 1."})
    author.post("/author/reports/1/resolve", data={"resolution": "Fixed the typo."})
    boss.post("/admin/users/ann/role", data={"role": "learner"})
    rows = _rows(boss.get("/admin/audit").text)
    assert "Role of ann: author → learner" in rows[0]
    assert (
        "ann" in rows[1] and "“typo” report on question" in rows[1] and "Fixed the typo." in rows[1]
    )
    assert "ann" in rows[2] and f"Question {qid} : revision 2" in rows[2]
    assert "Say why it holds" in rows[2]
    assert "Imported from bundle.txt" in rows[3]  # the import's revision 1, by no one
    content = _rows(boss.get("/admin/audit?kind=content").text)
    assert len(content) == 2 and all("revision" in row for row in content)
    assert len(_rows(boss.get("/admin/audit?kind=report").text)) == 1


def test_the_log_is_paged(user_client, make_user, db):
    boss = user_client("boss", role="admin")
    make_user("lee")
    with db.session_scope(write=True) as session:
        for n in range(PAGE_SIZE + 1):
            set_role(session, None, "lee", "author" if n % 2 == 0 else "learner")
    first = boss.get("/admin/audit?kind=role")
    assert len(_rows(first.text)) == PAGE_SIZE
    assert "/admin/audit?page=2&amp;kind=role" in first.text
    (last,) = _rows(boss.get("/admin/audit?kind=role&page=2").text)
    assert "learner → author" in last  # the oldest change is on the last page
    assert boss.get("/admin/audit?page=3").status_code == 404


@pytest.mark.parametrize("query", ["kind=everything", "page=0", "page=x", "kind=role&page=-1"])
def test_bad_filters_are_refused(user_client, query):
    boss = user_client("boss", role="admin")
    assert boss.get(f"/admin/audit?{query}").status_code == 422


@pytest.mark.parametrize("role", ["learner", "author"])
def test_only_admins_read_the_log(user_client, role, qid):
    someone = user_client("sam", role=role)
    response = someone.get("/admin/audit")
    assert response.status_code == 403
    assert "Imported from bundle.txt" not in response.text


def test_a_guest_is_sent_to_log_in(client):
    response = client.get("/admin/audit", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")


def test_a_deleted_account_keeps_its_role_changes(user_client, make_user, db):
    boss = user_client("boss", role="admin")
    lee = make_user("lee")
    boss.post("/admin/users/lee/role", data={"role": "author"})
    with db.session_scope(write=True) as session:
        session.delete(session.get(type(lee), lee.id))
    (row,) = _rows(boss.get("/admin/audit").text)
    assert "an account since deleted" in row
    with db.session_scope() as session:
        assert session.scalars(select(RoleChange.user_id)).one() is None
