"""Read queries behind the exam pages and API; each returns plain read models.

An open exam-mode attempt is shown without its answer key or explanations: only `result`
(for a closed attempt) and practice-mode feedback read them from the snapshot.
"""

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, case, func, select
from sqlalchemy.orm import Session

from app.content.blueprints import SHOWN_ORDER, ExamBlueprint
from app.content.markdown import render
from app.content.models import Topic
from app.content.queries import links_of_questions, topic_outline
from app.content.read_models import ChoiceView, NoteLink, PageInfo, ReferenceView, TopicRef
from app.exams.errors import NotFound, NotSubmitted
from app.exams.models import ITEM_TABLE, Attempt, AttemptItem
from app.exams.read_models import (
    AttemptHeader,
    BlueprintSummary,
    ExamsView,
    Feedback,
    ItemView,
    NavItem,
    OpenAttempt,
    ResultView,
    ReviewItem,
    SummaryView,
    TakeView,
    TopicScore,
)
from app.exams.regrade import regrade_notes
from app.exams.sampling import shares

HISTORY_LIMIT = 50
EXAMS_PAGE = 20  # exam cards a page of /exams shows
TOPIC_CHOICES = 200  # topics the custom exam form offers; deeper ones come with their parent


def blueprints(
    session: Session, user_id: int | None, limit: int | None = None, offset: int = 0
) -> tuple[BlueprintSummary, ...]:
    """List the exams (a slice of them), each with the learner's open attempt at it (if any)."""
    open_ids: dict[int, int] = {}
    if user_id is not None:
        rows = session.execute(
            select(Attempt.blueprint_id, Attempt.id).where(
                Attempt.user_id == user_id, Attempt.status == "open"
            )
        ).all()
        open_ids = {bp: attempt for bp, attempt in rows if bp is not None}
    found = session.scalars(
        select(ExamBlueprint).order_by(*SHOWN_ORDER).limit(limit).offset(offset)
    ).all()
    titles = dict(
        session.execute(
            select(Topic.slug, Topic.title).where(
                Topic.slug.in_({slug for b in found for slug in b.topics})
            )
        ).all()
    )
    return tuple(
        BlueprintSummary(
            slug=b.slug,
            title=b.title,
            description_html=render(b.description_md) if b.description_md else "",
            question_count=b.question_count,
            time_limit_s=b.time_limit_s,
            pass_mark=b.pass_mark,
            mode=b.mode,
            open_attempt_id=open_ids.get(b.id),
            topics=tuple(
                (titles.get(slug, slug), n)
                for slug, n in zip(
                    b.topics, shares(list(b.topics.values()), b.question_count), strict=True
                )
            ),
        )
        for b in found
    )


_HEADER_FIELDS = (
    "id",
    "user_id",
    "title",
    "mode",
    "status",
    "question_count",
    "pass_mark",
    "started_at",
    "deadline_at",
    "submitted_at",
    "percent",
    "passed",
)


# Every exam page and save loads its attempt first: built once, on the table's columns.
_HEADER = select(
    *(getattr(Attempt.__table__.c, field) for field in _HEADER_FIELDS),
    ExamBlueprint.slug,
).outerjoin(ExamBlueprint, Attempt.blueprint_id == ExamBlueprint.id)
_OWN_HEADER = _HEADER.where(
    Attempt.id == bindparam("attempt_id"), Attempt.user_id == bindparam("user_id")
)


def _header(row: Any) -> AttemptHeader:
    *fields, slug = row
    return AttemptHeader(**dict(zip(_HEADER_FIELDS, fields, strict=True)), blueprint_slug=slug)


def header(session: Session, attempt_id: int, user_id: int) -> AttemptHeader:
    """Load a learner's attempt; anyone else's is as missing as one that does not exist."""
    params = {"attempt_id": attempt_id, "user_id": user_id}
    row = session.connection().execute(_OWN_HEADER, params).one_or_none()
    if row is None:
        raise NotFound("There is nothing here with that number.")
    return _header(row)


def history(session: Session, user_id: int) -> tuple[AttemptHeader, ...]:
    """List a learner's attempts, newest first."""
    rows = session.execute(
        _HEADER.where(Attempt.user_id == user_id)
        .order_by(Attempt.started_at.desc(), Attempt.id.desc())
        .limit(HISTORY_LIMIT)
    )
    return tuple(_header(row) for row in rows)


def list_page(session: Session, user_id: int | None, page: int = 1) -> ExamsView:
    """The exams page: a page of the exams; on the first, the learner's past attempts and
    the topics to build an exam from (as many as the form holds)."""
    total = session.scalar(select(func.count(ExamBlueprint.id))) or 0
    pages = max(1, -(-total // EXAMS_PAGE))
    if page > pages:
        raise NotFound(f"There is no page {page}: the list has {pages}.")
    found = blueprints(session, user_id, EXAMS_PAGE, (page - 1) * EXAMS_PAGE)
    info = PageInfo(page, pages, total, EXAMS_PAGE)
    if page > 1:
        return ExamsView(found, info, (), (), 0)
    past = history(session, user_id) if user_id is not None else ()
    topics, topic_total = topic_outline(session, TOPIC_CHOICES)
    return ExamsView(found, info, past, topics, topic_total)


# The statements behind every question page and save are built once, on the table rather
# than the ORM class: no expression building, cache-key computing or ORM loading per request.
_ITEM = ITEM_TABLE
_MARKS = (
    select(_ITEM.c.position, _ITEM.c.selected_ids, _ITEM.c.flagged)
    .where(_ITEM.c.attempt_id == bindparam("attempt_id"))
    .order_by(_ITEM.c.position)
)
# Every question's marks, and the snapshot of the one at `position` alone: the others'
# snapshots stay in the database undecoded.
_TAKE = (
    select(
        _ITEM.c.position,
        _ITEM.c.selected_ids,
        _ITEM.c.flagged,
        case((_ITEM.c.position == bindparam("position"), _ITEM.c.snapshot)),
    )
    .where(_ITEM.c.attempt_id == bindparam("attempt_id"))
    .order_by(_ITEM.c.position)
)


def marks(session: Session, attempt_id: int) -> tuple[NavItem, ...]:
    """Each question's answered and flagged marks, without reading the snapshots."""
    rows = session.execute(_MARKS, {"attempt_id": attempt_id})
    return tuple(NavItem(position, bool(selected), flagged) for position, selected, flagged in rows)


def header_and_marks(
    session: Session, attempt_id: int, user_id: int
) -> tuple[AttemptHeader, tuple[NavItem, ...]]:
    """Load a learner's attempt and each of its questions' marks."""
    attempt = header(session, attempt_id, user_id)
    return attempt, marks(session, attempt.id)


def _topic(snapshot: dict[str, Any]) -> TopicRef | None:
    topic = snapshot.get("topic")
    return TopicRef(topic["slug"], topic["title"]) if topic else None


def _choices(snapshot: dict[str, Any]) -> tuple[ChoiceView, ...]:
    return tuple(ChoiceView(c["id"], n, c["html"]) for n, c in enumerate(snapshot["choices"], 1))


# A link copied before snapshots kept origins and scores, and found among the question's
# links no more: a suggestion of unknown score, which learners do not see.
_UNKNOWN = ("suggested", 0.0)
LinkKey = tuple[int, str, str]  # question id, note slug, section anchor


def _links(
    snapshot: dict[str, Any], found: dict[LinkKey, tuple[str, float]] | None = None
) -> tuple[NoteLink, ...]:
    """The note links copied with the question; those copied without their origin and score
    (attempts started before snapshots kept them) take them from `found`."""
    qid = snapshot.get("question_id", 0)
    return tuple(_link(qid, link, found or {}) for link in snapshot.get("links", []))


def _link(qid: int, link: dict[str, Any], found: dict[LinkKey, tuple[str, float]]) -> NoteLink:
    if "origin" in link:
        return NoteLink(**link)
    origin, score = found.get((qid, link["note_slug"], link["anchor"]), _UNKNOWN)
    return NoteLink(**link, origin=origin, score=score)


def _links_now(
    session: Session, snapshots: list[dict[str, Any]]
) -> dict[LinkKey, tuple[str, float]]:
    """The origin and score now of the links of questions copied without them; one query,
    and none when every snapshot has them."""
    ids = [
        s["question_id"]
        for s in snapshots
        if "question_id" in s and any("origin" not in link for link in s.get("links", []))
    ]
    if not ids:
        return {}
    return {
        (qid, link.note_slug, link.anchor): (link.origin, link.score)
        for qid, links in links_of_questions(session, ids).items()
        for link in links
    }


def _references(snapshot: dict[str, Any]) -> tuple[ReferenceView, ...]:
    """The references copied with the question (none in attempts started before they were)."""
    return tuple(ReferenceView(**reference) for reference in snapshot.get("references", []))


def take(session: Session, attempt: AttemptHeader, position: int, now: datetime) -> TakeView:
    """Gather one question of an open attempt with the navigator and the time left."""
    rows = session.execute(_TAKE, {"attempt_id": attempt.id, "position": position}).all()
    if not 1 <= position <= len(rows):
        raise NotFound(f"This exam has no question {position}.")
    _, selected_ids, flagged, snapshot = rows[position - 1]
    nav = tuple(NavItem(n, bool(selected), flag) for n, selected, flag, _ in rows)
    view = item_view(attempt, position, snapshot, selected_ids, flagged)
    return TakeView(attempt, view, nav, attempt.remaining_s(now))


def take_open(
    session: Session, attempt_id: int, user_id: int, position: int, now: datetime, grace: timedelta
) -> TakeView | None:
    """Gather one question of a learner's attempt in one read; None once it is closed or its
    time ran out (the caller then finalises it and shows the result)."""
    attempt = header(session, attempt_id, user_id)
    if not attempt.is_open or attempt.ran_out(now, grace):
        return None
    return take(session, attempt, position, now)


def item_view(
    attempt: AttemptHeader,
    position: int,
    snapshot: dict[str, Any],
    selected_ids: list[int],
    flagged: bool,
) -> ItemView:
    feedback = None
    if attempt.mode == "practice" and selected_ids:  # answered: its feedback is due
        correct = set(snapshot["correct_ids"]) == set(selected_ids)
        feedback = Feedback(
            correct,
            tuple(snapshot["correct_ids"]),
            snapshot["explanation_html"],
            _links(snapshot),
            _references(snapshot),
        )
    return ItemView(
        position=position,
        kind=snapshot["kind"],
        stem_html=snapshot["stem_html"],
        topic=_topic(snapshot),
        choices=_choices(snapshot),
        selected_ids=tuple(selected_ids),
        flagged=flagged,
        feedback=feedback,
    )


def summary(session: Session, attempt: AttemptHeader, now: datetime) -> SummaryView:
    """Gather what is answered and flagged, for the page before submitting."""
    return SummaryView(attempt, marks(session, attempt.id), attempt.remaining_s(now))


def result(session: Session, attempt: AttemptHeader) -> ResultView:
    """Gather a closed attempt's score, per-topic breakdown and every question's review."""
    items = session.scalars(
        select(AttemptItem)
        .where(AttemptItem.attempt_id == attempt.id)
        .order_by(AttemptItem.position)
    )
    rows = list(items)
    found = _links_now(session, [item.snapshot for item in rows])
    reviews = tuple(_review(item, found) for item in rows)
    topics: dict[str | None, list[Any]] = {}
    for review in reviews:
        key = review.topic.slug if review.topic else None
        entry = topics.setdefault(key, [review.topic.title if review.topic else "No topic", 0.0, 0])
        entry[1] += review.points
        entry[2] += 1
    scores = sorted(
        (
            TopicScore(slug, title, got, total, round(100 * got / total, 1))
            for slug, (title, got, total) in topics.items()
        ),
        key=lambda t: (t.percent, t.title),
    )
    finished = attempt.submitted_at or attempt.started_at
    return ResultView(
        attempt=attempt,
        score=sum(r.points for r in reviews),
        percent=attempt.percent or 0.0,
        passed=bool(attempt.passed),
        timed_out=attempt.status == "expired",
        time_used_s=max(0, int((finished - attempt.started_at).total_seconds())),
        topics=tuple(scores),
        items=reviews,
        regrades=regrade_notes(session, attempt.user_id, attempt_id=attempt.id),
    )


def submitted_result(session: Session, attempt_id: int, user_id: int) -> ResultView:
    """Load a learner's attempt and its result, or refuse while it is still open."""
    attempt = header(session, attempt_id, user_id)
    if attempt.is_open:
        raise NotSubmitted()
    return result(session, attempt)


def _review(item: AttemptItem, found: dict[LinkKey, tuple[str, float]]) -> ReviewItem:
    snapshot = item.snapshot
    return ReviewItem(
        position=item.position,
        kind=snapshot["kind"],
        stem_html=snapshot["stem_html"],
        topic=_topic(snapshot),
        choices=_choices(snapshot),
        selected_ids=tuple(item.selected_ids),
        correct_ids=tuple(snapshot["correct_ids"]),
        correct=bool(item.is_correct),
        points=item.points or 0.0,
        flagged=item.flagged,
        explanation_html=snapshot["explanation_html"],
        links=_links(snapshot, found),
        question_id=item.question_id,
        references=_references(snapshot),
    )


def resume_position(session: Session, attempt_id: int) -> int:
    """The first unanswered question of an attempt (the last one when all are answered)."""
    found = marks(session, attempt_id)
    return next((m.position for m in found if not m.answered), len(found) or 1)


def open_attempts(
    session: Session, user_id: int, now: datetime, grace: timedelta
) -> tuple[OpenAttempt, ...]:
    """List a learner's open attempts still in time, newest first, each with its questions
    answered and the first one not answered (the last when all are); one query."""
    unanswered = case((AttemptItem.answered_at.is_(None), AttemptItem.position))
    rows = session.execute(
        select(
            Attempt.id,
            Attempt.title,
            Attempt.question_count,
            Attempt.deadline_at,
            func.count(AttemptItem.answered_at),
            func.min(unanswered),
        )
        .join(AttemptItem, AttemptItem.attempt_id == Attempt.id)
        .where(Attempt.user_id == user_id, Attempt.status == "open")
        .group_by(Attempt.id)
        .order_by(Attempt.started_at.desc(), Attempt.id.desc())
    )
    in_time = (row for row in rows if row.deadline_at is None or now <= row.deadline_at + grace)
    return tuple(_open_attempt(row, now) for row in in_time)


def _open_attempt(row: Any, now: datetime) -> OpenAttempt:
    attempt_id, title, count, deadline, answered, first_unanswered = row
    remaining = None if deadline is None else max(0, int((deadline - now).total_seconds()))
    return OpenAttempt(attempt_id, title, answered, count, remaining, first_unanswered or count)


def count_open(session: Session) -> int:
    """Count everyone's exam attempts still open (the metrics' gauge; status is indexed)."""
    statement = select(func.count()).select_from(Attempt).where(Attempt.status == "open")
    return session.scalar(statement) or 0
