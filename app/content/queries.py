"""Read queries behind the content pages and API; each returns plain read models."""

from collections import Counter
from collections.abc import Sequence
from functools import cached_property

from sqlalchemy import (
    Select,
    String,
    bindparam,
    cast,
    false,
    func,
    literal_column,
    null,
    or_,
    select,
    tuple_,
    union_all,
)
from sqlalchemy.orm import Session, aliased, joinedload
from sqlalchemy.sql import Subquery

from app.content.bundle import Scope
from app.content.errata import ProblemReport, open_errata_column, unpack_errata
from app.content.errors import NotFound
from app.content.markdown import excerpt, render, render_inline, render_note
from app.content.models import (
    IN_USE,
    Choice,
    Media,
    Note,
    NoteSection,
    Question,
    QuestionNoteLink,
    QuestionReference,
    QuestionSet,
    Topic,
)
from app.content.read_models import (
    ChoiceView,
    GuideNote,
    GuidePart,
    HomeView,
    LinkedQuestion,
    ListView,
    NoteLink,
    NoteSummary,
    NoteView,
    PageInfo,
    QuestionSummary,
    QuestionView,
    ReferenceView,
    SectionRef,
    SectionView,
    SetSummary,
    SetView,
    TocSection,
    TopicRef,
    TopicSummary,
    TopicView,
)
from app.content.service import is_fixed_choice

CARD_CHIPS = 12  # subtopics a topic's card names; a link to the topic leads to the rest


class _Tree:
    """All topics with question and note counts that include their subtopics."""

    def __init__(self, session: Session) -> None:
        self.topics = {t.id: t for t in session.scalars(select(Topic).order_by(Topic.position))}
        self.questions = self._counts(session, Question.topic_id)
        self.notes = self._counts(session, Note.topic_id)
        self.children: dict[int | None, list[Topic]] = {}
        for topic in self.topics.values():
            self.children.setdefault(topic.parent_id, []).append(topic)

    @staticmethod
    def _counts(session: Session, column) -> Counter[int | None]:
        rows = session.execute(select(column, func.count()).group_by(column)).all()
        return Counter(dict(rows))

    def summary(self, topic: Topic) -> TopicSummary:
        children = tuple(self.summary(child) for child in self.children.get(topic.id, []))
        return TopicSummary(
            slug=topic.slug,
            title=topic.title,
            description_html=render(topic.description_md) if topic.description_md else "",
            question_count=self.questions[topic.id] + sum(c.question_count for c in children),
            note_count=self.notes[topic.id] + sum(c.note_count for c in children),
            children=children,
        )

    def card(self, topic: Topic, chips: int = CARD_CHIPS) -> TopicSummary:
        """A topic with its first `chips` subtopics (without theirs) and its subtree's counts."""
        kids = self.children.get(topic.id, [])
        questions, notes = self.totals.get(topic.id, (0, 0))
        return TopicSummary(
            slug=topic.slug,
            title=topic.title,
            description_html=render(topic.description_md) if topic.description_md and chips else "",
            question_count=questions,
            note_count=notes,
            children=tuple(self.card(child, 0) for child in kids[:chips]),
            more_children=max(0, len(kids) - chips),
        )

    @cached_property
    def totals(self) -> dict[int, tuple[int, int]]:
        """Each topic's questions and notes with its subtopics', summed leaves first."""
        order, todo = [], list(self.children.get(None, []))
        while todo:
            topic = todo.pop()
            order.append(topic)
            todo.extend(self.children.get(topic.id, []))
        totals: dict[int, tuple[int, int]] = {}
        for topic in reversed(order):  # every subtopic comes before its parent
            kids = [totals[child.id] for child in self.children.get(topic.id, [])]
            totals[topic.id] = (
                self.questions[topic.id] + sum(q for q, _ in kids),
                self.notes[topic.id] + sum(n for _, n in kids),
            )
        return totals

    def outline(self, limit: int) -> tuple[tuple[int, TopicSummary], ...]:
        """The tree depth first, as deep as fits in `limit` rows (the top level at least,
        cut at `limit`), each topic with its depth and its subtree's counts."""
        depths: dict[int, int] = {}
        todo = [(topic, 0) for topic in reversed(self.children.get(None, []))]
        rows: list[tuple[int, Topic]] = []
        while todo:
            topic, depth = todo.pop()
            rows.append((depth, topic))
            depths[depth] = depths.get(depth, 0) + 1
            todo.extend((child, depth + 1) for child in reversed(self.children.get(topic.id, [])))
        deepest, shown = 0, 0
        for depth in sorted(depths):
            if shown + depths[depth] > limit and depth > 0:
                break
            deepest, shown = depth, shown + depths[depth]
        kept = [(depth, topic) for depth, topic in rows if depth <= deepest][:limit]
        return tuple((depth, self.card(topic, 0)) for depth, topic in kept)

    def subtree(self, topic: Topic) -> list[tuple[Topic, int]]:
        """Return the topic and its subtopics, depth first in their order, with their depth."""
        found: list[tuple[Topic, int]] = []
        stack = [(topic, 0)]
        while stack and len(found) < len(self.topics):
            node, depth = stack.pop()
            found.append((node, depth))
            stack.extend((child, depth + 1) for child in reversed(self.children.get(node.id, [])))
        return found

    def ancestors(self, topic: Topic) -> tuple[TopicRef, ...]:
        chain: list[TopicRef] = []
        parent_id = topic.parent_id
        while parent_id is not None and len(chain) < 50:
            parent = self.topics[parent_id]
            chain.insert(0, TopicRef(parent.slug, parent.title))
            parent_id = parent.parent_id
        return tuple(chain)


def _ref(topic: Topic | None) -> TopicRef | None:
    return TopicRef(topic.slug, topic.title) if topic is not None else None


def _web_url(source: str) -> str | None:
    """Show where content came from only when that is a web address, never a server path."""
    return source if source.startswith(("https://", "http://")) else None


PAGE_SIZE = 50


def paged(page: int, total: int, size: int = PAGE_SIZE) -> PageInfo:
    """Where page sits in a list of total items (404 past the last page)."""
    pages = max(1, -(-total // size))
    if page > pages:
        raise NotFound(f"There is no page {page}: the list has {pages}.")
    return PageInfo(page, pages, total, size)


def _question_page(
    session: Session, page: int, *where
) -> tuple[tuple[QuestionSummary, ...], PageInfo]:
    """One page of the questions in use matching where, and where it sits."""
    where = (*where, IN_USE)
    total = session.scalar(select(func.count(Question.id)).where(*where)) or 0
    info = paged(page, total)
    items = _question_summaries(session, *where, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
    return items, info


def _question_summaries(
    session: Session, *where, limit: int | None = None, offset: int = 0
) -> tuple[QuestionSummary, ...]:
    rows = session.execute(
        select(
            Question.id, QuestionSet.slug, Question.key, Question.stem_md, Topic.slug, Topic.title
        )
        .select_from(Question)
        .join(QuestionSet, Question.set_id == QuestionSet.id)
        .outerjoin(Topic, Question.topic_id == Topic.id)
        .where(*where)
        .order_by(QuestionSet.slug, Question.position)
        .limit(limit)
        .offset(offset)
    ).all()
    return tuple(
        QuestionSummary(qid, set_slug, key, render_inline(stem), TopicRef(ts, tt) if ts else None)
        for qid, set_slug, key, stem, ts, tt in rows
    )


def _note_summaries(
    session: Session, *where, limit: int | None = None, offset: int = 0
) -> tuple[tuple[NoteSummary, ...], int]:
    """Notes by title (a slice of them) and how many match in all."""
    rows = session.execute(
        select(Note.slug, Note.title, Note.author, Topic.slug, Topic.title, func.count().over())
        .outerjoin(Topic, Note.topic_id == Topic.id)
        .where(*where)
        .order_by(Note.title, Note.id)
        .limit(limit)
        .offset(offset)
    ).all()
    notes = tuple(
        NoteSummary(slug, title, author, TopicRef(ts, tt) if ts else None)
        for slug, title, author, ts, tt, _ in rows
    )
    return notes, rows[0][-1] if rows else 0


def _set_summaries(
    session: Session, limit: int | None = None, offset: int = 0
) -> tuple[tuple[SetSummary, ...], int]:
    """Question sets by title (a slice of them) with size and first question, and how many."""
    first = (
        select(Question.id)
        .where(Question.set_id == QuestionSet.id, IN_USE)
        .order_by(Question.position)
        .limit(1)
        .correlate(QuestionSet)
        .scalar_subquery()
    )
    rows = session.execute(
        select(
            QuestionSet.slug,
            QuestionSet.title,
            QuestionSet.question_count,
            first,
            func.count().over(),
        )
        .order_by(QuestionSet.title, QuestionSet.id)
        .limit(limit)
        .offset(offset)
    ).all()
    return tuple(SetSummary(*row[:4]) for row in rows), rows[0][-1] if rows else 0


def set_summaries(session: Session) -> tuple[SetSummary, ...]:
    """List every question set with its size and first question."""
    return _set_summaries(session)[0]


HOME_ITEMS = 10  # question sets and notes the home page shows; the rest are a link away
HOME_TOPICS = 24  # top-level topics the home page shows as cards; the rest are on /topics


def home(session: Session) -> HomeView:
    """Gather the first top-level topics, question sets and notes, and how many there are."""
    tree = _Tree(session)
    roots = tree.children.get(None, [])
    sets, set_count = _set_summaries(session, limit=HOME_ITEMS)
    notes, note_count = _note_summaries(session, limit=HOME_ITEMS)
    return HomeView(
        topics=tuple(tree.card(t) for t in roots[:HOME_TOPICS]),
        sets=sets,
        notes=notes,
        set_count=set_count,
        note_count=note_count,
        topic_count=len(roots),
    )


def topics_page(session: Session, page: int = 1) -> ListView:
    """One page of the top-level topics, as cards with their first subtopics."""
    tree = _Tree(session)
    roots = tree.children.get(None, [])
    info = paged(page, len(roots))
    start = (page - 1) * PAGE_SIZE
    return ListView(tuple(tree.card(t) for t in roots[start : start + PAGE_SIZE]), info)


def sets_page(session: Session, page: int = 1) -> ListView:
    """One page of the question sets, by title."""
    sets, total = _set_summaries(session, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
    if not sets and page > 1:  # past the end: count to say how many pages there are
        total = len(_set_summaries(session)[0])
    return ListView(sets, paged(page, total))


def notes_page(session: Session, page: int = 1) -> ListView:
    """One page of the notes, by title."""
    notes, total = _note_summaries(session, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
    if not notes and page > 1:
        total = session.scalar(select(func.count(Note.id))) or 0
    return ListView(notes, paged(page, total))


def topic(session: Session, slug: str, page: int = 1) -> TopicView:
    """Gather a topic as a study guide: its subtopics, then its and their notes and questions."""
    tree = _Tree(session)
    found = next((t for t in tree.topics.values() if t.slug == slug), None)
    if found is None:
        raise NotFound(f"There is no topic called “{slug}”.")
    subtree = tree.subtree(found)
    ids = [t.id for t, _ in subtree]
    questions, info = _question_page(session, page, Question.topic_id.in_(ids))
    guide = _guide(session, subtree)
    return TopicView(
        topic=tree.summary(found),
        ancestors=tree.ancestors(found),
        notes=tuple(
            NoteSummary(n.slug, n.title, n.author, part.topic) for part in guide for n in part.notes
        ),
        questions=questions,
        page=info,
        guide=guide,
    )


def _guide(session: Session, subtree: list[tuple[Topic, int]]) -> tuple[GuidePart, ...]:
    """The notes of each topic of subtree, in its order, with their sections (one query)."""
    tested = (
        select(func.count(QuestionNoteLink.id))
        .where(QuestionNoteLink.section_id == NoteSection.id)
        .correlate(NoteSection)
        .scalar_subquery()
    )
    rows = session.execute(
        select(Note.id, Note.slug, Note.title, Note.author, Note.topic_id)
        .add_columns(NoteSection.anchor, NoteSection.heading, tested)
        .outerjoin(NoteSection, NoteSection.note_id == Note.id)
        .where(Note.topic_id.in_([t.id for t, _ in subtree]))
        .order_by(Note.title, Note.id, NoteSection.position)
    ).all()
    notes: dict[int, dict[int, tuple[tuple[str, str, str], list[TocSection]]]] = {}
    for note_id, note_slug, title, author, topic_id, anchor, heading, count in rows:
        entry = notes.setdefault(topic_id, {}).setdefault(note_id, ((note_slug, title, author), []))
        if anchor is not None:
            entry[1].append(TocSection(anchor, heading, count))
    return tuple(
        GuidePart(
            TopicRef(t.slug, t.title),
            depth,
            tuple(GuideNote(*note, tuple(sections)) for note, sections in notes[t.id].values()),
        )
        for t, depth in subtree
        if t.id in notes
    )


def question_set(session: Session, slug: str, page: int = 1) -> SetView:
    """Gather a question set and one page of its questions."""
    qset = session.scalars(
        select(QuestionSet).options(joinedload(QuestionSet.topic)).where(QuestionSet.slug == slug)
    ).one_or_none()
    if qset is None:
        raise NotFound(f"There is no question set called “{slug}”.")
    questions, info = _question_page(session, page, Question.set_id == qset.id)
    first = session.scalar(
        select(Question.id)
        .where(Question.set_id == qset.id, IN_USE)
        .order_by(Question.position)
        .limit(1)
    )
    return SetView(
        set=SetSummary(qset.slug, qset.title, info.total, first),
        source_url=_web_url(qset.source),
        topic=_ref(qset.topic),
        questions=questions,
        page=info,
    )


def note(session: Session, slug: str) -> NoteView:
    """Gather a note, its sections rendered, and the questions each section teaches."""
    found = session.scalars(
        select(Note).options(joinedload(Note.topic)).where(Note.slug == slug)
    ).one_or_none()
    if found is None:
        raise NotFound(f"There is no note called “{slug}”.")
    errata = open_errata_column(ProblemReport.section_id == NoteSection.id)
    stored = session.execute(
        select(
            NoteSection.id,
            NoteSection.anchor,
            NoteSection.heading,
            NoteSection.level,
            NoteSection.body_md,
            errata,
        )
        .where(NoteSection.note_id == found.id)
        .order_by(NoteSection.position)
    ).all()
    rows = session.execute(
        select(
            QuestionNoteLink.section_id,
            Question.id,
            Question.stem_md,
            QuestionNoteLink.origin,
            QuestionNoteLink.score,
        )
        .join(Question)
        .join(NoteSection)
        .where(NoteSection.note_id == found.id)
        .order_by(QuestionNoteLink.origin, QuestionNoteLink.score.desc(), Question.id)
    ).all()
    linked: dict[int, list[LinkedQuestion]] = {}
    for section_id, qid, stem, origin, score in rows:
        linked.setdefault(section_id, []).append(
            LinkedQuestion(qid, render_inline(stem), origin, score)
        )
    rendered = render_note(found.body_md)
    sections = tuple(
        SectionView(
            anchor,
            heading,
            level,
            rendered.sections.get(anchor, render(body)),
            tuple(linked.get(section_id, ())),
            section_id,
            unpack_errata(packed),
        )
        for section_id, anchor, heading, level, body, packed in stored
    )
    return NoteView(
        slug=found.slug,
        title=found.title,
        author=found.author,
        source_url=_web_url(found.source),
        topic=_ref(found.topic),
        intro_html=rendered.intro,
        markdown=found.body_md,
        sections=sections,
        footnotes_html=rendered.footnotes,
    )


def question(session: Session, question_id: int) -> QuestionView:
    """Gather a question with its choices, references, note links and neighbours in its set
    (two queries)."""
    parts = session.execute(_QUESTION_ROWS, {"question_id": question_id}).all()
    if not parts:
        raise NotFound(f"There is no question number {question_id}.")
    found = parts[0]
    return QuestionView(
        id=found.id,
        key=found.key,
        kind=found.kind,
        revision=found.revision,
        set=TopicRef(found.set_slug, found.set_title),
        topic=TopicRef(found.topic_slug, found.topic_title) if found.topic_title else None,
        position=found.ordinal,
        total=found.question_count,
        stem_md=found.stem_md,
        stem_html=render(found.stem_md),
        explanation_md=found.explanation_md,
        choices=tuple(
            ChoiceView(
                r.part_id,
                r.part_position,
                render_inline(r.text),
                bool(r.fixed) or is_fixed_choice(r.text),
                render(r.feedback) if r.feedback else "",
            )
            for r in parts
            if r.part == "choice"
        ),
        links=_note_links(session, found.id),
        references=tuple(
            ReferenceView(r.url, r.text, r.version) for r in parts if r.part == "reference"
        ),
        previous_id=found.previous_id,
        next_id=found.next_id,
        errata=unpack_errata(found.errata),
        scope=Scope(tuple(found.versions or ()), found.difficulty, found.level),
        retired=found.retired_at is not None,
    )


def _question_rows() -> Select:
    """One row per choice and per reference, each carrying the question, its set, topic and
    place in the set (a question with neither has one row, its part columns all NULL).

    The place and the set's size are read from the question and its set (the import keeps
    them); the neighbours are looked up in the set's order index, once (in a one-row derived
    table), so the cost does not grow with the size of the set.
    """
    q, other = Question, aliased(Question)
    in_set = (other.set_id == q.set_id) & other.retired_at.is_(None)
    before = tuple_(other.position, other.id) < tuple_(q.position, q.id)
    after = tuple_(other.position, other.id) > tuple_(q.position, q.id)
    previous_id = (
        select(other.id)
        .where(in_set, before)
        .order_by(other.position.desc(), other.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    next_id = (
        select(other.id).where(in_set, after).order_by(other.position, other.id).limit(1)
    ).scalar_subquery()
    head = (
        select(
            q.id,
            q.key,
            q.kind,
            q.revision,
            q.stem_md,
            q.explanation_md,
            QuestionSet.slug.label("set_slug"),
            QuestionSet.title.label("set_title"),
            Topic.slug.label("topic_slug"),
            Topic.title.label("topic_title"),
            previous_id.label("previous_id"),
            next_id.label("next_id"),
            q.ordinal,
            QuestionSet.question_count,
            open_errata_column(ProblemReport.question_id == q.id).label("errata"),
            q.versions,
            q.difficulty,
            q.level,
            q.retired_at,
        )
        .join(QuestionSet, q.set_id == QuestionSet.id)
        .outerjoin(Topic, q.topic_id == Topic.id)
        .where(q.id == bindparam("question_id"))
        .limit(1)  # keeps the derived table whole: its subqueries then run once, not per choice
        .subquery("head")
    )
    parts = _question_parts()
    return (
        select(head, parts.c.part, parts.c.part_id, parts.c.part_position, parts.c.text)
        .add_columns(parts.c.url, parts.c.version, parts.c.feedback, parts.c.fixed)
        .outerjoin(parts, parts.c.question_id == head.c.id)
        .order_by(parts.c.part, parts.c.part_position)
    )


def _question_parts() -> Subquery:
    """A question's choices and references as rows of one shape, each read by its index."""
    text = cast(null(), String)  # typed, so PostgreSQL needs no guess
    choices = select(
        Choice.question_id,
        literal_column("'choice'", String).label("part"),
        Choice.id.label("part_id"),
        Choice.position.label("part_position"),
        Choice.text_md.label("text"),
        text.label("url"),
        text.label("version"),
        Choice.feedback_md.label("feedback"),
        Choice.keeps_place.label("fixed"),
    ).where(Choice.question_id == bindparam("question_id"))
    references = select(
        QuestionReference.question_id,
        literal_column("'reference'", String),
        QuestionReference.id,
        QuestionReference.position,
        QuestionReference.title,
        QuestionReference.url,
        QuestionReference.version,
        text,
        false(),
    ).where(QuestionReference.question_id == bindparam("question_id"))
    return union_all(choices, references).subquery("part")


_QUESTION_ROWS = _question_rows()  # built once: building costs more than running it


_NOTE_LINKS = (
    select(
        Note.slug,
        Note.title,
        NoteSection.anchor,
        NoteSection.heading,
        QuestionNoteLink.origin,
        QuestionNoteLink.score,
        NoteSection.id,
        NoteSection.body_md,
    )
    .select_from(QuestionNoteLink)
    .join(NoteSection)
    .join(Note)
    .where(QuestionNoteLink.question_id == bindparam("question_id"))
    .order_by(QuestionNoteLink.origin, QuestionNoteLink.score.desc())
)


def _note_links(session: Session, question_id: int) -> tuple[NoteLink, ...]:
    rows = session.execute(_NOTE_LINKS, {"question_id": question_id}).all()
    return tuple(
        NoteLink(slug, title, anchor, heading, origin, score, excerpt(body), section_id)
        for slug, title, anchor, heading, origin, score, section_id, body in rows
    )


def links_of_questions(
    session: Session, question_ids: Sequence[int], min_score: float = 0.0
) -> dict[int, list[NoteLink]]:
    """The note sections linked to each of the questions, with each link's origin and score:
    explicit links first, then the best suggestions (those scoring at least `min_score`)."""
    rows = session.execute(
        select(
            QuestionNoteLink.question_id,
            Note.slug,
            Note.title,
            NoteSection.anchor,
            NoteSection.heading,
            QuestionNoteLink.origin,
            QuestionNoteLink.score,
        )
        .select_from(QuestionNoteLink)
        .join(NoteSection)
        .join(Note)
        .where(
            QuestionNoteLink.question_id.in_(question_ids),
            or_(QuestionNoteLink.origin == "explicit", QuestionNoteLink.score >= min_score),
        )
        .order_by(QuestionNoteLink.origin, QuestionNoteLink.score.desc())
    ).all()
    found: dict[int, list[NoteLink]] = {}
    for qid, slug, title, anchor, heading, origin, score in rows:
        found.setdefault(qid, []).append(NoteLink(slug, title, anchor, heading, origin, score))
    return found


def linked_sections(
    session: Session, question_ids: Sequence[int], min_score: float = 0.0
) -> dict[int, list[SectionRef]]:
    """The note sections linked to each of the questions, as `links_of_questions` lists them."""
    return {
        qid: [
            SectionRef(link.note_slug, link.note_title, link.anchor, link.heading) for link in links
        ]
        for qid, links in links_of_questions(session, question_ids, min_score).items()
    }


def questions_page(
    session: Session, *, set_slug: str | None, topic_slug: str | None, limit: int, offset: int
) -> tuple[int, tuple[QuestionSummary, ...]]:
    """Return the total and one page of questions, optionally filtered by set or topic."""
    where = []
    if set_slug is not None:
        where.append(QuestionSet.slug == set_slug)
    if topic_slug is not None:
        where.append(Question.topic_id.in_(select(Topic.id).where(Topic.slug == topic_slug)))
    total = session.scalar(select(func.count(Question.id)).join(QuestionSet).where(*where)) or 0
    return total, _question_summaries(session, *where, limit=limit, offset=offset)


def notes_list(session: Session) -> tuple[NoteSummary, ...]:
    """List every note."""
    return _note_summaries(session)[0]


def topic_outline(session: Session, limit: int) -> tuple[tuple[tuple[int, TopicSummary], ...], int]:
    """The topic tree as deep as fits in `limit` rows, with depths, and how many topics in all."""
    tree = _Tree(session)
    return tree.outline(limit), len(tree.topics)


def topics_list(session: Session) -> tuple[TopicSummary, ...]:
    """List the topic tree from its roots."""
    tree = _Tree(session)
    return tuple(tree.summary(t) for t in tree.children.get(None, []))


def topic_subtrees(session: Session) -> dict[str, set[int]]:
    """Map each topic slug to the ids of the topic and all its descendants."""
    rows = session.execute(select(Topic.id, Topic.slug, Topic.parent_id)).all()
    children: dict[int | None, list[int]] = {}
    for topic_id, _, parent_id in rows:
        children.setdefault(parent_id, []).append(topic_id)
    trees = {}
    for topic_id, slug, _ in rows:
        tree, todo = set(), [topic_id]
        while todo:
            node = todo.pop()
            if node not in tree:
                tree.add(node)
                todo.extend(children.get(node, []))
        trees[slug] = tree
    return trees


def media(session: Session, sha256: str) -> tuple[str, bytes]:
    """An image of the media store: its content type and bytes."""
    row = session.execute(
        select(Media.content_type, Media.data).where(Media.sha256 == sha256)
    ).first()
    if row is None:
        raise NotFound("There is no such image.")
    return row.content_type, row.data
