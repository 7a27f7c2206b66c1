"""A finished exam counts in the learner's progress: answers kept, cards reviewed, a score."""

from datetime import timedelta

from sqlalchemy import select

from app.exams import service
from app.exams.records import RECORDS
from app.progress import queries
from app.progress.models import PracticeAnswer, ReviewCard
from tests.exams.conftest import GRACE, START
from tests.exams.helpers import answer, items, right_and_wrong, start


def _answers(db, user_id: int) -> list[PracticeAnswer]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        return list(
            session.scalars(
                select(PracticeAnswer)
                .where(PracticeAnswer.user_id == user_id)
                .order_by(PracticeAnswer.question_id)
            )
        )


def _cards(db, user_id: int) -> dict[int, ReviewCard]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        cards = session.scalars(select(ReviewCard).where(ReviewCard.user_id == user_id))
        return {c.question_id: c for c in cards}


def _sit(db, learner: int) -> tuple[int, dict[int, bool]]:  # type: ignore[no-untyped-def]
    """Answer the first question right, the second wrong, leave the rest; return the outcomes."""
    attempt_id = start(db, learner)
    first, second = items(db, attempt_id)[:2]
    answer(db, attempt_id, learner, 1, [right_and_wrong(first)[0]], START + timedelta(minutes=1))
    answer(db, attempt_id, learner, 2, [right_and_wrong(second)[1]], START + timedelta(minutes=2))
    return attempt_id, {first.question_id: True, second.question_id: False}


def test_nothing_counts_before_the_exam_is_submitted(seeded, learner):
    _sit(seeded, learner)
    assert _answers(seeded, learner) == [] and _cards(seeded, learner) == {}


def test_a_submitted_exam_keeps_its_answers_and_reviews_their_cards(seeded, learner):
    attempt_id, outcomes = _sit(seeded, learner)
    finished = START + timedelta(minutes=5)
    with seeded.session_scope(write=True) as session:
        service.submit(session, attempt_id, learner, finished, GRACE)
    with seeded.session_scope(write=True) as session:  # a second submit changes nothing
        service.submit(session, attempt_id, learner, finished + timedelta(minutes=1), GRACE)
    kept = _answers(seeded, learner)
    assert {a.question_id: a.is_correct for a in kept} == outcomes  # unanswered ones are not
    assert {a.source for a in kept} == {"exam"} and all(a.seconds is None for a in kept)
    assert sorted(a.answered_at for a in kept) == [
        START + timedelta(minutes=1),
        START + timedelta(minutes=2),
    ]
    cards = _cards(seeded, learner)
    assert {qid: c.last_correct for qid, c in cards.items()} == outcomes
    assert all(c.last_review_at == finished and c.reviews == 1 for c in cards.values())
    right, wrong = (cards[q] for q in sorted(outcomes, key=lambda q: not outcomes[q]))
    assert wrong.due_at < right.due_at  # the one got wrong comes back sooner


def test_an_exam_that_runs_out_of_time_counts_when_it_is_swept(seeded, learner):
    attempt_id, outcomes = _sit(seeded, learner)
    with seeded.session_scope(write=True) as session:
        assert service.sweep(session, START + timedelta(hours=1), GRACE) == 1
    assert {a.question_id for a in _answers(seeded, learner)} == set(outcomes)
    deadline = START + timedelta(minutes=10)
    assert all(c.last_review_at == deadline for c in _cards(seeded, learner).values())


def test_a_card_practised_after_the_deadline_is_never_reviewed_back_in_time(seeded, learner):
    from app.progress.service import check_answer

    attempt_id = start(seeded, learner)
    first = items(seeded, attempt_id)[0]
    answer(seeded, attempt_id, learner, 1, [right_and_wrong(first)[0]], START)
    later = START + timedelta(minutes=30)  # practised after the deadline, before the sweep
    with seeded.session_scope(write=True) as session:
        check_answer(session, learner, first.question_id, [right_and_wrong(first)[0]], later)
    with seeded.session_scope(write=True) as session:
        service.sweep(session, START + timedelta(hours=1), GRACE)
    card = _cards(seeded, learner)[first.question_id]
    assert card.reviews == 2 and card.last_review_at == later


def test_the_scores_and_time_spent_feed_the_dashboard(seeded, learner):
    attempt_id, _ = _sit(seeded, learner)
    with seeded.session_scope(write=True) as session:
        service.submit(session, attempt_id, learner, START + timedelta(minutes=5), GRACE)
    with seeded.session_scope() as session:
        history = RECORDS.history(session, learner, 10)
        view = queries.dashboard(session, learner, START + timedelta(hours=1), exams=RECORDS)
    (score,) = history.scores
    assert (history.attempts, history.seconds) == (1, 300.0)
    assert score.percent == round(100 / 7, 1) and score.pass_mark == 70 and not score.passed
    assert view.chart is not None and len(view.chart.points) == 1
    assert view.answers == 2 and view.seconds == 300.0 and view.exams == history
