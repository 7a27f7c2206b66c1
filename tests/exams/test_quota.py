"""Quotas on attempts: custom exams open at once, exams started in 24 hours, and the sweep
that closes untimed attempts left alone so they stop counting."""

import threading
from datetime import timedelta

import pytest
from sqlalchemy import create_engine, text

from app.config import Settings
from app.exams import service
from app.exams.custom import CustomExam, custom_paper
from app.exams.errors import QuotaReached
from app.exams.models import Attempt, AttemptItem
from app.exams.sweep import sweep_once
from tests.conftest import PG_URL
from tests.exams.conftest import EXAM, GRACE, START
from tests.exams.helpers import answer, attempt, items, right_and_wrong
from tests.exams.test_routes import Clock
from tests.factories import SEED_DIR, count_rows

ROOT = "inference-optimization-tensorrt"
QUOTA = service.Quota(open_custom=2, per_day=4)
IDLE = timedelta(days=30)


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(
        database_url=db_url,
        content_cache_seconds=0,
        seed_dir=SEED_DIR,
        exam_open_custom_limit=QUOTA.open_custom,
        exam_daily_limit=QUOTA.per_day,
    )


def custom(db, user_id, now=START, minutes=0):  # type: ignore[no-untyped-def]
    wanted = CustomExam(topics=(ROOT,), count=5, minutes=minutes)
    with db.session_scope(write=True) as session:
        drawn = custom_paper(session, user_id, wanted)
        return service.sit(session, user_id, drawn, now, GRACE, quota=QUOTA).attempt_id


def fixed(db, user_id, now=START):  # type: ignore[no-untyped-def]
    with db.session_scope(write=True) as session:
        drawn = service.blueprint_paper(session, EXAM)
        return service.sit(session, user_id, drawn, now, GRACE, quota=QUOTA).attempt_id


def written(db) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    return count_rows(db, Attempt), count_rows(db, AttemptItem)


def test_one_custom_exam_past_the_open_limit_is_refused_and_writes_nothing(seeded, learner):
    custom(seeded, learner), custom(seeded, learner)
    before = written(seeded)
    with pytest.raises(QuotaReached) as caught:
        custom(seeded, learner, START + timedelta(minutes=1))
    assert caught.value.status_code == 429
    assert "You have 2 custom exams open" in caught.value.message
    assert written(seeded) == before
    fixed(seeded, learner)  # the limit is on custom exams: a catalog exam still starts


def test_submitting_one_makes_room_for_another(seeded, learner):
    first, _ = custom(seeded, learner), custom(seeded, learner)
    submit(seeded, learner, first)
    custom(seeded, learner)


def test_a_timed_custom_exam_whose_time_ran_out_no_longer_counts(seeded, learner):
    late = custom(seeded, learner, minutes=5)
    custom(seeded, learner)
    custom(seeded, learner, START + timedelta(minutes=5) + GRACE + timedelta(seconds=1))
    assert attempt(seeded, late).status == "expired"


def test_the_daily_limit_counts_every_start_and_says_when_one_is_free(seeded, learner):
    for hour in range(QUOTA.per_day):
        submit(seeded, learner, fixed(seeded, learner, START + timedelta(hours=hour)))
    before = written(seeded)
    with pytest.raises(QuotaReached) as caught:
        custom(seeded, learner, START + timedelta(hours=5))
    assert "started 4 exams in the last 24 hours" in caught.value.message
    assert "in 19 hours" in caught.value.message  # the first leaves the window at 9:00 tomorrow
    assert caught.value.headers["retry-after"] == str(19 * 3600)
    assert written(seeded) == before
    fixed(seeded, learner, START + timedelta(days=1, seconds=1))


def test_resuming_an_open_exam_is_not_a_start(seeded, learner):
    first = fixed(seeded, learner)
    for _ in range(QUOTA.per_day - 1):
        submit(seeded, learner, custom(seeded, learner))
    with pytest.raises(QuotaReached):
        custom(seeded, learner)
    assert fixed(seeded, learner, START + timedelta(minutes=5)) == first


def submit(db, user_id, attempt_id, now=START) -> None:  # type: ignore[no-untyped-def]
    with db.session_scope(write=True) as session:
        service.submit(session, attempt_id, user_id, now, GRACE)


def test_the_sweep_closes_untimed_attempts_left_alone_and_frees_the_quota(seeded, learner):
    left, busy = custom(seeded, learner), custom(seeded, learner)
    right, _ = right_and_wrong(items(seeded, busy)[0])
    answer(seeded, busy, learner, 1, [right], START + timedelta(days=20))
    assert sweep_once(seeded, GRACE, START + IDLE, IDLE) == 0
    assert sweep_once(seeded, GRACE, START + IDLE + timedelta(seconds=1), IDLE) == 1
    closed = attempt(seeded, left)
    assert closed.status == "expired" and closed.submitted_at == START
    assert attempt(seeded, busy).status == "open"  # saved 20 days in: 10 days to go
    fresh = custom(seeded, learner, START + timedelta(days=31))
    assert sweep_once(seeded, GRACE, START + timedelta(days=51), IDLE) == 1
    assert attempt(seeded, fresh).status == "open"
    finished = attempt(seeded, busy)
    assert finished.submitted_at == START + timedelta(days=20) and finished.score == 1


def test_the_sweep_leaves_untimed_attempts_alone_by_the_setting(seeded, learner, monkeypatch):
    attempt_id = custom(seeded, learner)
    monkeypatch.setenv("STUDYHALL_EXAM_UNTIMED_EXPIRY_DAYS", "40")
    from app.config import get_settings

    get_settings.cache_clear()
    try:
        assert sweep_once(seeded, GRACE, START + timedelta(days=39)) == 0
        assert sweep_once(seeded, GRACE, START + timedelta(days=41)) == 1
    finally:
        get_settings.cache_clear()
    assert attempt(seeded, attempt_id).status == "expired"


@pytest.fixture
def ann(seeded, user_client, app):  # type: ignore[no-untyped-def]
    app.state.exam_clock = Clock()
    return user_client("ann")


FORM = {"topics": ROOT, "count": "3", "minutes": "0"}


def test_the_form_shows_the_open_limit_and_writes_nothing(ann, seeded):
    for _ in range(QUOTA.open_custom):
        assert ann.post("/exams/custom", data=FORM, follow_redirects=False).status_code == 303
    before = written(seeded)
    response = ann.post("/exams/custom", data=FORM, follow_redirects=False)
    assert response.status_code == 429
    assert "You have 2 custom exams open, as many as you may have at once." in response.text
    assert 'role="alert"' in response.text and 'value="3"' in response.text  # the form kept
    assert written(seeded) == before


def test_the_daily_limit_on_the_page_and_in_the_api(ann, seeded, app):
    clock = app.state.exam_clock
    for _ in range(QUOTA.per_day):
        started = ann.post(f"/api/v1/exams/{EXAM}/attempts")
        assert started.status_code == 201
        ann.post(f"/api/v1/attempts/{started.json()['id']}/submit")
        clock.now += timedelta(minutes=1)
    refused = ann.post(f"/api/v1/exams/{EXAM}/attempts")
    assert refused.status_code == 429 and refused.headers["retry-after"]
    assert refused.json()["detail"].startswith("You have started 4 exams in the last 24 hours")
    page = ann.post(f"/exams/{EXAM}/start", follow_redirects=False)
    assert page.status_code == 429
    assert "You have started 4 exams in the last 24 hours" in page.text
    clock.now += timedelta(days=1)
    assert ann.post(f"/exams/{EXAM}/start", follow_redirects=False).status_code == 303


@pytest.mark.skipif(not PG_URL, reason="SQLite runs one write at a time")
def test_two_starts_at_once_count_each_other(seeded, learner):
    """The first start holds the learner's row until it commits; the second waits, then counts it."""
    custom(seeded, learner)
    outcome: list[BaseException | int] = []

    def second() -> None:
        try:
            outcome.append(custom(seeded, learner))
        except BaseException as exc:  # reported in the test's thread
            outcome.append(exc)

    watcher = create_engine(seeded.url)
    wanted = CustomExam(topics=(ROOT,), count=5, minutes=0)
    with seeded.session_scope(write=True) as session:
        drawn = custom_paper(session, learner, wanted)
        service.sit(session, learner, drawn, START, GRACE, quota=QUOTA)
        thread = threading.Thread(target=second)
        thread.start()
        while thread.is_alive() and not waiting_for_a_lock(watcher):
            thread.join(0.01)
        assert thread.is_alive(), outcome  # without the lock it ran past the count at once
    thread.join()
    watcher.dispose()
    assert isinstance(outcome[0], QuotaReached)
    assert count_rows(seeded, Attempt, Attempt.status == "open") == QUOTA.open_custom


def waiting_for_a_lock(engine) -> bool:  # type: ignore[no-untyped-def]
    with engine.connect() as conn:
        return bool(
            conn.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
            )
        )
