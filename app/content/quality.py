"""Checks over the content in the database that a bank must pass before learners trust it.

Every question needs an explanation, a source (a reference with an https address and the
product version it holds for) and a note section an author linked it to (suggested links
are guesses, so they do not count). Stems must not repeat, nor nearly repeat (see
`app.content.stems`). A choice "All/None of the above" gives the game away.

Two habits of question writers show only across a set, so they are judged per question set
over its single-answer questions, once there are at least `MIN_SAMPLE` of them: the right
choice being the strictly longest, and the right choice sitting in one position (counted
over four-choice questions). With four choices of even length either happens a quarter of
the time by chance; more than `SHARE_LIMIT` (40%) of 20 questions happens by chance in about
one set in 25 (binomial; for any one of the four places, one in 6 if places were drawn at
random, which authors spreading them on purpose do not do), so past it the set is most
likely written with a habit.

Every leaf topic that holds questions needs at least `TOPIC_MIN` of them, enough for a
practice exam to draw from, and a note to study from.
"""

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.orm import Session

from app.content.markdown import excerpt
from app.content.models import (
    Choice,
    Note,
    Question,
    QuestionNoteLink,
    QuestionReference,
    QuestionSet,
    Topic,
)
from app.content.stems import similar_pairs, words

MIN_SAMPLE = 20
SHARE_LIMIT = 0.40
TOPIC_MIN = 20
_GIVEAWAY = re.compile(r"^\W*(all|none)\s+of\s+(the\s+)?(above|these|those)\b", re.IGNORECASE)


@dataclass(frozen=True)
class QuestionRef:
    id: int
    ref: str  # "set-slug/key"
    stem: str  # the start of the stem, as plain text


@dataclass(frozen=True)
class Finding:
    kind: str
    subject: str  # the question, set or topic at fault
    message: str
    questions: tuple[QuestionRef, ...] = ()


@dataclass(frozen=True)
class SetStats:
    slug: str
    questions: int
    single: int  # single-answer questions
    four_choice: int  # single-answer questions with four choices
    positions: tuple[int, ...]  # of the right choice in those, at 1, 2, 3 and 4
    longest_right: int  # single-answer questions whose right choice is the strictly longest


@dataclass(frozen=True)
class TopicStats:
    slug: str
    title: str
    depth: int
    questions: int  # filed under the topic itself
    notes: int
    leaf: bool


@dataclass(frozen=True)
class ContentReport:
    questions: int
    sets: tuple[SetStats, ...]
    topics: tuple[TopicStats, ...]
    findings: tuple[Finding, ...]


@dataclass
class _Question:
    id: int
    set_slug: str
    key: str
    topic_id: int | None
    stem_md: str
    explanation_md: str
    kind: str
    choices: list[tuple[str, bool]] = field(default_factory=list)
    references: list[tuple[str, str | None]] = field(default_factory=list)  # (url, version)
    linked: bool = False  # to a note section, by an author

    @property
    def ref(self) -> QuestionRef:
        return QuestionRef(self.id, f"{self.set_slug}/{self.key}", excerpt(self.stem_md, 80))


def check_content(session: Session, set_prefixes: Sequence[str] = ()) -> ContentReport:
    """Report distributions and findings over the questions of the sets whose slugs start with
    one of the prefixes (all sets when none is given)."""
    prefixes = [QuestionSet.slug.startswith(p, autoescape=True) for p in set_prefixes]
    questions = _questions(session, [or_(*prefixes)] if prefixes else [])
    sets = _set_stats(questions)
    topics = _topic_stats(session, questions)
    findings = [
        *(finding for q in questions for finding in _question_findings(q)),
        *_duplicates(questions),
        *(finding for s in sets for finding in _set_findings(s, questions)),
        *(finding for t in topics for finding in _topic_findings(t)),
    ]
    return ContentReport(len(questions), tuple(sets), tuple(topics), tuple(findings))


def _questions(session: Session, scope: list[ColumnElement[bool]]) -> list[_Question]:
    """Every question in scope with its choices, references and whether an author linked it."""
    in_scope = select(Question.id).join(QuestionSet).where(*scope)
    rows = session.execute(
        select(
            Question.id,
            QuestionSet.slug,
            Question.key,
            Question.topic_id,
            Question.stem_md,
            Question.explanation_md,
            Question.kind,
        )
        .join(QuestionSet)
        .where(*scope)
        .order_by(QuestionSet.slug, Question.position)
    ).all()
    found = {row[0]: _Question(*row) for row in rows}
    for qid, text, correct in session.execute(
        select(Choice.question_id, Choice.text_md, Choice.is_correct)
        .where(Choice.question_id.in_(in_scope))
        .order_by(Choice.question_id, Choice.position)
    ):
        found[qid].choices.append((text, correct))
    for qid, url, version in session.execute(
        select(QuestionReference.question_id, QuestionReference.url, QuestionReference.version)
        .where(QuestionReference.question_id.in_(in_scope))
        .order_by(QuestionReference.question_id, QuestionReference.position)
    ):
        found[qid].references.append((url, version))
    for qid in session.scalars(
        select(QuestionNoteLink.question_id).where(
            QuestionNoteLink.origin == "explicit", QuestionNoteLink.question_id.in_(in_scope)
        )
    ):
        found[qid].linked = True
    return list(found.values())


def _question_findings(question: _Question) -> list[Finding]:
    """What one question lacks: an explanation, a sound source, a note; and giveaway choices."""
    found = []

    def add(kind: str, message: str) -> None:
        found.append(Finding(kind, question.ref.ref, message, (question.ref,)))

    if not question.explanation_md.strip():
        add("no-explanation", "has no explanation")
    if not question.references:
        add("no-reference", "cites no source")
    for number, (url, version) in enumerate(question.references, start=1):
        if not url.lower().startswith("https://"):
            add("weak-reference", f"reference {number} is not an https:// address: {url}")
        if not (version or "").strip():
            add("weak-reference", f"reference {number} does not say which version it holds for")
    if not question.linked:
        add("no-note-link", "is linked to no note section by an author")
    for text, _ in question.choices:
        if _GIVEAWAY.match(text):
            add("giveaway-choice", f"offers {text.strip()!r} as a choice")
    return found


def _duplicates(questions: list[_Question]) -> list[Finding]:
    """Stems with the same words in the same order, then stems sharing most of their words."""
    texts = [words(q.stem_md) for q in questions]
    same: dict[tuple[str, ...], list[_Question]] = {}
    for question, text in zip(questions, texts, strict=True):
        same.setdefault(text, []).append(question)
    found = [
        Finding(
            "duplicate-stem",
            group[0].ref.ref,
            f"{len(group)} questions ask the same stem",
            tuple(q.ref for q in group),
        )
        for group in same.values()
        if len(group) > 1
    ]
    sets = [frozenset(text) for text in texts]
    for i, j, score in similar_pairs(sets):
        if texts[i] != texts[j]:
            a, b = questions[i], questions[j]
            found.append(
                Finding(
                    "near-duplicate-stem",
                    a.ref.ref,
                    f"shares {float(score):.0%} of its stem's words with {b.ref.ref}",
                    (a.ref, b.ref),
                )
            )
    return found


def _single(question: _Question) -> bool:
    return question.kind == "single" and sum(ok for _, ok in question.choices) == 1


def _right_is_longest(question: _Question) -> bool:
    """Tell whether the right choice is longer than every other (spacing and marks aside)."""
    lengths = [(len(" ".join(text.replace("`", "").split())), ok) for text, ok in question.choices]
    right = next(length for length, ok in lengths if ok)
    return all(length < right for length, ok in lengths if not ok)


def _set_stats(questions: list[_Question]) -> list[SetStats]:
    by_set: dict[str, list[_Question]] = {}
    for question in questions:
        by_set.setdefault(question.set_slug, []).append(question)
    stats = []
    for slug, members in by_set.items():
        single = [q for q in members if _single(q)]
        four = [q for q in single if len(q.choices) == 4]
        at = Counter(next(n for n, (_, ok) in enumerate(q.choices, 1) if ok) for q in four)
        stats.append(
            SetStats(
                slug=slug,
                questions=len(members),
                single=len(single),
                four_choice=len(four),
                positions=tuple(at[n] for n in range(1, 5)),
                longest_right=sum(_right_is_longest(q) for q in single if len(q.choices) > 1),
            )
        )
    return stats


def _set_findings(stats: SetStats, questions: list[_Question]) -> list[Finding]:
    """Giveaways across a set: the right choice too often the longest, or in one place."""
    found = []
    if stats.single >= MIN_SAMPLE and stats.longest_right > SHARE_LIMIT * stats.single:
        longest = tuple(
            q.ref
            for q in questions
            if q.set_slug == stats.slug and _single(q) and _right_is_longest(q)
        )
        found.append(
            Finding(
                "longest-is-right",
                stats.slug,
                f"the right choice is the longest in {stats.longest_right} of {stats.single} "
                f"single-answer questions ({stats.longest_right / stats.single:.0%}; at most "
                f"{SHARE_LIMIT:.0%})",
                longest,
            )
        )
    if stats.four_choice >= MIN_SAMPLE:
        for position, count in enumerate(stats.positions, start=1):
            if count > SHARE_LIMIT * stats.four_choice:
                found.append(
                    Finding(
                        "position-bias",
                        stats.slug,
                        f"the right choice is number {position} in {count} of "
                        f"{stats.four_choice} four-choice questions ({count / stats.four_choice:.0%}"
                        f"; at most {SHARE_LIMIT:.0%})",
                    )
                )
    return found


def _topic_stats(session: Session, questions: list[_Question]) -> list[TopicStats]:
    """Every topic in tree order with the questions in scope and the notes filed under it."""
    topics = session.execute(
        select(Topic.id, Topic.slug, Topic.title, Topic.parent_id).order_by(
            Topic.position, Topic.id
        )
    ).all()
    notes = Counter(session.scalars(select(Note.topic_id)))
    counts = Counter(q.topic_id for q in questions)
    children: dict[int | None, list[tuple[int, str, str]]] = {}
    for topic_id, slug, title, parent_id in topics:
        children.setdefault(parent_id, []).append((topic_id, slug, title))
    stats: list[TopicStats] = []
    stack = [(topic, 0) for topic in reversed(children.get(None, []))]
    while stack:
        (topic_id, slug, title), depth = stack.pop()
        below = children.get(topic_id, [])
        stats.append(TopicStats(slug, title, depth, counts[topic_id], notes[topic_id], not below))
        stack.extend((child, depth + 1) for child in reversed(below))
    return stats


def _topic_findings(topic: TopicStats) -> list[Finding]:
    """A leaf topic holding questions needs enough of them and a note to learn from."""
    if not topic.leaf or not topic.questions:
        return []
    found = []
    if topic.questions < TOPIC_MIN:
        found.append(
            Finding(
                "thin-topic",
                topic.slug,
                f"holds {topic.questions} question(s); a leaf topic needs at least {TOPIC_MIN}",
            )
        )
    if not topic.notes:
        found.append(Finding("topic-without-note", topic.slug, "holds questions but no note"))
    return found
