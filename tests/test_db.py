"""Database plumbing: writers in one process queue in order instead of spinning on SQLite's lock,
and small writes share commits, on the event loop when the lock is free, else on one writer
thread."""

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session

from app.accounts.service import create_user
from app.db import Database, FifoLock, ensure_power, utcnow
from app.migrate import upgrade
from app.progress.models import PracticeAnswer
from app.progress.service import Answer, record_answers
from tests.factories import PASSWORD, import_file, question_id, run_async

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


def _answers_db(tmp_path: Path) -> tuple[Database, int, int]:
    url = f"sqlite:///{tmp_path / 'q.db'}"
    upgrade(url)
    db = Database(url)
    with db.session_scope(write=True) as session:
        user = create_user(session, "ann", PASSWORD)
    import_file(db, QA.encode(), "q.txt")
    return db, user.id, question_id(db, "1", "locks")


def _answer(user: int, question: int, choice: int = 1) -> Callable[[Session], int]:
    def work(session: Session) -> int:
        record_answers(session, user, [Answer(question, 1, [choice], True, utcnow())])
        return choice

    return work


def _answers(db: Database) -> list[list[int]]:
    with db.session_scope() as session:
        return sorted(session.scalars(select(PracticeAnswer.selected_ids)).all())


def test_the_write_queue_commits_concurrent_writes_in_shared_batches(tmp_path):
    db, user, question = _answers_db(tmp_path)
    assert db.write_queue is not None
    commits = []
    for engine in db.engines:
        event.listen(engine, "commit", lambda _conn: commits.append(1))

    async def many() -> list[tuple[int, dict[str, object]]]:
        return await asyncio.gather(
            *(db.write_queue.run(_answer(user, question, n)) for n in range(200))  # type: ignore[union-attr]
        )

    outcomes = run_async(many())
    assert [result for result, _info in outcomes] == list(range(200))
    assert _answers(db) == sorted([n] for n in range(200))
    assert 1 <= len(commits) < 200  # some writes shared a commit
    db.dispose()


def test_a_write_that_fails_is_rolled_back_alone(tmp_path):
    db, user, question = _answers_db(tmp_path)

    def half_then_fail(session: Session) -> None:
        _answer(user, question, 99)(session)  # written, then undone by the failure
        raise ValueError("refused")

    async def batch() -> list[object]:
        jobs = [_answer(user, question, 1), half_then_fail, _answer(user, question, 2)]
        return await asyncio.gather(
            *(db.write_queue.run(job) for job in jobs),  # type: ignore[union-attr]
            return_exceptions=True,
        )

    first, failed, last = run_async(batch())
    assert isinstance(failed, ValueError)
    assert (first[0], last[0]) == (1, 2)  # type: ignore[index]
    assert _answers(db) == [[1], [2]]
    db.dispose()


def test_a_failing_job_leaves_the_others_effects_exactly_once(tmp_path):
    """Each job of a batch runs once: a failure rolls back its own SAVEPOINT, not the batch."""
    db, user, question = _answers_db(tmp_path)
    calls: list[str] = []

    def job(name: str, choice: int, fails: bool = False) -> Callable[[Session], int]:
        def work(session: Session) -> int:
            calls.append(name)
            _answer(user, question, choice)(session)
            if fails:
                raise ValueError("refused")
            return choice

        return work

    async def batch() -> list[object]:
        jobs = [job("good", 1), job("bad", 99, fails=True), job("also good", 2)]
        return await asyncio.gather(
            *(db.write_queue.run(work) for work in jobs),  # type: ignore[union-attr]
            return_exceptions=True,
        )

    first, failed, last = run_async(batch())
    assert isinstance(failed, ValueError)
    assert (first[0], last[0]) == (1, 2)  # type: ignore[index]
    assert calls == ["good", "bad", "also good"]
    assert _answers(db) == [[1], [2]]
    db.dispose()


def test_a_batch_that_cannot_commit_reports_every_write_failed(tmp_path, monkeypatch):
    """Another process holds the write lock past the busy timeout: nothing is acknowledged."""
    monkeypatch.setattr("app.db.BUSY_TIMEOUT_S", 0.1)
    db, user, question = _answers_db(tmp_path)
    other = sqlite3.connect(tmp_path / "q.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")

    async def batch() -> list[object]:
        return await asyncio.gather(
            *(db.write_queue.run(_answer(user, question, n)) for n in range(3)),  # type: ignore[union-attr]
            return_exceptions=True,
        )

    outcomes = run_async(batch())
    other.execute("ROLLBACK")
    other.close()
    assert all(isinstance(outcome, OperationalError) for outcome in outcomes)
    assert _answers(db) == []
    db.dispose()


def _on_thread(
    user: int, question: int, choice: int, threads: list[str]
) -> Callable[[Session], int]:
    """An answer that notes which thread wrote it."""

    def work(session: Session) -> int:
        threads.append(threading.current_thread().name)
        return _answer(user, question, choice)(session)

    return work


def test_writes_commit_on_the_event_loop_when_the_lock_is_free(tmp_path):
    db, user, question = _answers_db(tmp_path)
    assert db.write_queue is not None and db.loop_write_engine is not None
    threads: list[str] = []
    loop_commits = []
    event.listen(db.loop_write_engine, "commit", lambda _conn: loop_commits.append(1))

    async def write() -> tuple[str, list[tuple[int, dict[str, object]]]]:
        here = threading.current_thread().name
        jobs = [_on_thread(user, question, n, threads) for n in range(5)]
        return here, await asyncio.gather(*(db.write_queue.run(job) for job in jobs))  # type: ignore[union-attr]

    loop_thread, outcomes = run_async(write())
    assert [result for result, _info in outcomes] == list(range(5))
    assert threads == [loop_thread] * 5
    assert len(loop_commits) == 1  # the five arrived in one turn of the loop: one commit
    assert _answers(db) == [[n] for n in range(5)]
    db.dispose()


def test_the_loop_hands_writes_to_the_writer_thread_while_another_process_holds_the_lock(
    tmp_path,
):
    db, user, question = _answers_db(tmp_path)
    threads: list[str] = []
    other = sqlite3.connect(tmp_path / "q.db", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    releaser = threading.Timer(0.3, lambda: other.execute("ROLLBACK"))

    async def write() -> tuple[str, int]:
        releaser.start()
        result, _info = await db.write_queue.run(_on_thread(user, question, 4, threads))  # type: ignore[union-attr]
        return threading.current_thread().name, result

    loop_thread, result = run_async(write())
    releaser.join()
    other.close()
    assert result == 4
    assert threads == ["studyhall-writer"]  # the loop did not wait for the lock
    assert loop_thread != "studyhall-writer"
    assert _answers(db) == [[4]]
    db.dispose()


def test_the_loop_does_not_wait_for_a_writer_of_its_own_process(tmp_path):
    db, user, question = _answers_db(tmp_path)
    threads: list[str] = []
    holding, release = threading.Event(), threading.Event()

    def hold_the_lock() -> None:
        with db.session_scope(write=True) as session:
            _answer(user, question, 1)(session)  # BEGIN IMMEDIATE: the lock is this thread's
            holding.set()
            release.wait(5)

    async def write() -> int:
        with ThreadPoolExecutor(1) as pool:
            held = pool.submit(hold_the_lock)
            holding.wait(5)
            threading.Timer(0.2, release.set).start()
            result, _info = await db.write_queue.run(_on_thread(user, question, 2, threads))  # type: ignore[union-attr]
            held.result()
        return result

    assert run_async(write()) == 2
    assert threads == ["studyhall-writer"]
    assert _answers(db) == [[1], [2]]
    db.dispose()


def test_commits_on_the_loop_are_checkpointed_by_the_writer_thread(tmp_path, monkeypatch):
    """The log is copied into the database file and starts again: it does not grow for good."""
    monkeypatch.setattr("app.db.WriteQueue.CHECKPOINT_EVERY", 8)
    checkpoints: list[str] = []
    checkpoint = Database.checkpoint

    def noting(self: Database) -> None:
        checkpoints.append(threading.current_thread().name)
        checkpoint(self)

    monkeypatch.setattr(Database, "checkpoint", noting)
    db, user, question = _answers_db(tmp_path)
    wal = tmp_path / "q.db-wal"

    async def write_one_by_one() -> int:
        largest = 0
        for n in range(400):
            await db.write_queue.run(_answer(user, question, n))  # type: ignore[union-attr]
            largest = max(largest, wal.stat().st_size)
        return largest

    largest = run_async(write_one_by_one())
    assert checkpoints and set(checkpoints) == {"studyhall-writer"}
    assert len(_answers(db)) == 400
    assert largest < 400 * 4096  # far less than a page for each commit: the log restarted
    db.dispose()


def test_a_writer_finds_the_short_pauses_of_another_process_writing_step_after_step(
    tmp_path, monkeypatch
):
    """An import holds the lock for steps of a fraction of a second with short pauses between:
    a writer waiting meanwhile gets in, where SQLite's own busy handler would look too rarely."""
    monkeypatch.setattr("app.db.BUSY_TIMEOUT_S", 1.5)
    db, user, question = _answers_db(tmp_path)
    stop, steps_done, waited = threading.Event(), [0], []

    def steps() -> None:  # another process's connection, as `studyhall import` holds one
        other = sqlite3.connect(tmp_path / "q.db", isolation_level=None)
        while not stop.is_set():
            other.execute("BEGIN IMMEDIATE")
            time.sleep(0.1)
            other.execute("COMMIT")
            steps_done[0] += 1
            time.sleep(0.005)
        other.close()

    importer = threading.Thread(target=steps)
    importer.start()
    try:
        time.sleep(0.02)  # the importer holds the lock now
        for choice in range(5):
            before = steps_done[0]
            with db.session_scope(write=True) as session:
                _answer(user, question, choice)(session)
            waited.append(steps_done[0] - before)
    finally:
        stop.set()
        importer.join()
    assert _answers(db) == [[n] for n in range(5)]
    assert max(waited) <= 3, waited  # in at one of the first pauses, not after many steps
    db.dispose()


def test_a_writer_still_gives_up_after_the_busy_timeout(tmp_path, monkeypatch):
    monkeypatch.setattr("app.db.BUSY_TIMEOUT_S", 0.2)
    db, user, question = _answers_db(tmp_path)
    other = sqlite3.connect(tmp_path / "q.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    try:
        with db.session_scope(write=True) as session:
            _answer(user, question, 1)(session)
    except OperationalError as exc:
        assert "locked" in str(exc)
    else:
        raise AssertionError("a write went through while another process held the lock")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert 0.2 <= time.monotonic() - started < 2
    with db.session_scope(write=True) as session:  # the connection's own timeout is back
        assert session.connection().exec_driver_sql("PRAGMA busy_timeout").scalar() == 200
    assert _answers(db) == []
    db.dispose()


def test_the_write_queue_finishes_queued_writes_when_closed(tmp_path):
    db, user, question = _answers_db(tmp_path)

    async def write_then_close() -> int:
        result, _info = await db.write_queue.run(_answer(user, question, 7))  # type: ignore[union-attr]
        return result

    assert run_async(write_then_close()) == 7
    db.dispose()  # joins the writer thread; a second dispose is harmless
    db.dispose()
    assert _answers(Database(db.url)) == [[7]]


def test_brief_reads_on_sqlite_keep_one_connection_per_thread_and_see_each_commit(tmp_path):
    db, user, question = _answers_db(tmp_path)
    assert db.brief_sessions is not None and db.brief_engine is not None
    opened = []
    event.listen(db.brief_engine, "connect", lambda _conn, _record: opened.append(1))

    def brief_count() -> list[list[int]]:
        assert db.brief_sessions is not None
        with db.brief_sessions() as session:
            return sorted(session.scalars(select(PracticeAnswer.selected_ids)).all())

    assert brief_count() == []
    with db.session_scope(write=True) as session:
        _answer(user, question, 1)(session)
    assert brief_count() == [[1]]  # no snapshot outlives its read
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(brief_count).result() == [[1]]
    assert len(opened) == 2  # one for this thread, one for the other
    db.dispose()


def test_a_thread_keeps_its_brief_session_and_each_read_starts_afresh(tmp_path):
    db, user, question = _answers_db(tmp_path)
    opened = []
    event.listen(db.brief_engine, "connect", lambda _conn, _record: opened.append(1))

    def read() -> tuple[Session, list[list[int]], int]:
        with db.brief_session() as session:
            found = sorted(session.scalars(select(PracticeAnswer.selected_ids)).all())
            loaded = len(session.scalars(select(PracticeAnswer)).all())
            session.info["seen"] = True
            return session, found, loaded

    first, found, _ = read()
    assert found == []
    with db.session_scope(write=True) as session:
        _answer(user, question, 1)(session)
    second, found, loaded = read()
    assert second is first and found == [[1]] and loaded == 1  # the same session, the new row
    assert len(second.identity_map) == 0 and "seen" not in second.info  # nothing kept
    with db.brief_session() as outer, db.brief_session() as inner:
        assert outer is first and inner is not first  # a read inside a read has its own
    with pytest.raises(OperationalError), db.brief_session() as session:
        session.execute(text("SELECT * FROM no_such_table")).all()
    assert read()[1] == [[1]]  # a failed read leaves nothing behind
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(read).result()[0] is not first  # another thread, another session
    assert len(opened) == 2  # and one connection for each thread
    db.dispose()


def test_brief_reads_go_to_threads_without_a_sqlite_file():
    assert Database("sqlite://").brief_sessions is None


def test_sqlite_without_math_functions_gets_a_power_of_its_own():
    """The dashboard's recall needs power(); a SQLite built without it gets one from Python."""

    class WithoutMath:
        def __init__(self) -> None:
            self.connection = sqlite3.connect(":memory:")
            self.functions: list[str] = []

        def execute(self, sql: str) -> sqlite3.Cursor:
            if "power(" in sql and not self.functions:
                raise sqlite3.OperationalError("no such function: power")
            return self.connection.execute(sql)

        def create_function(self, name: str, *args: object, **kwargs: object) -> None:
            self.functions.append(name)
            self.connection.create_function(name, *args, **kwargs)  # type: ignore[arg-type]

    conn = WithoutMath()
    ensure_power(conn)
    assert conn.functions == ["power"]
    assert conn.execute("SELECT power(2, 0.5), power(NULL, 2)").fetchone() == (2**0.5, None)
    built_in = WithoutMath()
    built_in.functions.append("-")  # this one answers power() itself
    ensure_power(built_in)
    assert built_in.functions == ["-"]


def test_sql_errors_never_log_their_parameters(db, caplog):
    """Parameters are what people typed (a search, a password hash): no engine shows them."""
    secret = "hunter2-typed-by-someone"
    for engine in db.engines:
        with pytest.raises(DBAPIError) as raised, engine.connect() as conn:
            conn.execute(text("SELECT * FROM no_such_table WHERE x = :x"), {"x": secret})
        assert secret not in str(raised.value)
    with caplog.at_level("DEBUG"), pytest.raises(DBAPIError) as raised:
        with db.session_scope() as session:
            session.execute(text("SELECT * FROM no_such_table WHERE x = :x"), {"x": secret})
    assert secret not in str(raised.value) and secret not in caplog.text


def test_no_statement_runs_on_the_drivers_own_cursor():
    """Every statement goes through SQLAlchemy, which hides parameters and is watched."""
    app = Path(__file__).resolve().parent.parent / "app"
    for source in app.rglob("*.py"):
        assert "driver_connection.cursor" not in source.read_text(), source
