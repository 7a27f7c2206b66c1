"""Load a content bundle: check every reference first, then write it in short steps.

`Loader.check` reads the database and refuses, naming the line, anything the bundle could not
become (unknown topics, topic cycles, missing questions, notes or sections); it writes nothing.
`Loader.steps` then yields the writes in pieces of at most `batch` questions. Run in one
transaction they load the bundle all or nothing; run each in a transaction of its own they
hold the write lock only briefly. Every step is an upsert keyed by slug and question key, so
running the whole load again converges on the same content.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased, selectinload

from app.content import revisions
from app.content.blueprints import check_blueprint, load_blueprints
from app.content.bundle import (
    Bundle,
    NoteData,
    QuestionData,
    QuestionSetData,
    ReferenceData,
    Report,
    Scope,
)
from app.content.checks import check_bundle
from app.content.errata import check_errata, load_errata
from app.content.errors import InvalidContent
from app.content.markdown import split_sections
from app.content.models import (
    LinkDecision,
    Note,
    NoteSection,
    Question,
    QuestionSet,
    Topic,
    utcnow,
)
from app.content.upserts import (
    replace_links,
    replace_references,
    scope_values,
    store_media,
    stored_references,
    upsert_questions,
)

BATCH = 250  # questions per step: a few hundred keep each write transaction short
NOTES_BATCH = 20  # notes per step (a note holds about as much text as 25 questions)
Step = Callable[[Session], None]


@dataclass
class Changes:
    """What a load changed that suggested links depend on."""

    questions: set[int] = field(default_factory=set)  # created, edited or relinked
    sections: bool = False  # a note's sections were created, edited or removed


class Loader:
    def __init__(self, bundle: Bundle, report: Report, author_id: int | None = None) -> None:
        self.bundle = bundle
        self.report = report
        self.author_id = author_id  # who imports (None from the command line), for revisions
        self.note = f"Imported from {report.file}"
        self.changes = Changes()
        self._sections: dict[tuple[str, str], int] | None = None

    @property
    def total(self) -> int:
        """Count the questions the steps write (what progress is measured in)."""
        return sum(len(qset.questions) for qset in self.bundle.question_sets)

    def check(self, session: Session) -> None:
        """Refuse the bundle, naming the line, when a reference cannot be met; write nothing."""
        check_bundle(self.bundle)
        known = _check_topics(session, self.bundle)
        for qset in self.bundle.question_sets:
            _known_topic(qset.topic, known, qset.line or 1)
            for question in qset.questions:
                _known_topic(question.topic, known, question.line)
        for note in self.bundle.notes:
            _known_topic(note.topic, known, note.line or 1)
        sections = _section_refs(session, self.bundle.notes)
        for qset in self.bundle.question_sets:
            for question in qset.questions:
                _known_sections(question.notes, sections, question.line)
        _check_placements(session, self.bundle, known, sections)
        if self.bundle.blueprints:
            sets = set(session.scalars(select(QuestionSet.slug)))
            sets |= {qset.slug for qset in self.bundle.question_sets}
            topics = set(session.scalars(select(Topic.slug)))
            topics |= {topic.slug for topic in self.bundle.topics}
            for blueprint in self.bundle.blueprints:
                check_blueprint(blueprint, sets, topics)
        if self.bundle.errata:
            refs = {f"{slug}#{anchor}" for slug, anchor in sections}
            wanted = {
                e.target.rpartition("/")[0] for e in self.bundle.errata if "#" not in e.target
            }
            questions = _question_refs(session, self.bundle, wanted)
            check_errata(self.bundle.errata, questions, refs)
        _report_missing(session, self.bundle.question_sets, self.report)

    def steps(self, batch: int = BATCH) -> Iterator[tuple[int, Step]]:
        """Yield (questions written once it has run, step) in the order they must run."""
        yield 0, self._head
        for start in range(0, len(self.bundle.notes), NOTES_BATCH):
            yield 0, partial(self._notes, notes=self.bundle.notes[start : start + NOTES_BATCH])
        done = 0
        for qset in self.bundle.question_sets:
            for start in range(0, len(qset.questions), batch):
                chunk = list(enumerate(qset.questions[start : start + batch], start=start + 1))
                done += len(chunk)
                yield done, partial(self._questions, data=qset, chunk=chunk)
        if self.bundle.placements:
            yield done, self._placements
        if self.bundle.blueprints:
            yield done, partial(load_blueprints, items=self.bundle.blueprints, report=self.report)
        if self.bundle.errata:
            yield done, partial(load_errata, items=self.bundle.errata, report=self.report)

    def _head(self, session: Session) -> None:
        """Images, topics and question sets (without their questions)."""
        store_media(session, self.bundle.media, self.report)
        topics = _load_topics(session, self.bundle, self.report)
        for qset in self.bundle.question_sets:
            _load_set(session, qset, topics, self.report)
        session.flush()

    def _notes(self, session: Session, notes: list[NoteData]) -> None:
        """Notes with their sections."""
        topics = {t.slug: t for t in session.scalars(select(Topic))}
        for data in notes:
            note, changed = _load_note(session, data, topics, self.report)
            if changed:
                self.changes.sections = True
                revisions.record_note(session, note, self.author_id, self.note)
        session.flush()

    def _questions(
        self, session: Session, data: QuestionSetData, chunk: list[tuple[int, QuestionData]]
    ) -> None:
        set_id = session.scalars(select(QuestionSet.id).where(QuestionSet.slug == data.slug)).one()
        topics = dict(session.execute(select(Topic.slug, Topic.id)).all())
        written = upsert_questions(session, set_id, chunk, topics, self.report)
        self.changes.questions |= written.edited
        linked = {written.ids[item.key]: item.notes for _, item in chunk if item.notes is not None}
        if linked:
            self._set_explicit_links(session, linked)
        revisions.record(session, list(written.ids.values()), self.author_id, self.note)

    def _set_explicit_links(self, session: Session, wanted: dict[int, list[str]]) -> None:
        """Make each question's explicit links exactly the sections named (a few queries).

        Links an author confirmed stay, named or not: the decision outlives the file.
        """
        sections = self._section_ids(session)
        confirmed = set(
            session.execute(
                select(LinkDecision.question_id, LinkDecision.section_id).where(
                    LinkDecision.question_id.in_(wanted), LinkDecision.decision == "confirmed"
                )
            ).all()
        )
        ids = {
            question_id: [sections[_section_key(t)] for t in dict.fromkeys(targets)]
            for question_id, targets in wanted.items()
        }
        for named in ids.values():
            self.report.count("explicit_links", len(named))
        self.changes.questions |= replace_links(session, ids, confirmed)

    def _section_ids(self, session: Session) -> dict[tuple[str, str], int]:
        # Read once, after the head step wrote the notes: imports run one at a time.
        if self._sections is None:
            rows = session.execute(
                select(Note.slug, NoteSection.anchor, NoteSection.id).join(Note)
            ).all()
            self._sections = {(slug, anchor): sid for slug, anchor, sid in rows}
        return self._sections

    def _placements(self, session: Session) -> None:
        topics = {t.slug: t for t in session.scalars(select(Topic))}
        placed = []
        for placement in self.bundle.placements:
            target = _find(session, placement.kind, placement.ref)
            if isinstance(target, Question):
                placed.append(target.id)
            if placement.topic is not None:
                target.topic = topics[placement.topic]
            if placement.notes is not None:
                assert isinstance(target, Question)
                self._set_explicit_links(session, {target.id: placement.notes})
            if placement.references is not None:
                assert isinstance(target, Question)
                self._set_references(session, target, placement.references)
            if placement.scope is not None:
                assert isinstance(target, Question)
                self._set_scope(target, placement.scope)
            self.report.count("placed")
        session.flush()
        revisions.record(session, placed, self.author_id, self.note)

    def _set_references(
        self, session: Session, question: Question, references: list[ReferenceData]
    ) -> None:
        """Give a question exactly these references; a change is an edit (a new revision)."""
        if stored_references(session, [question.id]).get(question.id, []) == references:
            return
        replace_references(session, {question.id: references})
        self._edited(question)

    def _set_scope(self, question: Question, scope: Scope) -> None:
        """Give a question this scope; a change is an edit (a new revision)."""
        values = scope_values(scope)
        if all(getattr(question, name) == value for name, value in values.items()):
            return
        for name, value in values.items():
            setattr(question, name, value)
        self._edited(question)

    def _edited(self, question: Question) -> None:
        question.revision += 1
        question.updated_at = utcnow()
        self.report.count("questions_updated")


def _section_key(target: str) -> tuple[str, str]:
    slug, _, anchor = target.partition("#")
    return slug, anchor


def _check_topics(session: Session, bundle: Bundle) -> set[str]:
    """Refuse unknown parents and cycles, in the order a load would meet them."""
    parent = aliased(Topic)
    parents: dict[str, str | None] = dict(
        session.execute(
            select(Topic.slug, parent.slug).outerjoin(parent, Topic.parent_id == parent.id)
        ).all()
    )
    for item in bundle.topics:
        parents.setdefault(item.slug, None)
    for item in bundle.topics:
        if item.parent is not None and item.parent not in parents:
            raise InvalidContent(item.line, f"unknown topic {item.parent!r}")
        parents[item.slug] = item.parent
        seen, node = {item.slug}, item.parent
        while node is not None:
            if node in seen:
                raise InvalidContent(item.line, f"topic {item.slug!r} is its own ancestor")
            seen.add(node)
            node = parents.get(node)
    return set(parents)


def _known_topic(slug: str | None, known: set[str], line: int) -> None:
    if slug is not None and slug not in known:
        raise InvalidContent(line, f"unknown topic {slug!r}")


def _section_refs(session: Session, notes: list[NoteData]) -> set[tuple[str, str]]:
    """The (note, anchor) pairs there will be: the bundle's notes replace their stored sections."""
    replaced = {note.slug for note in notes}
    rows = session.execute(select(Note.slug, NoteSection.anchor).join(Note)).all()
    refs = {(slug, anchor) for slug, anchor in rows if slug not in replaced}
    for note in notes:
        refs.update((note.slug, s.anchor) for s in split_sections(note.markdown).sections)
    return refs


def _known_sections(targets: list[str] | None, known: set[tuple[str, str]], line: int) -> None:
    for target in targets or ():
        if _section_key(target) not in known:
            raise InvalidContent(line, f"no note section {target!r} (expected 'note#anchor')")


def _check_placements(
    session: Session, bundle: Bundle, topics: set[str], sections: set[tuple[str, str]]
) -> None:
    if not bundle.placements:
        return
    wanted = {p.ref.rpartition("/")[0] for p in bundle.placements if p.kind == "question"}
    refs = {
        "question_set": {s.slug for s in bundle.question_sets}
        | set(session.scalars(select(QuestionSet.slug))),
        "note": {n.slug for n in bundle.notes} | set(session.scalars(select(Note.slug))),
        "question": _question_refs(session, bundle, wanted),
    }
    for placement in bundle.placements:
        if placement.ref not in refs[placement.kind]:
            raise InvalidContent(
                placement.line, f"no {placement.kind.replace('_', ' ')} {placement.ref!r}"
            )
        _known_topic(placement.topic, topics, placement.line)
        _known_sections(placement.notes, sections, placement.line)


def _question_refs(session: Session, bundle: Bundle, wanted: set[str]) -> set[str]:
    """The "set/key" of every question the bundle brings or the sets named in wanted hold."""
    refs = {f"{s.slug}/{q.key}" for s in bundle.question_sets for q in s.questions}
    rows = session.execute(
        select(QuestionSet.slug, Question.key).join(Question).where(QuestionSet.slug.in_(wanted))
    ).all()
    return refs | {f"{slug}/{key}" for slug, key in rows}


def _report_missing(session: Session, sets: list[QuestionSetData], report: Report) -> None:
    """Questions absent from a re-imported file are kept (answers refer to them); say so."""
    stored: dict[str, set[str]] = {}
    rows = session.execute(
        select(QuestionSet.slug, Question.key)
        .join(Question)
        .where(QuestionSet.slug.in_([s.slug for s in sets]))
    ).all()
    for slug, key in rows:
        stored.setdefault(slug, set()).add(key)
    for qset in sets:
        missing = sorted(
            stored.get(qset.slug, set()) - {q.key for q in qset.questions},
            key=lambda key: (len(key), key),
        )
        if missing:
            report.warn(
                qset.line or 1,
                f"{len(missing)} question(s) of this set are no longer in the file and were "
                "kept: " + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else ""),
            )


def _load_topics(session: Session, bundle: Bundle, report: Report) -> dict[str, Topic]:
    topics = {topic.slug: topic for topic in session.scalars(select(Topic))}
    for position, item in enumerate(bundle.topics):
        topic = topics.get(item.slug)
        if topic is None:
            topic = topics[item.slug] = Topic(slug=item.slug, title=item.title)
            session.add(topic)
            report.count("topics_created")
        topic.title, topic.description_md, topic.position = item.title, item.description, position
    session.flush()
    for item in bundle.topics:
        topic = topics[item.slug]
        topic.parent_id = topics[item.parent].id if item.parent is not None else None
    return topics


def _load_set(
    session: Session, data: QuestionSetData, topics: dict[str, Topic], report: Report
) -> None:
    qset = session.scalars(select(QuestionSet).where(QuestionSet.slug == data.slug)).one_or_none()
    if qset is None:
        qset = QuestionSet(slug=data.slug, title=data.title)
        session.add(qset)
        report.count("question_sets_created")
    elif qset.source and data.source and qset.source != data.source:
        report.warn(
            data.line or 1, f"updates the set {data.slug!r} that was imported from {qset.source}"
        )
    qset.title, qset.source, qset.imported_at = data.title, data.source[:300], utcnow()
    if data.topic is not None:
        qset.topic_id = topics[data.topic].id


def _load_note(
    session: Session, data: NoteData, topics: dict[str, Topic], report: Report
) -> tuple[Note, bool]:
    """Create or update a note and its sections; tell whether its text changed."""
    note = session.scalars(
        select(Note).where(Note.slug == data.slug).options(selectinload(Note.sections))
    ).one_or_none()
    changed = True
    if note is None:
        note = Note(slug=data.slug, sections=[], revision=1)
        session.add(note)
        report.count("notes_created")
    elif (note.title, note.author, note.body_md) == (data.title, data.author, data.markdown):
        report.count("notes_unchanged")
        changed = False
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
        note.topic_id = topics[data.topic].id
    sync_sections(note, data.markdown)
    return note, changed


def sync_sections(note: Note, markdown: str) -> None:
    """Match sections by anchor so links to unchanged sections survive an edit."""
    existing = {section.anchor: section for section in note.sections}
    sections = []
    for position, part in enumerate(split_sections(markdown).sections, start=1):
        section = existing.get(part.anchor) or NoteSection(anchor=part.anchor, links=[])
        section.position, section.heading = position, part.heading
        section.level, section.body_md = part.level, part.body
        sections.append(section)
    note.sections = sections


def _find(session: Session, kind: str, ref: str) -> Question | QuestionSet | Note:
    if kind == "question":
        set_slug, _, key = ref.rpartition("/")
        return session.scalars(
            select(Question)
            .join(QuestionSet)
            .where(QuestionSet.slug == set_slug, Question.key == key)
        ).one()
    if kind == "question_set":
        return session.scalars(select(QuestionSet).where(QuestionSet.slug == ref)).one()
    return session.scalars(select(Note).where(Note.slug == ref)).one()
