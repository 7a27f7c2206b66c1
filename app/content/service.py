"""Load content bundles into the database (idempotently) and export them again."""

import hashlib
import re
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from functools import partial

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content.bundle import Bundle, Report
from app.content.errors import ContentConflict, InvalidAnswer, NotFound
from app.content.linking import Transactions, suggest_links
from app.content.loading import BATCH, Loader
from app.content.models import Choice, ContentVersion, LinkDecision, Question, QuestionNoteLink
from app.content.read_models import ChoiceView, Grade
from app.db import utcnow

DECISIONS = {"confirm": "confirmed", "reject": "rejected"}

# progress(phase, done, total): phase "content" counts questions written, "links" scored
LoadProgress = Callable[[str, int, int], None]


def load_bundle(
    session: Session,
    bundle: Bundle,
    report: Report,
    link_threshold: float,
    author_id: int | None = None,
) -> None:
    """Create or update everything in the bundle in one transaction; the caller commits.

    Each question it changes keeps a revision, saved by author_id (None: the command line).
    """
    bump_version(session)  # first: on PostgreSQL its row lock queues loads before they read
    load_in_steps(
        lambda write: nullcontext(session), bundle, report, link_threshold, author_id=author_id
    )


def load_in_steps(
    transaction: Transactions,
    bundle: Bundle,
    report: Report,
    link_threshold: float,
    progress: LoadProgress | None = None,
    batch: int = BATCH,
    author_id: int | None = None,
) -> None:
    """Check the bundle, then write it a step at a time, each step in a transaction of its own.

    A refusal comes from the checks, before anything is written. Loads must not run at the
    same time (the caller holds the import lock): the checks read what the steps then change.
    """
    loader = Loader(bundle, report, author_id)
    with transaction(False) as session:
        loader.check(session)
    for number, (done, step) in enumerate(loader.steps(batch)):
        with transaction(True) as session:
            if number == 0:
                bump_version(session)
            step(session)
        if progress is not None:
            progress("content", done, loader.total)
    changed = None if loader.changes.sections else loader.changes.questions
    on_links = None if progress is None else partial(progress, "links")
    report.count("suggested_links", suggest_links(transaction, changed, link_threshold, on_links))
    with transaction(True) as session:
        bump_version(session)  # workers drop what they cached while the load ran


def bump_version(session: Session) -> int:
    """Count a content change, so every worker drops what it cached; return the new version.

    On PostgreSQL the row lock also queues concurrent content writes until this one commits.
    """
    session.info["content_changed"] = True  # the request's own worker clears at once
    bumped = session.execute(
        update(ContentVersion)
        .where(ContentVersion.id == 1)
        .values(version=ContentVersion.version + 1)
        .returning(ContentVersion.version)
    ).scalar_one_or_none()
    if bumped is None:
        session.add(ContentVersion(id=1, version=1))
        session.flush()
        return 1
    return bumped


def current_version(session: Session) -> int:
    """Return the content version (0 before any content was loaded)."""
    return session.scalar(select(ContentVersion.version).where(ContentVersion.id == 1)) or 0


def loaded_seed(session: Session) -> str | None:
    """Return the digest of the seed content loaded last, or None when none was."""
    return session.scalar(select(ContentVersion.seed_digest).where(ContentVersion.id == 1))


def remember_seed(session: Session, digest: str) -> None:
    """Record the digest of the seed content just loaded."""
    if session.get(ContentVersion, 1) is None:
        session.add(ContentVersion(id=1, version=0))
        session.flush()
    session.execute(update(ContentVersion).where(ContentVersion.id == 1).values(seed_digest=digest))


# Built once: every answer runs it, and a prebuilt statement skips construction and keying.
_ANSWER_KEY = (
    select(Question.revision, Question.kind, Choice.id, Choice.is_correct, Question.retired_at)
    .join(Choice, Choice.question_id == Question.id)
    .where(Question.id == bindparam("question_id"))
    .order_by(Choice.position)
)


def grade(session: Session, question_id: int, choice_ids: Sequence[int]) -> Grade:
    """Grade chosen choices against the answer key as the database holds it now."""
    rows = session.connection().execute(_ANSWER_KEY, {"question_id": question_id}).all()
    if not rows:
        raise NotFound(f"There is no question number {question_id}.")
    revision, kind = rows[0].revision, rows[0].kind
    if rows[0].retired_at is not None:
        raise InvalidAnswer("This question was retired: it is no longer practised.")
    selected = tuple(dict.fromkeys(choice_ids))
    if not selected:
        raise InvalidAnswer("Choose an answer first.")
    known = {row.id for row in rows}
    unknown = [choice_id for choice_id in selected if choice_id not in known]
    if unknown:
        raise InvalidAnswer(f"Choice {unknown[0]} is not one of this question's choices.")
    if kind == "single" and len(selected) > 1:
        raise InvalidAnswer("This question takes exactly one answer.")
    correct = tuple(row.id for row in rows if row.is_correct)
    return Grade(question_id, revision, selected, correct, set(selected) == set(correct))


_FIXED_CHOICE = re.compile(r"^\W*(all|none|both|neither)\s+of\s+(the\s+)?(above|these)\b", re.I)


def is_fixed_choice(text: str) -> bool:
    """Tell whether a choice only makes sense in its place ("All of the above" and the like)."""
    return bool(_FIXED_CHOICE.match(text))


def shuffle_choices(choices: Sequence[ChoiceView], seed: str) -> tuple[ChoiceView, ...]:
    """Shuffle choices the same way every time for one seed; fixed choices keep their place.

    The movable choices are sorted by a hash of the seed with each one's id: an order of its
    own for each seed, at a fraction of the cost of seeding a random generator (on every
    page a question is shown in).
    """
    movable = sorted((c for c in choices if not c.fixed), key=lambda c: _rank(seed, c.id))
    rest = iter(movable)
    return tuple(choice if choice.fixed else next(rest) for choice in choices)


def _rank(seed: str, choice_id: int) -> bytes:
    return hashlib.blake2b(f"{seed}:{choice_id}".encode(), digest_size=8).digest()


def decide_link(
    session: Session, actor: Viewer, question_id: int, section_id: int, decision: str
) -> str:
    """Confirm or reject a suggested link, for good: re-imports and new scores keep the decision.

    A confirmed link becomes a link like the catalog's; a rejected one goes and is never
    suggested again. Return the decision as stored ("confirmed" or "rejected").
    """
    if not actor.may("author"):
        raise PermissionDenied("Only authors can confirm or reject suggested links.")
    if decision not in DECISIONS:
        raise InvalidAnswer("Choose to confirm or to reject the link.")
    link = session.scalars(
        select(QuestionNoteLink).where(
            QuestionNoteLink.question_id == question_id, QuestionNoteLink.section_id == section_id
        )
    ).one_or_none()
    stored = session.scalars(
        select(LinkDecision).where(
            LinkDecision.question_id == question_id, LinkDecision.section_id == section_id
        )
    ).one_or_none()
    if link is None and stored is None:
        raise NotFound("There is no such link between that question and note section.")
    if link is not None and link.origin == "explicit" and stored is None:
        raise ContentConflict("This link comes from the catalog: change it there.")
    outcome = DECISIONS[decision]
    if stored is None:
        stored = LinkDecision(question_id=question_id, section_id=section_id)
        session.add(stored)
    stored.decision, stored.decided_by_id, stored.decided_at = outcome, actor.id, utcnow()
    if outcome == "confirmed" and link is None:
        link = QuestionNoteLink(question_id=question_id, section_id=section_id, score=1.0)
        session.add(link)
    if outcome == "confirmed":
        assert link is not None
        link.origin = "explicit"
    elif link is not None:
        session.delete(link)
    session.flush()
    bump_version(session)
    return outcome
