"""A planted data set for the item statistics: 60 learners take one exam of eight questions,
each question answered to a pattern that raises (or does not raise) one flag, and some
practice answers beside. Every answer is given through the exam and practice services."""

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from app.accounts.service import create_user
from app.content.bundle import ChoiceData, QuestionData, TopicData
from app.content.models import Choice, Question, QuestionSet
from app.db import Database
from app.exams import answers, service
from app.progress.service import check_answer
from tests.factories import PASSWORD, a_set, load

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
GRACE = timedelta(seconds=30)
LEARNERS = 60
KEYS = ("fine", "steady", "tough", "easy", "hard", "miskeyed", "dead", "few")
# questions right from a learner's rank on: they order the learners by ability
THRESHOLD = {"fine": 20, "steady": 30, "tough": 42}


def _question(key: str) -> QuestionData:
    choices = [ChoiceData(f"{key} choice {letter}", letter == "A") for letter in "ABCD"]
    return QuestionData(key, f"Planted question {key}?", choices, f"Why {key}.", topic="planted")


def choose(key: str, i: int) -> str | None:
    """The letter learner i (0 weakest, 59 strongest) picks for a question; None: no answer."""
    wrong = "BCD"[i % 3]
    if key in THRESHOLD:  # the stronger ones right; every choice picked
        return "A" if i >= THRESHOLD[key] else wrong
    if key == "easy":  # everyone right
        return "A"
    if key == "hard":  # 11 of 60 right, the strongest
        return "A" if i >= 49 else wrong
    if key == "miskeyed":  # the weaker half picks the key, the stronger half mostly B
        return "A" if i < 30 else {0: "C", 1: "D"}.get(i % 5, "B")
    if key == "dead":  # 45 right, the rest B or C: D never
        return "A" if i >= 15 else "BC"[i % 2]
    return "B" if i < 3 else None  # few: three wrong answers


@dataclass
class Planted:
    question_ids: dict[str, int]
    choice_ids: dict[str, dict[str, int]]  # key -> letter -> id
    exam: dict[str, list[str | None]]  # key -> the letter each learner picked, in order
    practice: dict[str, list[tuple[str, float | None]]] = field(default_factory=dict)


# Practice: the "hard" question is easy in practice; "fine" has timed and untimed answers.
PRACTICE = {
    "hard": [("A", 10.0 + n) for n in range(25)],
    "fine": [("A", 4.0), ("B", 8.0), ("A", None), ("C", 30.0), ("A", 6.0), ("D", None)],
}


def plant(db: Database, learners: int = LEARNERS) -> Planted:
    """Load the set, then let each learner take the exam and some practise, through services."""
    bundle = a_set(*(_question(k) for k in KEYS), slug="planted")
    bundle.topics.append(TopicData("planted", "Planted topic"))
    load(db, bundle)
    with db.session_scope() as session:
        rows = session.execute(
            select(Question.key, Question.id, Choice.position, Choice.id)
            .join(Choice, Choice.question_id == Question.id)
            .join(QuestionSet, QuestionSet.id == Question.set_id)
            .where(QuestionSet.slug == "planted")
        ).all()
    qids = {key: qid for key, qid, _, _ in rows}
    positions = sorted({p for *_, p, _ in rows})
    letters = dict(zip(positions, "ABCD", strict=True))
    cids: dict[str, dict[str, int]] = {}
    for key, _, position, cid in rows:
        cids.setdefault(key, {})[letters[position]] = cid
    picked = {key: [choose(key, i) for i in range(learners)] for key in KEYS}
    spec = service.ExamSpec(
        title="Planted",
        question_ids=tuple(qids[k] for k in KEYS),
        count=len(KEYS),
        time_limit_s=None,
        pass_mark=50,
        mode="exam",
        shuffle_questions=False,
        shuffle_choices=False,
    )
    with db.session_scope(write=True) as session:
        for i in range(learners):
            user = create_user(session, f"learner{i:03d}", PASSWORD)
            session.flush()
            now = START + timedelta(minutes=i)
            drawn = service.paper(session, spec, random.Random(i))
            attempt = service.sit(session, user.id, drawn, now, GRACE)
            for position, key in enumerate(KEYS, start=1):
                letter = picked[key][i]
                if letter is not None:
                    ids = [cids[key][letter]]
                    answers.save_answer(
                        session, attempt.attempt_id, user.id, position, ids, now, GRACE
                    )
            service.submit(session, attempt.attempt_id, user.id, now, GRACE)
        user = create_user(session, "practiser", PASSWORD)
        session.flush()
        for key, given in PRACTICE.items():
            for n, (letter, seconds) in enumerate(given):
                at = START + timedelta(days=1, minutes=n)
                check_answer(session, user.id, qids[key], [cids[key][letter]], at, seconds)
    return Planted(qids, cids, picked, dict(PRACTICE))
