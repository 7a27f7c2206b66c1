"""The per-worker content cache: hot pages skip the database; changes show after the TTL."""

import asyncio
import threading

import pytest

from app.config import Settings
from app.db import Database
from app.errors import NotFound
from app.main import create_app
from app.web.cache import ContentCache
from tests.factories import choice_ids, count_queries, import_file, log_in, question_id
from tests.factories import run_async as run

QA = "Cached — Questions and Answers\nQuestion 1: {stem}\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"


@pytest.fixture
def cached_client(settings: Settings):  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    app = create_app(settings.model_copy(update={"content_cache_seconds": 60}))
    with TestClient(app) as client:
        yield app, client


def test_a_second_visit_runs_no_query(cached_client, seeded, monkeypatch):
    monkeypatch.setattr("app.web.cache.time.monotonic", lambda: 1000.0)  # no version check due
    app, client = cached_client
    qid = question_id(seeded, "3")
    client.get(f"/questions/{qid}")
    with count_queries(app) as statements:
        assert client.get(f"/questions/{qid}").status_code == 200
        assert client.get("/questions/999999").status_code == 404
        assert client.get("/questions/999999").status_code == 404
    assert len(statements) == 1  # only the first miss for 999999 reads the database


def test_clearing_the_cache_shows_new_content(cached_client, db, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("app.web.cache.time.monotonic", lambda: now[0])
    app, client = cached_client
    import_file(db, QA.format(stem="Old stem?").encode(), "c.txt", 0.12)
    qid = question_id(db, "1", "cached")
    assert "Old stem?" in client.get(f"/questions/{qid}").text
    import_file(db, QA.format(stem="New stem?").encode(), "c.txt", 0.12)
    now[0] += 0.5
    assert "Old stem?" in client.get(f"/questions/{qid}").text  # the version is not read yet
    now[0] += 1  # the version is read again
    assert "New stem?" in client.get(f"/questions/{qid}").text


def test_ttl_zero_turns_caching_off(db: Database):
    calls: list[int] = []

    def loader(_session) -> int:  # type: ignore[no-untyped-def]
        calls.append(1)
        return len(calls)

    cache = ContentCache(db, ttl=0)
    assert run(cache.get("k", loader)) == 1
    assert run(cache.get("k", loader)) == 2


def _counting_loader(calls: list[int]):  # type: ignore[no-untyped-def]
    def loader(_session) -> int:  # type: ignore[no-untyped-def]
        calls.append(1)
        return len(calls)

    return loader


def test_stale_entries_are_served_while_one_refresh_runs(db: Database, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("app.web.cache.time.monotonic", lambda: now[0])
    calls: list[int] = []
    loader = _counting_loader(calls)
    cache = ContentCache(db, ttl=5)

    async def scenario() -> list[int]:
        seen = [await cache.get("k", loader)]
        now[0] += 4.9
        seen.append(await cache.get("k", loader))  # fresh
        now[0] += 0.2
        seen += [await cache.get("k", loader) for _ in range(5)]  # stale: no waiting
        await asyncio.gather(*cache._loading.values())
        seen.append(await cache.get("k", loader))
        return seen

    assert run(scenario()) == [1, 1, 1, 1, 1, 1, 1, 2]
    assert len(calls) == 2  # five stale reads started a single refresh


def test_concurrent_misses_share_one_load(db: Database):
    calls: list[int] = []
    cache = ContentCache(db, ttl=5)

    async def crowd() -> list[int]:
        return list(
            await asyncio.gather(*(cache.get("k", _counting_loader(calls)) for _ in range(20)))
        )

    assert run(crowd()) == [1] * 20
    assert len(calls) == 1


def test_a_load_started_before_clear_is_not_kept(db: Database):
    cache = ContentCache(db, ttl=60)
    calls: list[int] = []

    async def scenario() -> tuple[int, int]:
        pending = asyncio.ensure_future(cache.get("k", _counting_loader(calls)))
        await asyncio.sleep(0)
        cache.clear()
        first = await pending
        return first, await cache.get("k", _counting_loader(calls))

    assert run(scenario()) == (1, 2)


def test_values_older_than_two_lifetimes_are_reloaded_before_answering(db: Database, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("app.web.cache.time.monotonic", lambda: now[0])
    calls: list[int] = []
    loader = _counting_loader(calls)
    cache = ContentCache(db, ttl=5)

    async def scenario() -> list[int]:
        seen = [await cache.get("k", loader)]
        now[0] += 10.5  # past the stale allowance: this request waits for fresh content
        seen.append(await cache.get("k", loader))
        return seen

    assert run(scenario()) == [1, 2]


def test_a_clear_during_a_load_never_serves_what_that_load_read(db: Database):
    """Content changed while a load ran: requests after the clear get the new content."""
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def loader(_session) -> str:  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:
            started.set()
            release.wait(10)
            return "old"
        return "new"

    async def scenario() -> tuple[str, str, str]:
        cache = ContentCache(db, ttl=60)
        first = asyncio.ensure_future(cache.get("k", loader))
        await asyncio.to_thread(started.wait, 10)
        cache.clear()  # e.g. an import committed while the first load was reading
        second = asyncio.ensure_future(cache.get("k", loader))
        await asyncio.sleep(0)
        release.set()
        return await first, await second, await cache.get("k", loader)

    assert run(scenario()) == ("old", "new", "new")


def test_the_cache_keeps_the_most_recently_used_entries(db: Database):
    cache = ContentCache(db, ttl=60, max_entries=3)

    async def scenario() -> None:
        for key in "abcd":
            await cache.get(key, lambda _s, key=key: key)
            await cache.get("a", lambda _s: "a")  # "a" stays in use

    run(scenario())
    assert len(cache) == 3 and set(cache._entries) == {"a", "c", "d"}


@pytest.fixture
def two_instances(settings: Settings, monkeypatch):  # type: ignore[no-untyped-def]
    """Two app instances (two workers) over one database, with a clock the test moves."""
    from fastapi.testclient import TestClient

    now = [1000.0]
    monkeypatch.setattr("app.web.cache.time.monotonic", lambda: now[0])
    cached = settings.model_copy(update={"content_cache_seconds": 60})
    with TestClient(create_app(cached)) as one, TestClient(create_app(cached)) as two:
        yield one, two, now


def test_an_import_through_one_instance_shows_in_the_other_within_a_second(
    two_instances, db, make_user
):
    one, two, now = two_instances
    import_file(db, QA.format(stem="Old stem?").encode(), "c.txt")
    qid = question_id(db, "1", "cached")
    assert all("Old stem?" in c.get(f"/questions/{qid}").text for c in (one, two))
    make_user("writer", role="author")
    log_in(one, "writer")
    document = {"document": ("c.txt", QA.format(stem="New stem?").encode(), "text/plain")}
    assert one.post("/author/import", files=document).status_code == 200
    assert "New stem?" in one.get(f"/questions/{qid}").text  # its own worker: at once
    now[0] += 0.5
    assert "Old stem?" in two.get(f"/questions/{qid}").text  # not checked again yet
    now[0] += 0.6
    assert "New stem?" in two.get(f"/questions/{qid}").text  # within about a second


def test_a_command_line_import_shows_in_every_instance_within_a_second(two_instances, db):
    one, two, now = two_instances
    import_file(db, QA.format(stem="Old stem?").encode(), "c.txt")
    qid = question_id(db, "1", "cached")
    assert all("Old stem?" in c.get(f"/questions/{qid}").text for c in (one, two))
    import_file(db, QA.format(stem="New stem?").encode(), "c.txt")  # as `studyhall import`
    now[0] += 1.1
    assert all("New stem?" in c.get(f"/questions/{qid}").text for c in (one, two))


def test_after_an_answer_key_fix_both_instances_grade_with_the_new_key(two_instances, db):
    one, two, _ = two_instances
    import_file(db, QA.format(stem="Which?").encode(), "c.txt")
    qid = question_id(db, "1", "cached")
    a, others = choice_ids(db, "1", "cached")
    for client in (one, two):  # both cache the page
        assert client.get(f"/questions/{qid}").status_code == 200
    fixed = QA.format(stem="Which?").replace(
        "- a (Correct answer)\n- b", "- a\n- b (Correct answer)"
    )
    import_file(db, fixed.replace("Correct answer: a", "Correct answer: b").encode(), "c.txt")
    for client in (one, two):
        check = client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [a]})
        assert check.json()["correct"] is False
        assert check.json()["correct_choice_ids"] == [others[0]]


def test_a_content_write_through_the_runner_clears_the_cache_at_once(db: Database):
    from app.content.service import bump_version

    cache = ContentCache(db, ttl=60, check_seconds=3600)
    values = iter([1, 2])

    async def visit() -> tuple[int, int, int]:
        first = await cache.get("k", lambda _session: next(values))
        again = await cache.get("k", lambda _session: next(values))
        await db.write(bump_version)
        return first, again, await cache.get("k", lambda _session: next(values))

    assert run(visit()) == (1, 1, 2)


def test_a_load_that_finds_nothing_is_kept_too(db: Database):
    calls: list[int] = []

    def loader(_session) -> int:  # type: ignore[no-untyped-def]
        calls.append(1)
        raise NotFound("There is no such question.")

    cache = ContentCache(db, ttl=60)

    async def visit_twice() -> None:
        for _ in range(2):
            with pytest.raises(NotFound):
                await cache.get("missing", loader)

    run(visit_twice())
    assert calls == [1]
