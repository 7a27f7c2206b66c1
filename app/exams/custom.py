"""Custom exams a learner builds: topics, how many questions, time, mode, and filters."""

import random
from dataclasses import dataclass

from sqlalchemy import select, union
from sqlalchemy.orm import Session

from app.content.models import Question, Topic
from app.content.queries import topic_subtrees
from app.exams.errors import InvalidExamSpec
from app.exams.models import Attempt, AttemptItem
from app.exams.sampling import ordered_question_ids
from app.exams.service import ExamSpec, Paper, paper
from app.progress.models import PracticeAnswer

MAX_QUESTIONS = 200
MAX_MINUTES = 600
PASS_MARK = 70


@dataclass(frozen=True)
class CustomExam:
    """What the learner asked for on the exams page (or through the API)."""

    topics: tuple[str, ...]
    count: int
    minutes: int  # 0: untimed
    mode: str = "exam"
    only_wrong: bool = False
    only_unseen: bool = False


def check(request: CustomExam) -> None:
    """Refuse a custom exam that cannot be built, naming the field at fault."""
    if not request.topics:
        raise InvalidExamSpec("topics", "Choose at least one topic.")
    if not 1 <= request.count <= MAX_QUESTIONS:
        raise InvalidExamSpec("count", f"Choose from 1 to {MAX_QUESTIONS} questions.")
    if not 0 <= request.minutes <= MAX_MINUTES:
        raise InvalidExamSpec("minutes", f"Choose from 0 (untimed) to {MAX_MINUTES} minutes.")
    if request.mode not in ("exam", "practice"):
        raise InvalidExamSpec("mode", "Choose exam or practice mode.")
    if request.only_wrong and request.only_unseen:
        raise InvalidExamSpec(
            "only_wrong", "A question cannot be both one you got wrong and one you never saw."
        )


def custom_spec(session: Session, user_id: int, request: CustomExam) -> ExamSpec:
    """Turn a learner's choices into the pool an attempt draws from."""
    check(request)
    trees = topic_subtrees(session)
    unknown = [slug for slug in request.topics if slug not in trees]
    if unknown:
        raise InvalidExamSpec("topics", f"There is no topic called “{unknown[0]}”.")
    topic_ids = set().union(*(trees[slug] for slug in request.topics))
    pool = ordered_question_ids(session, Question.topic_id.in_(topic_ids))
    if request.only_wrong:
        wrong = _wrong(session, user_id)
        pool = tuple(qid for qid in pool if qid in wrong)
    if request.only_unseen:
        seen = _seen(session, user_id)
        pool = tuple(qid for qid in pool if qid not in seen)
    if not pool:
        raise InvalidExamSpec(
            "topics", "No questions match these choices; try other topics or filters."
        )
    titles = session.scalars(select(Topic.title).where(Topic.slug.in_(request.topics))).all()
    return ExamSpec(
        title=f"Custom exam: {', '.join(sorted(titles))}"[:200],
        question_ids=pool,
        count=request.count,
        time_limit_s=request.minutes * 60 or None,
        pass_mark=PASS_MARK,
        mode=request.mode,
    )


def _seen(session: Session, user_id: int) -> set[int]:
    practised = select(PracticeAnswer.question_id).where(PracticeAnswer.user_id == user_id)
    sat = (
        select(AttemptItem.question_id)
        .join(Attempt, AttemptItem.attempt_id == Attempt.id)
        .where(Attempt.user_id == user_id, AttemptItem.question_id.is_not(None))
    )
    return set(session.scalars(union(practised, sat)))


def _wrong(session: Session, user_id: int) -> set[int]:
    practised = select(PracticeAnswer.question_id).where(
        PracticeAnswer.user_id == user_id, PracticeAnswer.is_correct.is_(False)
    )
    sat = (
        select(AttemptItem.question_id)
        .join(Attempt, AttemptItem.attempt_id == Attempt.id)
        .where(
            Attempt.user_id == user_id,
            AttemptItem.is_correct.is_(False),
            AttemptItem.question_id.is_not(None),
        )
    )
    return set(session.scalars(union(practised, sat)))


def custom_paper(
    session: Session, user_id: int, request: CustomExam, rng: random.Random | None = None
) -> Paper:
    """Draw a learner's custom exam (a read: starting it is `service.sit`)."""
    return paper(session, custom_spec(session, user_id, request), rng)
