"""Two workers on one database: a log-out, a password change, a role change or a revoked
token on one of them holds on the very next request to the other (for exam attempts, see
tests/exams/test_query_counts.py)."""

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts.models import ApiToken
from app.main import create_app
from tests.factories import PASSWORD, log_in


@pytest.fixture
def other_worker(settings) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    """A second application on the same database, as a second server worker would be."""
    with TestClient(create_app(settings)) as client:
        yield client


def _same_session(source: TestClient, target: TestClient) -> TestClient:
    for name, value in source.cookies.items():
        target.cookies.set(name, value)
    return target


def _logged_in(client: TestClient) -> bool:
    return client.get("/account", follow_redirects=False).status_code == 200


def test_a_log_out_holds_on_the_other_worker_at_once(user_client, other_worker):
    ann = user_client("ann")
    elsewhere = _same_session(ann, other_worker)
    assert _logged_in(elsewhere)
    ann.post("/logout")
    assert not _logged_in(elsewhere)


def test_a_password_change_logs_out_other_sessions_everywhere_at_once(user_client, other_worker):
    ann = user_client("ann")
    elsewhere = _same_session(ann, other_worker)
    assert _logged_in(elsewhere)
    form = {"current_password": PASSWORD, "new_password": "a brand new passphrase 42"}
    assert ann.post("/account/password", data=form).status_code == 200
    assert not _logged_in(elsewhere)


def test_a_role_change_holds_on_the_other_worker_at_once(user_client, other_worker):
    boss = user_client("boss", role="admin")
    writer = user_client("writer", role="author")
    elsewhere = _same_session(writer, other_worker)
    assert elsewhere.get("/author/import").status_code == 200
    boss.post("/admin/users/writer/role", data={"role": "learner"})
    assert elsewhere.get("/author/import").status_code == 403


def test_a_revoked_token_is_refused_by_the_other_worker_at_once(user_client, other_worker, db):
    ann = user_client("ann")
    page = ann.post("/account/tokens", data={"name": "script"}).text
    token = re.search(r'id="new-token">([^<]+)<', page)[1]  # type: ignore[index]
    bearer = {"Authorization": f"Bearer {token}"}
    assert other_worker.get("/api/v1/me", headers=bearer).status_code == 200
    with db.session_scope() as session:
        token_id = session.scalars(select(ApiToken.id)).one()
    ann.post(f"/account/tokens/{token_id}/revoke")
    assert other_worker.get("/api/v1/me", headers=bearer).status_code == 401


def test_a_password_change_ends_other_sessions_of_the_user_in_this_worker(app, make_user):
    make_user("ann")
    with TestClient(app) as laptop, TestClient(app) as phone:
        log_in(laptop, "ann")
        log_in(phone, "ann")
        assert phone.get("/account", follow_redirects=False).status_code == 200
        laptop.post(
            "/account/password",
            data={
                "current_password": "correct horse battery staple",
                "new_password": "another long passphrase here",
            },
        )
        assert phone.get("/account", follow_redirects=False).status_code == 303
