"""Show what importing documents would do, without keeping it.

The documents are imported for real, one after another as `studyhall import` would, inside a
SAVEPOINT that is then rolled back: the figures are the real import's, not an estimate. Each
question is compared with what the database held before: new, edited (its revision went up)
or unchanged.
"""

import base64
import binascii
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.service import Viewer
from app.content.bundle import Bundle, Report, TopicData
from app.content.errors import InvalidContent
from app.content.models import Question, QuestionSet, Topic
from app.content.service import load_bundle
from app.importers.errors import ImportRefused
from app.importers.lock import import_lock_until_commit
from app.importers.service import parse_document


@dataclass
class QuestionOutcome:
    line: int
    set: str
    key: str
    outcome: str  # "created", "updated" or "unchanged"
    stem: str = ""  # its first words, to recognise it by


@dataclass
class TopicLine:
    slug: str
    title: str
    depth: int
    new: bool


@dataclass
class Preview:
    """What one document would do: its report, or the refusal that would save nothing."""

    file: str
    report: Report | None = None
    refused: ImportRefused | None = None
    questions: list[QuestionOutcome] = field(default_factory=list)
    topics: list[TopicLine] = field(default_factory=list)

    def figures(self) -> dict[str, int]:
        """Questions created, updated, unchanged, skipped and refused (zeros included)."""
        counts = self.report.counts if self.report is not None else {}
        outcomes = [q.outcome for q in self.questions]
        return {
            **{name: outcomes.count(name) for name in ("created", "updated", "unchanged")},
            **{name: counts.get(name, 0) for name in ("skipped", "refused")},
        }


def preview_documents(
    session: Session,
    documents: Sequence[tuple[str, bytes]],
    link_threshold: float,
    format: str | None = None,
    skip_bad: bool = False,
) -> list[Preview]:
    """Import (file, bytes) pairs in turn as a real import would, describe what each did,
    and roll all of it back: the database is left as it was."""
    import_lock_until_commit(session)
    everything = session.begin_nested()
    try:
        return [
            _preview(session, data, file, link_threshold, format, skip_bad)
            for file, data in documents
        ]
    finally:
        everything.rollback()
        session.info.pop("content_changed", None)  # nothing changed: caches stay


def preview_upload(
    session: Session,
    actor: Viewer,
    data: bytes,
    file: str,
    limit: int,
    link_threshold: float,
    format: str | None = None,
    skip_bad: bool = False,
) -> Preview:
    """Show what importing a document sent by a person would do; only authors may."""
    if not actor.may("author"):
        raise PermissionDenied("Only authors can import content.")
    if len(data) > limit:
        refused = ImportRefused(file, 1, f"the file is larger than the limit of {limit:,} bytes")
        return Preview(file, refused=refused)
    return preview_documents(session, [(file, data)], link_threshold, format, skip_bad)[0]


def _preview(
    session: Session,
    data: bytes,
    file: str,
    link_threshold: float,
    format: str | None,
    skip_bad: bool,
) -> Preview:
    try:
        bundle, report = parse_document(data, file, format, skip_bad=skip_bad)
    except ImportRefused as exc:
        return Preview(file, refused=exc)
    before = _revisions(session, bundle)
    known = set(session.scalars(select(Topic.slug).where(Topic.slug.in_(_slugs(bundle)))))
    step = session.begin_nested()
    try:
        load_bundle(session, bundle, report, link_threshold)
    except InvalidContent as exc:
        step.rollback()
        return Preview(file, refused=ImportRefused(file, exc.line, exc.message))
    step.commit()  # kept until the end: the next document sees it, as in a real import
    after = _revisions(session, bundle)
    outcomes = [
        QuestionOutcome(
            question.line,
            qset.slug,
            question.key,
            _outcome(before, after, ref),
            _shortened(question.stem),
        )
        for qset in bundle.question_sets
        for question in qset.questions
        for ref in [(qset.slug, question.key)]
    ]
    return Preview(file, report, None, outcomes, _tree(bundle.topics, known))


def _outcome(before: dict, after: dict, ref: tuple[str, str]) -> str:
    if ref not in before:
        return "created"
    return "updated" if after[ref] != before[ref] else "unchanged"


def _shortened(text: str, size: int = 90) -> str:
    words = " ".join(text.split())
    return words if len(words) <= size else words[: size - 1].rstrip() + "…"


def _slugs(bundle: Bundle) -> list[str]:
    return [topic.slug for topic in bundle.topics]


def _revisions(session: Session, bundle: Bundle) -> dict[tuple[str, str], int]:
    """The revision of each of the bundle's questions the database holds now."""
    wanted = {(qset.slug, q.key) for qset in bundle.question_sets for q in qset.questions}
    if not wanted:
        return {}
    rows = session.execute(
        select(QuestionSet.slug, Question.key, Question.revision)
        .join(Question, Question.set_id == QuestionSet.id)
        .where(QuestionSet.slug.in_({slug for slug, _ in wanted}))
    ).all()
    return {(slug, key): revision for slug, key, revision in rows if (slug, key) in wanted}


def _tree(topics: list[TopicData], known: set[str]) -> list[TopicLine]:
    """The document's topics as a tree, parents first; each says whether it is new."""
    children: dict[str | None, list[TopicData]] = {}
    slugs = {topic.slug for topic in topics}
    for topic in topics:
        children.setdefault(topic.parent if topic.parent in slugs else None, []).append(topic)
    lines: list[TopicLine] = []

    def walk(parent: str | None, depth: int) -> None:
        for topic in children.get(parent, []):
            lines.append(TopicLine(topic.slug, topic.title, depth, topic.slug not in known))
            if depth < 50:  # a cycle is refused by the load; never loop on one
                walk(topic.slug, depth + 1)

    walk(None, 0)
    return lines


def carried(data: bytes) -> tuple[str, str]:
    """The document as a form carries it from the preview to the import: base64 and digest."""
    return base64.b64encode(data).decode("ascii"), hashlib.sha256(data).hexdigest()


def uncarried(encoded: str, digest: str, file: str, limit: int) -> bytes:
    """The document a preview form carried back; refused when damaged or too large."""
    if len(encoded) > carried_size(limit):
        raise ImportRefused(file, 1, f"the file is larger than the limit of {limit:,} bytes")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        data = b""
    if not data or hashlib.sha256(data).hexdigest() != digest:
        raise ImportRefused(
            file, 1, "the previewed document did not come back whole; upload it again"
        )
    return data


def carried_size(limit: int) -> int:
    """The length of the base64 text of a document of limit bytes."""
    return (limit + 2) // 3 * 4
