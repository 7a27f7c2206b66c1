"""Load content bundles into the database (idempotently) and export them again."""

import random
import re
from collections.abc import Sequence

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session, selectinload

from app.content.blueprints import load_blueprints
from app.content.bundle import (
    Bundle,
    NoteData,
    Placement,
    QuestionData,
    QuestionSetData,
    Report,
    TopicData,
)
from app.content.checks import check_bundle
from app.content.errors import InvalidAnswer, InvalidContent, NotFound
from app.content.linking import refresh_suggested_links
from app.content.markdown import split_sections
from app.content.models import (
    Choice,
    ContentVersion,
    Note,
    NoteSection,
    Question,
    QuestionNoteLink,
    QuestionSet,
    Topic,
    utcnow,
)
from app.content.read_models import ChoiceView, Grade


def load_bundle(session: Session, bundle: Bundle, report: Report, link_threshold: float) -> None:
    """Create or update everything in the bundle; the caller commits or rolls back."""
    check_bundle(bundle)
    bump_version(session)
    topics = _load_topics(session, bundle.topics, report)
    for qset in bundle.question_sets:
        _load_question_set(session, qset, topics, report)
    for note in bundle.notes:
        _load_note(session, note, topics, report)
    session.flush()
    for question_set in bundle.question_sets:
        for question in question_set.questions:
            if question.notes is not None:
                ref = f"{question_set.slug}/{question.key}"
                _set_explicit_links(session, ref, question.notes, question.line, report)
    for placement in bundle.placements:
        _place(session, placement, topics, report)
    session.flush()
    load_blueprints(session, bundle.blueprints, report)
    report.count("suggested_links", refresh_suggested_links(session, link_threshold))


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


def _topic_ref(
    slug: str | None, topics: dict[str, Topic], report: Report, line: int
) -> Topic | None:
    if slug is None:
        return None
    if slug not in topics:
        raise InvalidContent(line, f"unknown topic {slug!r}")
    return topics[slug]


def _load_topics(session: Session, items: list[TopicData], report: Report) -> dict[str, Topic]:
    # every parent is loaded: the cycle check walks ancestors this file may not mention
    existing = session.scalars(select(Topic).options(selectinload(Topic.parent)))
    topics = {topic.slug: topic for topic in existing}
    for position, item in enumerate(items):
        topic = topics.get(item.slug)
        if topic is None:
            topic = topics[item.slug] = Topic(slug=item.slug, title=item.title)
            session.add(topic)
            report.count("topics_created")
        topic.title, topic.description_md, topic.position = item.title, item.description, position
    for item in items:
        parent = _topic_ref(item.parent, topics, report, item.line)
        topics[item.slug].parent = parent
        _refuse_cycle(topics[item.slug], report, item.line)
    return topics


def _refuse_cycle(topic: Topic, report: Report, line: int) -> None:
    seen, node = {topic.slug}, topic.parent
    while node is not None:
        if node.slug in seen:
            raise InvalidContent(line, f"topic {topic.slug!r} is its own ancestor")
        seen.add(node.slug)
        node = node.parent


def _load_question_set(
    session: Session, data: QuestionSetData, topics: dict[str, Topic], report: Report
) -> None:
    qset = session.scalars(
        select(QuestionSet)
        .where(QuestionSet.slug == data.slug)
        .options(selectinload(QuestionSet.questions).selectinload(Question.choices))
    ).one_or_none()
    if qset is None:
        qset = QuestionSet(slug=data.slug, title=data.title, questions=[])
        session.add(qset)
        report.count("question_sets_created")
    elif qset.source and data.source and qset.source != data.source:
        report.warn(
            data.line or 1, f"updates the set {data.slug!r} that was imported from {qset.source}"
        )
    qset.title, qset.source, qset.imported_at = data.title, data.source[:300], utcnow()
    if data.topic is not None:
        qset.topic = _topic_ref(data.topic, topics, report, data.line or 1)
    existing = {question.key: question for question in qset.questions}
    for position, item in enumerate(data.questions, start=1):
        _load_question(qset, existing.get(item.key), item, position, topics, report)
    _report_missing(existing, {item.key for item in data.questions}, report, data.line or 1)


def _report_missing(
    existing: dict[str, Question], keys: set[str], report: Report, line: int
) -> None:
    """Questions absent from a re-imported file are kept (answers refer to them); say so."""
    missing = sorted(set(existing) - keys, key=lambda key: (len(key), key))
    if missing:
        report.warn(
            line,
            f"{len(missing)} question(s) of this set are no longer in the file and were kept: "
            + ", ".join(missing[:10])
            + (" ..." if len(missing) > 10 else ""),
        )


def _load_question(
    qset: QuestionSet,
    question: Question | None,
    data: QuestionData,
    position: int,
    topics: dict[str, Topic],
    report: Report,
) -> None:
    choices = [(c.text, c.correct) for c in data.choices]
    if question is not None and data.topic is not None:
        question.topic = _topic_ref(data.topic, topics, report, data.line)
    if question is None:
        question = Question(key=data.key, choices=[], links=[], revision=1)
        qset.questions.append(question)
        report.count("questions_created")
    elif _question_state(question) == (data.stem, data.explanation, data.kind, choices):
        question.position = position
        report.count("questions_unchanged")
        return
    else:
        question.revision += 1
        report.count("questions_updated")
    question.position, question.stem_md, question.explanation_md = (
        position,
        data.stem,
        data.explanation,
    )
    question.kind, question.source, question.updated_at = data.kind, data.source[:300], utcnow()
    _sync_choices(question, choices)
    if data.topic is not None:
        question.topic = _topic_ref(data.topic, topics, report, data.line)


def _sync_choices(question: Question, choices: list[tuple[str, bool]]) -> None:
    """Update choices in place by position; fresh rows would collide on (question, position)."""
    existing = {choice.position: choice for choice in question.choices}
    updated = []
    for position, (text, correct) in enumerate(choices, start=1):
        choice = existing.get(position) or Choice(position=position)
        choice.text_md, choice.is_correct = text, correct
        updated.append(choice)
    question.choices = updated


def _question_state(question: Question) -> tuple[str, str, str, list[tuple[str, bool]]]:
    choices = [(c.text_md, c.is_correct) for c in question.choices]
    return question.stem_md, question.explanation_md, question.kind, choices


def _load_note(session: Session, data: NoteData, topics: dict[str, Topic], report: Report) -> None:
    note = session.scalars(
        select(Note).where(Note.slug == data.slug).options(selectinload(Note.sections))
    ).one_or_none()
    if note is None:
        note = Note(slug=data.slug, sections=[], revision=1)
        session.add(note)
        report.count("notes_created")
    elif (note.title, note.author, note.body_md) == (data.title, data.author, data.markdown):
        report.count("notes_unchanged")
    else:
        note.revision += 1
        note.updated_at = utcnow()
        report.count("notes_updated")
    note.title, note.author, note.body_md, note.source = (
        data.title,
        data.author,
        data.markdown,
        data.source[:300],
    )
    if data.topic is not None:
        note.topic = _topic_ref(data.topic, topics, report, data.line or 1)
    _sync_sections(note, data.markdown)


def _sync_sections(note: Note, markdown: str) -> None:
    """Match sections by anchor so links to unchanged sections survive an edit."""
    existing = {section.anchor: section for section in note.sections}
    sections = []
    for position, part in enumerate(split_sections(markdown).sections, start=1):
        section = existing.get(part.anchor) or NoteSection(anchor=part.anchor, links=[])
        section.position, section.heading = position, part.heading
        section.level, section.body_md = part.level, part.body
        sections.append(section)
    note.sections = sections


def _place(
    session: Session, placement: Placement, topics: dict[str, Topic], report: Report
) -> None:
    target = _find(session, placement.kind, placement.ref)
    if target is None:
        raise InvalidContent(
            placement.line, f"no {placement.kind.replace('_', ' ')} {placement.ref!r}"
        )
    if placement.topic is not None:
        target.topic = _topic_ref(placement.topic, topics, report, placement.line)
    if placement.notes is not None:
        _set_explicit_links(session, placement.ref, placement.notes, placement.line, report)
    report.count("placed")


def _find(session: Session, kind: str, ref: str) -> Question | QuestionSet | Note | None:
    if kind == "question":
        set_slug, _, key = ref.rpartition("/")
        return session.scalars(
            select(Question)
            .join(QuestionSet)
            .where(QuestionSet.slug == set_slug, Question.key == key)
        ).one_or_none()
    if kind == "question_set":
        return session.scalars(select(QuestionSet).where(QuestionSet.slug == ref)).one_or_none()
    return session.scalars(select(Note).where(Note.slug == ref)).one_or_none()


def _set_explicit_links(
    session: Session, question_ref: str, targets: list[str], line: int, report: Report
) -> None:
    question = _find(session, "question", question_ref)
    if not isinstance(question, Question):
        raise InvalidContent(line, f"no question {question_ref!r} to link to notes")
    unique = list(dict.fromkeys(targets))
    sections = [_find_section(session, target, line, report) for target in unique]
    links = session.scalars(
        select(QuestionNoteLink).where(QuestionNoteLink.question_id == question.id)
    ).all()
    wanted = {section.id for section in sections}
    for link in links:
        if link.origin == "explicit" or link.section_id in wanted:
            session.delete(link)
    session.flush()
    for section in sections:
        session.add(
            QuestionNoteLink(
                question_id=question.id, section_id=section.id, origin="explicit", score=1.0
            )
        )
    report.count("explicit_links", len(sections))


def _find_section(session: Session, target: str, line: int, report: Report) -> NoteSection:
    slug, _, anchor = target.partition("#")
    section = session.scalars(
        select(NoteSection).join(Note).where(Note.slug == slug, NoteSection.anchor == anchor)
    ).one_or_none()
    if section is None:
        raise InvalidContent(line, f"no note section {target!r} (expected 'note#anchor')")
    return section


# Built once: every answer runs it, and a prebuilt statement skips construction and keying.
_ANSWER_KEY = (
    select(Question.revision, Question.kind, Choice.id, Choice.is_correct)
    .join(Choice, Choice.question_id == Question.id)
    .where(Question.id == bindparam("question_id"))
    .order_by(Choice.position)
)


def grade(session: Session, question_id: int, choice_ids: Sequence[int]) -> Grade:
    """Grade chosen choices against the answer key as the database holds it now."""
    rows = session.execute(_ANSWER_KEY, {"question_id": question_id}).all()
    if not rows:
        raise NotFound(f"There is no question number {question_id}.")
    revision, kind = rows[0].revision, rows[0].kind
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
    """Shuffle choices the same way every time for one seed; fixed choices keep their place."""
    movable = [choice for choice in choices if not choice.fixed]
    random.Random(seed).shuffle(movable)
    rest = iter(movable)
    return tuple(choice if choice.fixed else next(rest) for choice in choices)
