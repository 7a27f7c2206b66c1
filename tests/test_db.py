"""Database plumbing: writers in one process queue in order instead of spinning on SQLite's lock."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import event, func, select

from app.accounts.service import create_user
from app.db import Database, FifoLock
from app.migrate import upgrade
from app.progress.models import PracticeAnswer
from tests.factories import PASSWORD, import_file, question_id

QA = "Locks — Questions and Answers\nQuestion 1: Which?\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"


def test_the_fifo_lock_serves_threads_in_the_order_they_asked():
    lock, order, started = FifoLock(), [], []
    lock.acquire()

    def worker(n: int) -> None:
        started.append(n)
        lock.acquire()
        order.append(n)
        lock.release()

    threads = []
    for n in range(8):
        thread = threading.Thread(target=worker, args=(n,))
        thread.start()
        threads.append(thread)
        while len(started) <= n:  # each one asks before the next starts
            time.sleep(0.001)
        time.sleep(0.01)
    lock.release()
    for thread in threads:
        thread.join(5)
    assert order == list(range(8))


def test_parallel_writers_in_one_process_never_see_database_is_locked(tmp_path):
    """With no busy timeout at all, SQLite fails a second writer at once; the queue prevents it."""
    url = f"sqlite:///{tmp_path / 'w.db'}"
    upgrade(url)
    db = Database(url)

    @event.listens_for(db.engine, "connect")
    def no_waiting(dbapi_conn, _record):  # type: ignore[no-untyped-def]
        dbapi_conn.execute("PRAGMA busy_timeout=0")

    with db.session_scope(write=True) as session:
        user = create_user(session, "ann", PASSWORD)
    import_file(db, QA.encode(), "q.txt")
    question = question_id(db, "1", "locks")

    def save(_: int) -> None:
        with db.session_scope(write=True) as session:
            session.add(
                PracticeAnswer(
                    user_id=user.id,
                    question_id=question,
                    question_revision=1,
                    selected_ids=[1],
                    is_correct=True,
                )
            )
            session.flush()
            time.sleep(0.002)  # hold the write lock a moment, as a real request does

    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(save, range(200)))
    with db.session_scope() as session:
        assert session.scalar(select(func.count(PracticeAnswer.id))) == 200
    db.dispose()


def test_a_writer_that_waits_too_long_gives_up_its_place():
    lock, got = FifoLock(), []
    lock.acquire()
    waiter = threading.Thread(target=lambda: got.append(lock.acquire(timeout=0.05)))
    waiter.start()
    waiter.join(5)
    assert got == [False]
    lock.release()
    assert lock.acquire(timeout=0.05)  # the queue is empty again: free at once
