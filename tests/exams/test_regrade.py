"""Regrading a question after its key was fixed: the dry run and the regrade agree with a
recomputation of every attempt and answer from scratch, on 10,000 attempts; a second run
changes nothing; cards of learners whose answers turned are replayed."""

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, insert, select, update

from app.accounts.models import User
from app.accounts.service import Viewer
from app.content.bundle import ChoiceData, QuestionData
from app.content.models import Choice
from app.db import Database
from app.exams import regrade
from app.exams.grading import grade_item, percent
from app.exams.models import ITEM_TABLE, Attempt, Regrade, RegradeAttempt
from app.exams.sampling import snapshots
from app.progress.models import PracticeAnswer, ReviewCard
from app.progress.rebuild import rebuild_cards
from tests.factories import a_question, a_set, load, question_id, run_async

AUTHOR = Viewer(id=1, username="ann", role="author")
LEARNER = Viewer(id=2, username="lee", role="learner")
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
ATTEMPTS = 10_000
LEARNERS = 40
ANSWERS = 3_000


def _fixed_question() -> QuestionData:
    # its key says A; the fix says A and B: a multiple-response question
    choices = [ChoiceData("A", True), ChoiceData("B", False), ChoiceData("C", False)]
    return QuestionData("1", "Which two?", choices, "A and B.", kind="multi")


@pytest.fixture
def bank(db: Database) -> dict[str, Any]:
    """Ten thousand attempts of three questions by forty learners, and their practice answers,
    graded with question 1's old key; then the key is fixed."""
    load(db, a_set(_fixed_question(), a_question("2", correct=2), a_question("3", correct=3)))
    qids = [question_id(db, key, "basics") for key in ("1", "2", "3")]
    rng = random.Random(20261207)
    with db.session_scope(write=True) as session:
        session.execute(
            insert(User),
            [
                {"username": f"l{n}", "password_hash": "-", "role": "learner"}
                for n in range(LEARNERS)
            ],
        )
        users = list(session.scalars(select(User.id).order_by(User.id)))
        shots = dict(snapshots(session, qids, False, rng))
        attempts, plans = [], []
        for n in range(ATTEMPTS):
            status = rng.choice(("submitted", "submitted", "expired", "open"))
            partial = rng.random() < 0.3
            items = []
            for position, qid in enumerate(qids, start=1):
                snap = dict(shots[qid])
                snap["choices"] = rng.sample(snap["choices"], len(snap["choices"]))
                ids = [c["id"] for c in snap["choices"]]
                chosen = rng.sample(ids, rng.choice((0, 1, 1, 2)))
                ok, pts = grade_item(snap, chosen, partial)
                graded = status != "open"
                items.append(
                    (position, qid, snap, chosen, ok if graded else None, pts if graded else None)
                )
            points = sum(i[5] or 0.0 for i in items)
            share = percent(points, len(items))
            graded = status != "open"
            attempts.append(
                {
                    "user_id": users[n % LEARNERS],
                    "title": "Practice exam",
                    "mode": "exam",
                    "status": status,
                    "pass_mark": 60,
                    "partial_credit": partial,
                    "question_count": 3,
                    "started_at": NOW - timedelta(days=2),
                    "submitted_at": NOW - timedelta(days=1) if graded else None,
                    "score": points if graded else None,
                    "percent": share if graded else None,
                    "passed": share >= 60 if graded else None,
                    "open_slot": f"x{n}" if not graded else None,
                }
            )
            plans.append(items)
        ids = session.scalars(
            insert(Attempt).returning(Attempt.id, sort_by_parameter_order=True), attempts
        ).all()
        session.execute(
            insert(ITEM_TABLE),
            [
                {
                    "attempt_id": aid,
                    "position": pos,
                    "question_id": qid,
                    "snapshot": snap,
                    "selected_ids": chosen,
                    "is_correct": ok,
                    "points": pts,
                }
                for aid, items in zip(ids, plans, strict=True)
                for pos, qid, snap, chosen, ok, pts in items
            ],
        )
        choices = list(
            session.scalars(
                select(Choice.id).where(Choice.question_id == qids[0]).order_by(Choice.position)
            )
        )
        answers = []
        for n in range(ANSWERS):
            chosen = rng.sample(choices, rng.choice((1, 1, 2)))
            answers.append(
                {
                    "user_id": users[n % LEARNERS],
                    "question_id": qids[0],
                    "question_revision": 1,
                    "selected_ids": chosen,
                    "is_correct": set(chosen) == {choices[0]},
                    "answered_at": NOW - timedelta(days=3, minutes=-n),
                    "source": "practice",
                }
            )
        session.execute(insert(PracticeAnswer), answers)
        rebuild_cards(session)
        # the key fix: B is right too
        session.execute(update(Choice).where(Choice.id == choices[1]).values(is_correct=True))
    return {"qid": qids[0], "right": {choices[0], choices[1]}}


def _recompute(
    db: Database, qid: int, right: set[int]
) -> tuple[dict[int, tuple[float, float, bool]], regrade.Counts]:
    """Every graded attempt's score from scratch with the new key, and the counts expected."""
    with db.session_scope() as session:
        stored = {
            a.id: (a.score, a.percent, a.passed, a.partial_credit)
            for a in session.execute(
                select(
                    Attempt.id,
                    Attempt.score,
                    Attempt.percent,
                    Attempt.passed,
                    Attempt.partial_credit,
                ).where(Attempt.status != "open")
            )
        }
        points: dict[int, list[float]] = {}
        for row in session.execute(
            select(ITEM_TABLE).where(ITEM_TABLE.c.attempt_id.in_(list(stored)))
        ):
            snap = dict(row.snapshot)
            if row.question_id == qid:
                snap["correct_ids"] = [c["id"] for c in snap["choices"] if c["id"] in right]
            points.setdefault(row.attempt_id, []).append(
                grade_item(snap, row.selected_ids, stored[row.attempt_id][3])[1]
            )
        answers = session.execute(
            select(PracticeAnswer.selected_ids, PracticeAnswer.is_correct)
        ).all()
    expected, changed, flipped = {}, 0, 0
    for aid, pts in points.items():
        new = sum(pts)
        share = percent(new, len(pts))
        expected[aid] = (new, share, share >= 60)
        if round(new, 4) != round(stored[aid][0], 4):
            changed += 1
            flipped += (share >= 60) != stored[aid][2]
    turned = sum((set(sel) == right) != ok for sel, ok in answers)
    return expected, regrade.Counts(changed, flipped, turned)


def test_the_dry_run_counts_what_a_recomputation_finds_and_writes_nothing(db, bank):
    _, counts = _recompute(db, bank["qid"], bank["right"])
    assert counts.attempts > 1000 and counts.flipped > 100 and counts.answers > 500
    with db.session_scope() as session:
        before = session.scalar(select(func.sum(Attempt.score)))
    with db.session_scope(write=True) as session:
        view = regrade.preview(session, AUTHOR, bank["qid"])
    assert view.counts == counts
    assert view.graded == sum(1 for _ in _recompute(db, bank["qid"], bank["right"])[0])
    with db.session_scope() as session:
        assert session.scalar(select(func.sum(Attempt.score))) == before
        assert session.scalar(select(func.count(Regrade.id))) == 0


def test_the_regrade_matches_the_recomputation_and_a_second_run_changes_nothing(db, bank):
    expected, counts = _recompute(db, bank["qid"], bank["right"])
    done = run_async(regrade.run(db, AUTHOR, bank["qid"], NOW))
    assert done == counts
    with db.session_scope() as session:
        for aid, score, share, passed in session.execute(
            select(Attempt.id, Attempt.score, Attempt.percent, Attempt.passed).where(
                Attempt.status != "open"
            )
        ):
            assert (score, share, passed) == (
                pytest.approx(expected[aid][0]),
                expected[aid][1],
                expected[aid][2],
            )
        assert session.scalar(select(func.count(RegradeAttempt.id))) == counts.attempts
        row = session.scalars(select(Regrade)).one()
        assert (row.attempts, row.flipped, row.answers, row.user_id) == (
            counts.attempts,
            counts.flipped,
            counts.answers,
            AUTHOR.id,
        )
        # open attempts carry the new key and will be graded with it
        keys = session.scalars(
            select(ITEM_TABLE.c.snapshot).where(ITEM_TABLE.c.question_id == bank["qid"])
        ).all()
        assert all(set(k["correct_ids"]) == bank["right"] for k in keys)
        turned_right = session.scalars(
            select(PracticeAnswer.is_correct).where(PracticeAnswer.question_id == bank["qid"])
        ).all()
        assert sum(turned_right) > 0
    assert _recompute(db, bank["qid"], bank["right"])[1] == regrade.Counts(0, 0, 0)
    assert run_async(regrade.run(db, AUTHOR, bank["qid"], NOW)) == regrade.Counts(0, 0, 0)
    with db.session_scope() as session:
        assert session.scalar(select(func.count(RegradeAttempt.id))) == counts.attempts
        assert regrade.preview(session, AUTHOR, bank["qid"]).counts == regrade.Counts(0, 0, 0)


def test_replayed_cards_follow_the_answers_judged_again(db, bank):
    run_async(regrade.run(db, AUTHOR, bank["qid"], NOW))
    with db.session_scope() as session:
        cards = {
            c.user_id: c
            for c in session.scalars(
                select(ReviewCard).where(ReviewCard.question_id == bank["qid"])
            )
        }
        latest: dict[int, bool] = {}
        for user_id, ok in session.execute(
            select(PracticeAnswer.user_id, PracticeAnswer.is_correct)
            .where(PracticeAnswer.question_id == bank["qid"])
            .order_by(PracticeAnswer.answered_at)
        ):
            latest[user_id] = ok
    assert latest and all(cards[u].last_correct == ok for u, ok in latest.items())


def test_a_learner_may_not_regrade(db, bank):
    from app.accounts.errors import PermissionDenied

    with db.session_scope() as session, pytest.raises(PermissionDenied):
        regrade.preview(session, LEARNER, bank["qid"])
    with db.session_scope(write=True) as session, pytest.raises(PermissionDenied):
        regrade.begin(session, LEARNER, bank["qid"], NOW)


def test_a_regrade_cut_short_keeps_its_batches_and_the_next_one_finishes(db, bank):
    expected, counts = _recompute(db, bank["qid"], bank["right"])
    with db.session_scope(write=True) as session:
        first = regrade.begin(session, AUTHOR, bank["qid"], NOW)
    with db.session_scope(write=True) as session:  # one batch, then the server stopped
        assert regrade.regrade_batch(session, first, bank["qid"], 0) is not None
    with db.session_scope() as session:
        kept = session.scalar(select(func.count(RegradeAttempt.id)))
    assert 0 < kept < counts.attempts
    done = run_async(regrade.run(db, AUTHOR, bank["qid"], NOW))
    assert done.attempts == counts.attempts - kept and done.answers == counts.answers
    with db.session_scope() as session:
        graded = select(Attempt.id, Attempt.percent).where(Attempt.status != "open")
        scores = dict(session.execute(graded).all())
        assert session.scalar(select(func.count(RegradeAttempt.id))) == counts.attempts
    assert scores == {aid: share for aid, (_, share, _) in expected.items()}
