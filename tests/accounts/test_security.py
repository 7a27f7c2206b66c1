"""Security baseline: cross-site requests, API tokens, stored hashes, nothing secret in clear."""

import logging

import pytest
from argon2 import extract_parameters
from fastapi.testclient import TestClient
from sqlalchemy import func, inspect, select, text

from app.accounts.models import User
from app.models import Base
from tests.factories import PASSWORD, choice_ids, log_in, question_id

CROSS_SITE = [
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Origin": "https://evil.example"},
    {"Origin": "null"},
]


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_cross_site_form_posts_are_refused_and_change_nothing(client, make_user, db, headers):
    make_user("ann")
    log_in(client, "ann")
    response = client.post(
        "/account/password",
        data={"current_password": PASSWORD, "new_password": "taken over by evil"},
        headers=headers,
    )
    assert response.status_code == 403
    assert "came from another website" in response.text and "Go to the home page" in response.text
    client.post("/logout")
    log_in(client, "ann")  # the old password still works


def test_cross_site_api_posts_are_refused_as_json(client, seeded):
    qid = question_id(seeded, "3")
    response = client.post(
        f"/api/v1/questions/{qid}/check",
        json={"choice_ids": [1]},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert response.status_code == 403 and "another website" in response.json()["detail"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "same-origin"},
        {"Sec-Fetch-Site": "none"},
        {"Origin": "http://testserver"},
        {},
    ],
)
def test_same_origin_posts_pass(client, make_user, headers):
    make_user("ann")
    response = client.post(
        "/login",
        data={"username": "ann", "password": PASSWORD},
        headers=headers,
        follow_redirects=False,
    )
    assert response.status_code == 303


def test_safe_methods_are_never_refused(client):
    assert client.get("/", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200


def _new_token(client: TestClient, name: str = "script") -> str:
    response = client.post("/account/tokens", data={"name": name})
    assert response.status_code == 200 and response.url.path == "/account"
    start = response.text.index('id="new-token">') + len('id="new-token">')
    return response.text[start : response.text.index("<", start)]


def test_api_tokens_work_once_shown_and_stop_when_revoked(app, client, make_user, db):
    make_user("ann")
    log_in(client, "ann")
    token = _new_token(client)
    assert token.startswith("shpat_")
    assert token not in client.get("/account").text  # shown once only
    with TestClient(app) as script:
        bearer = {"Authorization": f"Bearer {token}"}
        assert script.get("/api/v1/me", headers=bearer).json() == {
            "username": "ann",
            "role": "learner",
            "scope": "read",
        }
        with db.engine.connect() as conn:
            token_id = conn.execute(text("SELECT id FROM api_token")).scalar()
        assert (
            client.post(f"/account/tokens/{token_id}/revoke", follow_redirects=False).status_code
            == 303
        )
        response = script.get("/api/v1/me", headers=bearer)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == "Bearer"
        assert "revoked" in response.json()["detail"]


def test_api_needs_authentication_for_me(client):
    assert client.get("/api/v1/me").status_code == 401
    bad = client.get("/api/v1/me", headers={"Authorization": "Bearer shpat_made_up"})
    assert bad.status_code == 401


def test_the_session_cookie_works_for_the_api(client, make_user):
    make_user("ann")
    log_in(client, "ann")
    assert client.get("/api/v1/me").json()["username"] == "ann"


def test_token_names_are_checked(client, make_user):
    make_user("ann")
    log_in(client, "ann")
    response = client.post("/account/tokens", data={"name": "   "})
    assert response.status_code == 422 and "1 to 60 characters" in response.text


@pytest.mark.real_argon2
def test_stored_hash_is_argon2id_with_owasp_parameters(make_user, db):
    make_user("ann")
    with db.session_scope() as session:
        stored = session.scalars(select(User.password_hash)).one()
    params = extract_parameters(stored)
    assert stored.startswith("$argon2id$")
    assert params.memory_cost >= 19 * 1024 and params.time_cost >= 2 and params.parallelism == 1


@pytest.mark.real_argon2
def test_old_hashes_are_upgraded_on_log_in(client, make_user, db):
    from argon2 import PasswordHasher

    make_user("ann")
    weak = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1).hash(PASSWORD)
    with db.session_scope(write=True) as session:
        session.execute(text("UPDATE user_account SET password_hash = :h"), {"h": weak})
    log_in(client, "ann")
    with db.session_scope() as session:
        stored = session.scalars(select(User.password_hash)).one()
    assert extract_parameters(stored).memory_cost == 19 * 1024


def test_no_password_or_token_in_logs_or_in_the_database(client, make_user, db, seeded, caplog):
    caplog.set_level(logging.DEBUG)
    client.post("/signup", data={"username": "ann", "password": PASSWORD})
    client.post("/logout")
    client.post("/login", data={"username": "ann", "password": "wrong guess here"})
    log_in(client, "ann")
    session_token = client.cookies["studyhall_session"]
    api_token = _new_token(client)
    client.get("/api/v1/me", headers={"Authorization": f"Bearer {api_token}"})
    secrets = [PASSWORD, "wrong guess here", session_token, api_token]
    logged = "\n".join(record.getMessage() for record in caplog.records)
    dump = _dump_database(db)
    for secret in secrets:
        assert secret not in logged
        assert secret not in dump


def _dump_database(db) -> str:  # type: ignore[no-untyped-def]
    parts = []
    with db.engine.connect() as conn:
        for table in inspect(conn).get_table_names():
            if table in Base.metadata.tables:
                for row in conn.execute(select(Base.metadata.tables[table])):
                    parts.append(repr(tuple(row)))
    return "\n".join(parts)


def test_security_headers_on_account_pages(client):
    headers = client.get("/login").headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"


def test_recorded_answers_count(client, make_user, seeded):
    from app.progress.models import PracticeAnswer

    make_user("ann")
    log_in(client, "ann")
    right, wrong = choice_ids(seeded, "1")
    client.post(f"/questions/{question_id(seeded, '1')}", data={"choice": str(wrong[0])})
    with seeded.session_scope() as session:
        row = session.execute(
            select(PracticeAnswer.is_correct, func.count()).group_by(PracticeAnswer.is_correct)
        ).all()
    assert row == [(False, 1)]


@pytest.mark.real_argon2
def test_two_log_ins_at_once_both_succeed_while_the_hash_is_upgraded(make_user, db):
    """Both checked the old hash; the first one's log-in upgrades it before the second's."""
    from argon2 import PasswordHasher

    from app.accounts.service import Policy, Verified, log_in_and_start

    user = make_user("ann")
    weak = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1).hash(PASSWORD)
    with db.session_scope(write=True) as session:
        session.execute(text("UPDATE user_account SET password_hash = :h"), {"h": weak})
    both_checked = Verified(user.id, weak)
    for address in ("10.0.0.1", "10.0.0.2"):
        with db.session_scope(write=True) as session:
            token = log_in_and_start(
                session, "ann", PASSWORD, address, Policy(), both_checked, None
            )
        assert isinstance(token, str)
    with db.session_scope() as session:
        upgraded = session.scalars(select(User.password_hash)).one()
    assert upgraded != weak
    with db.session_scope(write=True) as session:  # a password changed meanwhile still fails
        session.execute(
            text("UPDATE user_account SET password_hash = :h"),
            {"h": PasswordHasher().hash("another password entirely")},
        )
    with db.session_scope(write=True) as session:
        refused = log_in_and_start(
            session, "ann", PASSWORD, "10.0.0.3", Policy(), both_checked, None
        )
    assert not isinstance(refused, str)
