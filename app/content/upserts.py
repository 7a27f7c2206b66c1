"""Write a piece of a question set in a few statements: rows, not objects.

Questions are matched by key within their set and choices by position within their question,
so ids survive an edit (answers and links refer to them). A question whose text, kind,
choices, references or scope changed counts a new revision; one that only moved keeps its revision.
References are replaced whole: nothing refers to them. Each write numbers its set again, so
a question's place and its set's size are read, never counted, by the pages.
"""

from collections.abc import Collection
from dataclasses import dataclass, field

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from app.content.bundle import ChoiceData, MediaData, QuestionData, ReferenceData, Report, Scope
from app.content.models import (
    IN_USE,
    Choice,
    Media,
    Question,
    QuestionNoteLink,
    QuestionReference,
    QuestionSet,
    utcnow,
)


@dataclass
class Written:
    ids: dict[str, int] = field(default_factory=dict)  # key -> id, for every question written
    edited: set[int] = field(default_factory=set)  # ids whose text changed (or that are new)


def upsert_questions(
    session: Session,
    set_id: int,
    chunk: list[tuple[int, QuestionData]],
    topics: dict[str, int],
    report: Report,
) -> Written:
    """Create or update the (position, question) pairs of one set; return what was written."""
    stored = _stored(session, set_id, [item.key for _, item in chunk])
    written = Written()
    created, moved, edited, choices = [], [], [], _ChoiceChanges()
    references: dict[int, list[ReferenceData]] = {}
    for position, item in chunk:
        row = stored.get(item.key)
        topic_id = topics[item.topic] if item.topic is not None else None
        if row is None:
            created.append(
                _question_row(
                    item,
                    position,
                    topic_id,
                    item.scope or Scope(),
                    set_id=set_id,
                    key=item.key,
                    revision=1,
                )
            )
            report.count("questions_created")
            continue
        written.ids[item.key] = row.id
        topic_id = row.topic_id if topic_id is None else topic_id
        if row.state == _state(item, row.references, row.scope):
            moved.append({"id": row.id, "position": position, "topic_id": topic_id})
            report.count("questions_unchanged")
            continue
        scope = item.scope or row.scope
        edited.append(
            _question_row(item, position, topic_id, scope, id=row.id, revision=row.revision + 1)
        )
        choices.sync(row.id, row.choices, item)
        if item.references is not None and item.references != row.references:
            references[row.id] = item.references
        written.edited.add(row.id)
        report.count("questions_updated")
    if created:
        statement = insert(Question).returning(Question.id, sort_by_parameter_order=True)
        new_ids = session.scalars(statement, created).all()
        new_items = [item for _, item in chunk if item.key not in stored]
        for item, qid in zip(new_items, new_ids, strict=True):
            written.ids[item.key] = qid
            written.edited.add(qid)
            choices.create(qid, item)
            if item.references:
                references[qid] = item.references
    for rows in (moved, edited):
        if rows:
            session.execute(update(Question), rows)
    choices.write(session)
    replace_references(session, references)
    number_set(session, set_id)
    return written


def number_set(session: Session, set_id: int) -> None:
    """Give the set's questions in use their places (1, 2, ...) and the set its size.

    Only the places that moved are written: appending to a set writes the new rows alone.
    """
    rows = session.execute(
        select(Question.id, Question.ordinal)
        .where(Question.set_id == set_id, IN_USE)
        .order_by(Question.position, Question.id)
    ).all()
    moved = [
        {"id": qid, "ordinal": place}
        for place, (qid, ordinal) in enumerate(rows, start=1)
        if ordinal != place
    ]
    # a retired question has no place in its set
    retired = select(Question.id).where(Question.set_id == set_id, ~IN_USE, Question.ordinal != 0)
    moved += [{"id": qid, "ordinal": 0} for qid in session.scalars(retired)]
    if moved:
        session.execute(update(Question), moved)
    session.execute(
        update(QuestionSet)
        .where(QuestionSet.id == set_id, QuestionSet.question_count != len(rows))
        .values(question_count=len(rows))
    )


def stored_references(session: Session, question_ids: list[int]) -> dict[int, list[ReferenceData]]:
    """Each question's references in order (questions without any are left out)."""
    found: dict[int, list[ReferenceData]] = {}
    for qid, url, title, version in session.execute(
        select(
            QuestionReference.question_id,
            QuestionReference.url,
            QuestionReference.title,
            QuestionReference.version,
        )
        .where(QuestionReference.question_id.in_(question_ids))
        .order_by(QuestionReference.question_id, QuestionReference.position)
    ):
        found.setdefault(qid, []).append(ReferenceData(url, title, version))
    return found


def replace_references(session: Session, wanted: dict[int, list[ReferenceData]]) -> None:
    """Make each question's references exactly those given (in two statements for all)."""
    if not wanted:
        return
    session.execute(delete(QuestionReference).where(QuestionReference.question_id.in_(wanted)))
    rows = [
        {
            "question_id": qid,
            "position": position,
            "title": reference.title,
            "url": reference.url,
            "version": reference.version,
        }
        for qid, references in wanted.items()
        for position, reference in enumerate(references, start=1)
    ]
    if rows:
        session.execute(insert(QuestionReference), rows)


@dataclass
class _Stored:
    id: int
    topic_id: int | None
    revision: int
    state: tuple[object, ...]
    choices: dict[int, int]  # position -> choice id
    references: list[ReferenceData]
    scope: Scope


def replace_links(
    session: Session, wanted: dict[int, list[int]], kept: Collection[tuple[int, int]] = ()
) -> set[int]:
    """Make each question's explicit links exactly the sections given (a suggestion of one
    becomes explicit); the (question, section) pairs in kept stay, given or not. Return the
    questions whose links changed."""
    current: dict[int, list[QuestionNoteLink]] = {}
    for link in session.scalars(
        select(QuestionNoteLink).where(QuestionNoteLink.question_id.in_(wanted))
    ):
        current.setdefault(link.question_id, []).append(link)
    changed = set()
    for question_id, ids in wanted.items():
        replaced = [
            link
            for link in current.get(question_id, [])
            if link.section_id in ids
            or (link.origin == "explicit" and (question_id, link.section_id) not in kept)
        ]
        if sorted((link.section_id, link.origin) for link in replaced) == sorted(
            (section_id, "explicit") for section_id in ids
        ):
            continue
        for link in replaced:
            session.delete(link)
        session.flush()
        session.add_all(
            QuestionNoteLink(
                question_id=question_id, section_id=section_id, origin="explicit", score=1.0
            )
            for section_id in ids
        )
        changed.add(question_id)
    session.flush()
    return changed


def _stored(session: Session, set_id: int, keys: list[str]) -> dict[str, _Stored]:
    rows = session.execute(
        select(
            Question.id,
            Question.key,
            Question.topic_id,
            Question.revision,
            Question.stem_md,
            Question.explanation_md,
            Question.kind,
            Question.versions,
            Question.difficulty,
            Question.level,
            Question.accepted,
        ).where(Question.set_id == set_id, Question.key.in_(keys))
    ).all()
    choices: dict[int, list[tuple[int, int, str, bool, str, bool]]] = {}
    for choice in session.execute(
        select(
            Choice.question_id,
            Choice.id,
            Choice.position,
            Choice.text_md,
            Choice.is_correct,
            Choice.feedback_md,
            Choice.keeps_place,
        )
        .where(Choice.question_id.in_([row.id for row in rows]))
        .order_by(Choice.question_id, Choice.position)
    ).all():
        choices.setdefault(choice[0], []).append(tuple(choice[1:]))  # type: ignore[arg-type]
    references = stored_references(session, [row.id for row in rows])
    stored = {}
    for qid, key, topic_id, revision, stem, explanation, kind, *scoped in rows:
        mine = choices.get(qid, [])
        state = (stem, explanation, kind, [tuple(choice[2:]) for choice in mine])
        positions = {position: cid for cid, position, *_ in mine}
        refs = references.get(qid, [])
        versions, difficulty, level, accepted = scoped
        scope = Scope(tuple(versions), difficulty, level, tuple(accepted))
        stored[key] = _Stored(
            qid, topic_id, revision, (*state, refs, scope), positions, refs, scope
        )
    return stored


def _state(item: QuestionData, kept: list[ReferenceData], scope: Scope) -> tuple[object, ...]:
    """What an edit is judged by; references or scope left out of the item keep the stored."""
    references = kept if item.references is None else item.references
    choices = [(c.text, c.correct, c.feedback, c.fixed) for c in item.choices]
    return item.stem, item.explanation, item.kind, choices, references, item.scope or scope


def _question_row(
    item: QuestionData, position: int, topic_id: int | None, scope: Scope, **rest: object
) -> dict:
    """The question's row as the item has it; rest names the row (new) or its id (edited)."""
    return {
        "position": position,
        "topic_id": topic_id,
        "stem_md": item.stem,
        "explanation_md": item.explanation,
        "kind": item.kind,
        "source": item.source[:300],
        "updated_at": utcnow(),
        **scope_values(scope),
        **rest,
    }


def scope_values(scope: Scope) -> dict[str, object]:
    """The question columns that hold a scope."""
    return {
        "versions": list(scope.versions),
        "difficulty": scope.difficulty,
        "level": scope.level,
        "accepted": list(scope.accepted),
    }


@dataclass
class _ChoiceChanges:
    """Choice rows to insert, update (by id) and delete, gathered for a whole chunk."""

    inserts: list[dict] = field(default_factory=list)
    updates: list[dict] = field(default_factory=list)
    deletes: list[int] = field(default_factory=list)

    def create(self, question_id: int, item: QuestionData) -> None:
        for position, choice in enumerate(item.choices, start=1):
            self.inserts.append(_choice(question_id, position, choice))

    def sync(self, question_id: int, stored: dict[int, int], item: QuestionData) -> None:
        """Update choices in place by position; add the new positions, drop the lost ones."""
        for position, choice in enumerate(item.choices, start=1):
            if position in stored:
                self.updates.append({"id": stored[position], **_choice_values(choice)})
            else:
                self.inserts.append(_choice(question_id, position, choice))
        self.deletes += [cid for position, cid in stored.items() if position > len(item.choices)]

    def write(self, session: Session) -> None:
        if self.deletes:
            session.execute(delete(Choice).where(Choice.id.in_(self.deletes)))
        if self.updates:
            session.execute(update(Choice), self.updates)
        if self.inserts:
            session.execute(insert(Choice), self.inserts)


def _choice_values(choice: ChoiceData) -> dict:
    return {
        "text_md": choice.text,
        "is_correct": choice.correct,
        "feedback_md": choice.feedback,
        "keeps_place": choice.fixed,
    }


def _choice(question_id: int, position: int, choice: ChoiceData) -> dict:
    return {"question_id": question_id, "position": position, **_choice_values(choice)}


def store_media(session: Session, items: list[MediaData], report: Report) -> None:
    """Store the images not stored yet; one already held (the same bytes) is kept as it is."""
    if not items:
        return
    wanted = {item.sha256: item for item in items}
    held = set(session.scalars(select(Media.sha256).where(Media.sha256.in_(wanted))))
    new = [item for sha, item in wanted.items() if sha not in held]
    if new:
        session.execute(
            insert(Media),
            [
                {
                    "sha256": item.sha256,
                    "name": item.name,
                    "content_type": item.content_type,
                    "data": item.data,
                    "created_at": utcnow(),
                }
                for item in new
            ],
        )
    report.count("images_stored", len(new))
