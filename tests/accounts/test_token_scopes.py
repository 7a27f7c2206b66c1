"""API tokens authenticate the JSON API only, within the scope chosen when they were made;
what guards the account (tokens, password, deletion, roles, extra time) needs a session."""

import re

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.accounts import service
from app.accounts.errors import PermissionDenied
from app.accounts.models import ApiToken, User
from app.content.models import Question
from app.exams.models import TimeAllowance
from tests.factories import PASSWORD, choice_ids, count_rows, question_id, tags


def _make_token(client: TestClient, scope: str, **form: str) -> str:
    """Create a token through the account page's form; return it as the page shows it once."""
    page = client.post("/account/tokens", data={"name": "script", "scope": scope, **form})
    assert page.status_code == 200, page.text
    return re.search(r'id="new-token">([^<]+)<', page.text)[1]  # type: ignore[index]


@pytest.fixture
def script(app):  # type: ignore[no-untyped-def]
    """script(token): a client with no cookies that sends the token on every request."""
    clients: list[TestClient] = []

    def make(token: str) -> TestClient:
        client = TestClient(app, headers={"Authorization": f"Bearer {token}"})
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def test_a_token_on_a_page_is_a_guest(user_client, script):
    bot = script(_make_token(user_client("ann"), "practise"))
    assert bot.get("/api/v1/me").json()["username"] == "ann"
    response = bot.get("/account", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login")
    assert 'href="/login' in bot.get("/").text  # the header a guest sees
    assert bot.get("/account/export", follow_redirects=False).status_code == 303


def test_a_token_cannot_touch_the_account(user_client, script, db):
    ann = user_client("ann")
    bot = script(_make_token(ann, "practise"))
    with db.session_scope() as session:
        token_id = session.scalars(select(ApiToken.id)).one()
    attempts = {
        "/account/tokens": {"name": "more", "days": "365", "scope": "practise"},
        f"/account/tokens/{token_id}/revoke": {},
        "/account/password": {"current_password": PASSWORD, "new_password": "mine now, all mine"},
        "/account/delete": {"delete_password": PASSWORD},
    }
    for path, form in attempts.items():
        response = bot.post(path, data=form, follow_redirects=False)
        assert response.status_code == 303, path
        assert response.headers["location"].startswith("/login"), path
        assert "set-cookie" not in response.headers, path
    assert count_rows(db, ApiToken, ApiToken.revoked_at.is_(None)) == 1
    assert count_rows(db, User) == 1
    assert bot.get("/api/v1/me").status_code == 200  # the token still works, so nothing changed
    ann.post("/logout")
    assert ann.post("/login", data={"username": "ann", "password": PASSWORD}).is_success


def test_an_admins_token_cannot_change_roles_or_extra_time(user_client, script, db):
    boss = user_client("boss", role="admin")
    user_client("ann")
    bot = script(_make_token(boss, "admin"))
    assert bot.get("/metrics").status_code == 200  # it is an admin's token on the API
    role = bot.post("/admin/users/ann/role", data={"role": "admin"}, follow_redirects=False)
    extra = bot.post(
        "/exams/extra-time", data={"username": "ann", "multiplier": "2"}, follow_redirects=False
    )
    assert role.status_code == extra.status_code == 303
    assert count_rows(db, User, User.role == "admin") == 1
    assert count_rows(db, TimeAllowance) == 0


def test_an_authors_token_cannot_import_through_the_form(user_client, script, db):
    bot = script(_make_token(user_client("writer", role="author"), "author"))
    qa = "Set — Questions and Answers\nQuestion 1: Which?\n- this (Correct answer)\n- that\n"
    response = bot.post(
        "/author/import",
        files={"document": ("set.txt", qa.encode(), "text/plain")},
        follow_redirects=False,
    )
    assert response.status_code == 303 and response.headers["location"].startswith("/login")
    assert count_rows(db, Question) == 0


def test_a_read_token_reads_and_is_refused_a_write_with_a_clear_message(
    user_client, script, seeded
):
    ann = user_client("ann")
    reader, practiser = script(_make_token(ann, "read")), script(_make_token(ann, "practise"))
    qid = question_id(seeded, "1")
    right, _ = choice_ids(seeded, "1")
    assert reader.get(f"/api/v1/questions/{qid}").status_code == 200
    assert reader.get("/api/v1/progress").status_code == 200
    refused = reader.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]})
    assert refused.status_code == 403
    assert refused.json() == {
        "detail": "This API token's scope is read: it may only read. Make a token with the "
        "practise scope on your account page to answer questions and sit exams."
    }
    answered = practiser.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]})
    assert answered.status_code == 200 and answered.json()["correct"] is True
    assert reader.get("/api/v1/progress").json()["activity"]["answers"] == 1


def test_a_scope_below_the_route_is_refused_even_for_an_admin(user_client, script):
    bot = script(_make_token(user_client("boss", role="admin"), "practise"))
    response = bot.get("/metrics")
    assert response.status_code == 403
    assert response.json() == {
        "detail": "This API token's scope is practise; that needs the admin scope."
    }


def test_a_token_never_does_more_than_its_owners_role_now(user_client, script, db):
    boss = user_client("boss", role="admin")
    user_client("other", role="admin")
    bot = script(_make_token(boss, "admin"))
    with db.session_scope(write=True) as session:
        session.execute(update(User).where(User.username == "boss").values(role="learner"))
    assert bot.get("/metrics").status_code == 403
    assert bot.get("/api/v1/me").json() == {"username": "boss", "role": "learner", "scope": "admin"}


@pytest.mark.parametrize(
    ("role", "offered"),
    [
        ("learner", ["read", "practise"]),
        ("author", ["read", "practise", "author"]),
        ("admin", ["read", "practise", "author", "admin"]),
    ],
)
def test_the_form_offers_the_scopes_of_the_role_and_refuses_others(user_client, db, role, offered):
    client = user_client("ann", role=role)
    radios = [t for t in tags(client.get("/account").text, "input") if t.get("name") == "scope"]
    assert [t["value"] for t in radios] == offered
    assert [t["value"] for t in radios if "checked" in t] == ["read"]
    for scope in ("admin", "author", "owner"):
        if scope in offered:
            continue
        response = client.post("/account/tokens", data={"name": "script", "scope": scope})
        assert response.status_code == 422
        assert f"Choose a scope your role allows: {', '.join(offered)}." in response.text
        assert 'aria-describedby="scope-error"' in response.text
    assert count_rows(db, ApiToken) == 0


def test_the_token_list_shows_each_scope(user_client):
    ann = user_client("ann")
    _make_token(ann, "practise")
    _make_token(ann, "read")
    page = ann.get("/account").text
    rows = re.findall(r"<td>(read|practise)</td>", page)
    assert rows == ["read", "practise"]  # newest first
    assert "<legend>What it may do</legend>" in page
    assert '<label for="scope-practise">Practise: also answer questions' in page


def test_services_refuse_a_token_where_a_session_is_needed(db, make_user):
    user = make_user("boss", role="admin")
    token = service.Viewer(user.id, user.username, user.role, scope="admin")
    refusals = [
        lambda session: service.create_api_token(session, token, "more", 365, "admin"),
        lambda session: service.change_password(session, token, PASSWORD, "another long one"),
        lambda session: service.delete_account(session, token, PASSWORD),
        lambda session: service.set_role(session, token, "boss", "learner"),
    ]
    for refusal in refusals:
        with db.session_scope(write=True) as session, pytest.raises(PermissionDenied):
            refusal(session)
