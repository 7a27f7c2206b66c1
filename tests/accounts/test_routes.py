"""Account pages through the TestClient: sign-up, log-in, log-out, password, deletion, roles."""

import re
import threading
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.accounts import passwords
from app.accounts.models import ApiToken, RateLimitEvent, User, UserSession
from app.db import utcnow
from app.progress.models import PracticeAnswer
from tests.factories import (
    PASSWORD,
    assert_only_owner_sees,
    choice_ids,
    count_rows,
    log_in,
    question_id,
)

COOKIE = "studyhall_session"


def test_sign_up_logs_in_and_lands_on_next(client, db):
    response = client.post(
        "/signup",
        data={"username": "Ann", "password": PASSWORD, "next": "/account"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/account?done=signed-up"
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    page = client.get("/account")
    assert page.status_code == 200 and "Logged in as <strong>ann</strong>" in page.text
    assert count_rows(db, User, User.username == "ann") == 1


@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("a", PASSWORD, "Use 3 to 32 characters"),
        ("bad name!", PASSWORD, "Use 3 to 32 characters"),
        ("ann", "short", "at least 8 characters"),
        ("ann", "x" * 1025, "at most 1024 characters"),
        ("ann", "password123", "most common"),
        ("annabelle", "annabelle", "must not be your username"),
    ],
)
def test_sign_up_refuses_bad_input_and_keeps_the_username(client, db, username, password, message):
    response = client.post("/signup", data={"username": username, "password": password})
    assert response.status_code == 422
    assert message in response.text
    assert 'aria-invalid="true"' in response.text
    assert count_rows(db, User) == 0


def test_sign_up_refuses_a_taken_username(client, make_user):
    make_user("ann")
    response = client.post("/signup", data={"username": "ANN", "password": PASSWORD})
    assert response.status_code == 422 and "taken" in response.text


def test_sign_up_can_be_switched_off(settings, db):
    from app.main import create_app

    app = create_app(settings.model_copy(update={"signup_open": False}))
    with TestClient(app) as client:
        assert client.get("/signup").status_code == 403
        response = client.post("/signup", data={"username": "ann", "password": PASSWORD})
    assert response.status_code == 403 and "closed" in response.text
    assert count_rows(db, User) == 0


def test_log_in_and_out(client, make_user, db):
    make_user("ann")
    log_in(client, "ann")
    assert "ann" in client.get("/").text
    assert count_rows(db, UserSession) == 1
    response = client.post("/logout", follow_redirects=False)
    assert response.status_code == 303
    assert count_rows(db, UserSession) == 0
    assert client.get("/account", follow_redirects=False).status_code == 303


def test_a_stolen_cookie_is_useless_after_logout(app, client, make_user):
    make_user("ann")
    log_in(client, "ann")
    token = client.cookies[COOKIE]
    client.post("/logout")
    with TestClient(app, cookies={COOKIE: token}) as thief:
        assert thief.get("/account", follow_redirects=False).status_code == 303


def test_log_in_gives_a_new_session_id(app, make_user):
    make_user("ann")
    with TestClient(app, cookies={COOKIE: "planted-by-an-attacker"}) as client:
        response = client.post(
            "/login", data={"username": "ann", "password": PASSWORD}, follow_redirects=False
        )
    issued = response.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    assert issued and issued != "planted-by-an-attacker"


@pytest.mark.parametrize("username", ["ann", "nobody"])
def test_wrong_password_and_unknown_user_get_the_same_answer(client, make_user, username):
    make_user("ann")
    response = client.post("/login", data={"username": username, "password": "wrong password"})
    assert response.status_code == 400
    assert "Wrong username or password." in response.text
    assert COOKIE not in client.cookies


def test_guest_is_sent_to_log_in_and_comes_back(client, make_user):
    make_user("ann")
    response = client.get("/account?tab=tokens", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=%2Faccount%3Ftab%3Dtokens"
    page = client.get(response.headers["location"])
    assert 'value="/account?tab=tokens"' in page.text
    done = client.post(
        "/login",
        data={"username": "ann", "password": PASSWORD, "next": "/account?tab=tokens"},
        follow_redirects=False,
    )
    assert done.headers["location"] == "/account?tab=tokens"


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example", "/\\evil.example"])
def test_log_in_never_redirects_off_site(client, make_user, target):
    make_user("ann")
    response = client.post(
        "/login",
        data={"username": "ann", "password": PASSWORD, "next": target},
        follow_redirects=False,
    )
    assert response.headers["location"] == "/"


def test_too_many_log_ins_are_refused_then_allowed_after_the_window(client, make_user, db):
    make_user("ann")
    for _ in range(5):
        client.post("/login", data={"username": "ann", "password": "wrong password"})
    response = client.post("/login", data={"username": "ann", "password": PASSWORD})
    assert response.status_code == 429
    assert "Too many attempts. Please try again in 15 minutes." in response.text
    assert int(response.headers["retry-after"]) > 800
    with db.session_scope(write=True) as session:  # let the window pass
        session.execute(update(RateLimitEvent).values(created_at=utcnow() - timedelta(minutes=16)))
    log_in(client, "ann")


def test_the_address_limit_also_holds_across_accounts(settings, db, make_user):
    from app.main import create_app

    app = create_app(settings.model_copy(update={"login_limit_per_address": 3}))
    with TestClient(app) as client:
        for name in ("a1x", "a2x", "a3x"):
            client.post("/login", data={"username": name, "password": "wrong password"})
        make_user("ann")
        response = client.post("/login", data={"username": "ann", "password": PASSWORD})
    assert response.status_code == 429


def test_change_password_ends_other_sessions(app, make_user, db):
    make_user("ann")
    with TestClient(app) as laptop, TestClient(app) as phone:
        log_in(laptop, "ann")
        log_in(phone, "ann")
        response = laptop.post(
            "/account/password",
            data={"current_password": PASSWORD, "new_password": "a brand new passphrase"},
            follow_redirects=False,
        )
        assert response.status_code == 303
        assert laptop.get("/account").status_code == 200
        assert phone.get("/account", follow_redirects=False).status_code == 303
    assert count_rows(db, UserSession) == 1
    with TestClient(app) as again:
        log_in(again, "ann", "a brand new passphrase")


@pytest.mark.parametrize(
    ("current", "new", "message"),
    [
        ("wrong password", "a brand new passphrase", "current password is not right"),
        (PASSWORD, "short", "at least 8 characters"),
        (PASSWORD, "qwertyuiop", "most common"),
    ],
)
def test_change_password_refusals_keep_the_old_password(client, make_user, current, new, message):
    make_user("ann")
    log_in(client, "ann")
    response = client.post(
        "/account/password", data={"current_password": current, "new_password": new}
    )
    assert response.status_code == 422 and message in response.text
    client.post("/logout")
    log_in(client, "ann")


def test_delete_account_removes_all_my_data(client, make_user, seeded):
    make_user("ann")
    log_in(client, "ann")
    right, _ = choice_ids(seeded, "3")
    client.post(f"/questions/{question_id(seeded, '3')}", data={"choice": str(right)})
    client.post("/account/tokens", data={"name": "script"})
    refused = client.post("/account/delete", data={"delete_password": "wrong password"})
    assert refused.status_code == 422 and count_rows(seeded, User) == 1
    response = client.post(
        "/account/delete", data={"delete_password": PASSWORD}, follow_redirects=False
    )
    assert response.status_code == 303
    for model in (User, UserSession, ApiToken, PracticeAnswer):
        assert count_rows(seeded, model) == 0, model
    assert client.get("/account", follow_redirects=False).status_code == 303


def test_expired_sessions_are_logged_out(client, make_user, db):
    make_user("ann")
    log_in(client, "ann")
    with db.session_scope(write=True) as session:
        session.execute(update(UserSession).values(last_seen_at=utcnow() - timedelta(hours=13)))
    assert client.get("/account", follow_redirects=False).status_code == 303
    log_in(client, "ann")
    with db.session_scope(write=True) as session:
        session.execute(update(UserSession).values(expires_at=utcnow() - timedelta(seconds=1)))
    assert client.get("/account", follow_redirects=False).status_code == 303


def test_learners_and_authors_cannot_manage_users(user_client):
    for role in ("learner", "author"):
        client = user_client(f"{role}x", role=role)
        assert client.get("/admin/users").status_code == 403
        response = client.post("/admin/users/learnerx/role", data={"role": "admin"})
        assert response.status_code == 403


def test_admins_manage_roles(user_client, make_user, db):
    admin = user_client("boss", role="admin")
    make_user("ann")
    assert "ann" in admin.get("/admin/users").text
    response = admin.post("/admin/users/ann/role", data={"role": "author"}, follow_redirects=False)
    assert response.status_code == 303
    assert count_rows(db, User, User.username == "ann", User.role == "author") == 1
    bad = admin.post("/admin/users/ann/role", data={"role": "emperor"})
    assert bad.status_code == 422
    last = admin.post("/admin/users/boss/role", data={"role": "learner"})
    assert last.status_code == 422 and "last admin" in last.text


def test_only_the_owner_can_revoke_a_token(user_client, db):
    ann, bob = user_client("ann"), user_client("bob")
    ann.post("/account/tokens", data={"name": "laptop"})
    with db.session_scope() as session:
        token_id = session.scalars(select(ApiToken.id)).one()
    assert_only_owner_sees(ann, bob, "POST", f"/account/tokens/{token_id}/revoke")
    assert count_rows(db, ApiToken, ApiToken.revoked_at.is_not(None)) == 1


def test_guest_pages_show_log_in_links(client, seeded):
    html = client.get("/").text
    html = html.replace("%2F", "/")
    assert 'href="/login?next=/"' in html and 'href="/signup?next=/"' in html


def test_sign_ups_are_limited_per_address_even_when_refused(settings, db):
    from app.main import create_app

    app = create_app(settings.model_copy(update={"login_limit_per_address": 3}))
    with TestClient(app) as client:
        for _ in range(3):  # probing for taken names counts too
            client.post("/signup", data={"username": "ann", "password": "short"})
        response = client.post("/signup", data={"username": "ann", "password": PASSWORD})
    assert response.status_code == 429 and "Too many attempts" in response.text
    assert count_rows(db, User) == 0


@pytest.mark.parametrize("raw", ["%C2%B2", "1e3", "-1", "99999999999999999999", "abc"])
def test_odd_token_ids_are_404_not_500(user_client, raw):
    client = user_client("ann")
    assert client.post(f"/account/tokens/{raw}/revoke").status_code == 404


def test_sign_up_reports_every_problem_at_once(client, db):
    response = client.post("/signup", data={"username": "x", "password": "password"})
    assert response.status_code == 422
    html = response.text
    assert "Use 3 to 32 characters" in html
    assert "one of the most common ones" in html
    assert html.count('aria-invalid="true"') == 2


def test_creating_a_token_redirects_and_a_reload_makes_no_second_one(client, make_user, db):
    make_user("ann")
    log_in(client, "ann")
    response = client.post("/account/tokens", data={"name": "script"}, follow_redirects=False)
    assert response.status_code == 303
    page = client.get(response.headers["location"])
    assert 'id="new-token">shpat_' in page.text
    assert page.headers["cache-control"] == "no-store"
    reloaded = client.get(response.headers["location"])
    assert "new-token" not in reloaded.text  # shown once; the reload is a GET
    assert count_rows(db, ApiToken) == 1


def test_token_use_is_recorded_at_most_once_a_minute(app, client, make_user, db):
    make_user("ann")
    log_in(client, "ann")
    page = client.post("/account/tokens", data={"name": "script"}).text
    token = re.search(r'id="new-token">([^<]+)<', page)[1]  # type: ignore[index]
    bearer = {"Authorization": f"Bearer {token}"}

    def last_used():  # type: ignore[no-untyped-def]
        with db.session_scope() as session:
            return session.scalars(select(ApiToken.last_used_at)).one()

    assert last_used() is None
    assert client.get("/api/v1/me", headers=bearer).status_code == 200
    first = last_used()
    assert first is not None
    client.get("/api/v1/me", headers=bearer)
    assert last_used() == first  # within the minute: no write
    with db.session_scope(write=True) as session:
        session.execute(update(ApiToken).values(last_used_at=first - timedelta(minutes=2)))
    client.get("/api/v1/me", headers=bearer)
    assert last_used() > first - timedelta(minutes=1)
    assert "last used " + first.strftime("%Y-%m-%d") in client.get("/account").text


def _token(client: TestClient, days: str = "90") -> str:
    page = client.post("/account/tokens", data={"name": "script", "days": days}).text
    return re.search(r'id="new-token">([^<]+)<', page)[1]  # type: ignore[index]


def test_tokens_expire_after_the_lifetime_chosen(client, make_user, db):
    make_user("ann")
    log_in(client, "ann")
    token = _token(client, "30")
    with db.session_scope() as session:
        row = session.scalars(select(ApiToken)).one()
        assert timedelta(days=29, hours=23) < row.expires_at - row.created_at <= timedelta(days=30)
    assert "expires " + row.expires_at.strftime("%Y-%m-%d") in client.get("/account").text
    with db.session_scope(write=True) as session:
        session.execute(update(ApiToken).values(expires_at=utcnow() - timedelta(seconds=1)))
    response = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401
    assert ">expired<" in client.get("/account").text.replace("\n", "").replace(" ", "")


@pytest.mark.parametrize("days", ["7", "abc", "99999999999"])
def test_only_the_offered_lifetimes_are_accepted(client, make_user, db, days):
    make_user("ann")
    log_in(client, "ann")
    response = client.post("/account/tokens", data={"name": "script", "days": days})
    assert response.status_code == 422 and "Choose a lifetime of 30, 90, 365 days" in response.text
    assert count_rows(db, ApiToken) == 0


def test_a_password_change_revokes_every_api_token(client, make_user, db):
    make_user("ann")
    log_in(client, "ann")
    token = _token(client)
    page = client.post(
        "/account/password",
        data={"current_password": PASSWORD, "new_password": "a brand new passphrase"},
    )
    assert "your API tokens were revoked" in page.text
    response = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 401


def test_no_password_is_hashed_or_checked_in_a_write(client, make_user, monkeypatch):
    """Sign-up, a password change and deleting the account hash and check passwords before
    their write: on SQLite the writes wait for one another, and a hash takes tens of ms."""
    threads: list[str] = []
    hasher = passwords.HASHER

    class Recording:
        def hash(self, password: str) -> str:
            threads.append(threading.current_thread().name)
            return hasher.hash(password)

        def verify(self, password_hash: str, password: str) -> bool:
            threads.append(threading.current_thread().name)
            return hasher.verify(password_hash, password)

        def check_needs_rehash(self, password_hash: str) -> bool:
            return hasher.check_needs_rehash(password_hash)

    monkeypatch.setattr(passwords, "HASHER", Recording())
    signed_up = client.post("/signup", data={"username": "sam", "password": "a long passphrase"})
    assert signed_up.status_code == 200 and "sam" in signed_up.text
    changed = client.post(
        "/account/password",
        data={"current_password": "a long passphrase", "new_password": "another passphrase"},
        follow_redirects=False,
    )
    assert changed.status_code == 303
    refused = client.post("/account/delete", data={"delete_password": "a long passphrase"})
    assert refused.status_code == 422 and "not right" in refused.text
    deleted = client.post(
        "/account/delete", data={"delete_password": "another passphrase"}, follow_redirects=False
    )
    assert deleted.status_code == 303
    assert len(threads) == 5  # sign-up, change (check and hash), delete (two checks)
    assert not [name for name in threads if name.startswith("studyhall-")], threads
