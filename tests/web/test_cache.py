"""The per-worker content cache: hot pages skip the database; changes show after the TTL."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.config import Settings
from app.db import Database
from app.main import create_app
from app.web.cache import ContentCache
from tests.factories import count_queries, import_file, question_id


def run(coroutine):  # type: ignore[no-untyped-def]
    """Run a coroutine on a loop of its own, even when the browser tests left one running here."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


QA = "Cached — Questions and Answers\nQuestion 1: {stem}\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"


@pytest.fixture
def cached_client(settings: Settings):  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    app = create_app(settings.model_copy(update={"content_cache_seconds": 60}))
    with TestClient(app) as client:
        yield app, client


def test_a_second_visit_runs_no_query(cached_client, seeded):
    app, client = cached_client
    qid = question_id(seeded, "3")
    client.get(f"/questions/{qid}")
    with count_queries(app) as statements:
        assert client.get(f"/questions/{qid}").status_code == 200
        assert client.get("/questions/999999").status_code == 404
        assert client.get("/questions/999999").status_code == 404
    assert len(statements) == 1  # only the first miss for 999999 reads the database


def test_clearing_the_cache_shows_new_content(cached_client, db):
    app, client = cached_client
    import_file(db, QA.format(stem="Old stem?").encode(), "c.txt", 0.12)
    qid = question_id(db, "1", "cached")
    assert "Old stem?" in client.get(f"/questions/{qid}").text
    import_file(db, QA.format(stem="New stem?").encode(), "c.txt", 0.12)
    assert "Old stem?" in client.get(f"/questions/{qid}").text  # still within the TTL
    app.state.cache.clear()
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
