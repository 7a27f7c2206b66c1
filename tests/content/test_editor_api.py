"""The editor's JSON API: an author-scoped token reads and saves revisions, with the lock."""

from fastapi.testclient import TestClient

from tests.accounts.test_token_scopes import _make_token, script  # noqa: F401
from tests.factories import a_question, a_set, load, question_id


def test_an_author_token_reads_and_saves_a_question_with_the_lock(user_client, script, db):  # noqa: F811
    load(db, a_set(a_question("1")))
    qid = question_id(db, "1", "basics")
    author = user_client("ann", role="author")
    api: TestClient = script(_make_token(author, "author"))
    found = api.get(f"/api/v1/author/questions/{qid}")
    assert found.status_code == 200
    body = found.json()
    assert (body["revision"], body["content"]["stem"]) == (1, "Question 1?")

    content = body["content"] | {"explanation": "Sharper."}
    saved = api.put(
        f"/api/v1/author/questions/{qid}",
        json={"revision": 1, "note": "From a script", "content": content},
    )
    assert saved.status_code == 200 and saved.json()["revision"] == 2
    stale = api.put(
        f"/api/v1/author/questions/{qid}",
        json={"revision": 1, "note": "Again", "content": content | {"stem": "Late?"}},
    )
    assert stale.status_code == 409 and stale.json()["latest"] == 2
    faulty = api.put(
        f"/api/v1/author/questions/{qid}",
        json={"revision": 2, "note": "", "content": content | {"stem": " "}},
    )
    assert faulty.status_code == 422
    assert [p["field"] for p in faulty.json()["problems"]] == ["note", "stem"]
    unknown = api.put(f"/api/v1/author/questions/{qid}", json={"revision": 2, "extra": 1})
    assert unknown.status_code == 422


def test_a_practise_token_or_a_learner_is_refused(user_client, script, db):  # noqa: F811
    load(db, a_set(a_question("1")))
    qid = question_id(db, "1", "basics")
    author = user_client("ann", role="author")
    practise = script(_make_token(author, "practise"))
    assert practise.get(f"/api/v1/author/questions/{qid}").status_code == 403
    learner = script(_make_token(user_client("lee"), "practise"))
    assert learner.get(f"/api/v1/author/questions/{qid}").status_code == 403
    assert TestClient(learner.app).get(f"/api/v1/author/questions/{qid}").status_code == 401
