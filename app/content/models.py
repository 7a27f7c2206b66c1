"""Content tables: topics, question sets, questions, choices, notes and their links."""

from datetime import datetime
from typing import Optional

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db import Base, UTCDateTime, utcnow


class Topic(Base):
    __tablename__ = "topic"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(120), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    description_md: Mapped[str] = mapped_column(Text, default="")
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("topic.id", ondelete="SET NULL"), index=True
    )
    position: Mapped[int] = mapped_column(Integer, default=0)

    parent: Mapped[Optional["Topic"]] = relationship(remote_side="Topic.id", lazy="raise")


class QuestionSet(Base):
    __tablename__ = "question_set"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(120), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    source: Mapped[str] = mapped_column(String(300), default="")
    topic_id: Mapped[int | None] = mapped_column(
        ForeignKey("topic.id", ondelete="SET NULL"), index=True
    )
    imported_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # kept by the import with `Question.ordinal`, so a question's page counts nothing
    question_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    topic: Mapped[Topic | None] = relationship(lazy="raise")


class Question(Base):
    __tablename__ = "question"
    __table_args__ = (
        UniqueConstraint("set_id", "key"),
        CheckConstraint("kind IN ('single', 'multi')", name="kind"),
        # a question's place in its set and its neighbours, without reading the whole set
        Index("ix_question_set_order", "set_id", "position", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    set_id: Mapped[int] = mapped_column(ForeignKey("question_set.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(60))
    position: Mapped[int] = mapped_column(Integer)
    # the question's place in its set, from 1 in (position, id) order; kept by the import
    ordinal: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    topic_id: Mapped[int | None] = mapped_column(
        ForeignKey("topic.id", ondelete="SET NULL"), index=True
    )
    stem_md: Mapped[str] = mapped_column(Text)
    explanation_md: Mapped[str] = mapped_column(Text, default="")
    kind: Mapped[str] = mapped_column(String(10), default="single")
    source: Mapped[str] = mapped_column(String(300), default="")
    # the product versions it holds for ("TensorRT 10.x"), how hard it is, what it asks (the
    # values checked by app.content.checks)
    versions: Mapped[list[str]] = mapped_column(JSON, default=list, server_default="[]")
    difficulty: Mapped[str | None] = mapped_column(String(10))
    level: Mapped[str | None] = mapped_column(String(10))
    accepted: Mapped[list[str]] = mapped_column(JSON, default=list, server_default="[]")
    revision: Mapped[int] = mapped_column(Integer, default=1)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # set when an author retires it: it leaves practice, set lists and new exams; its
    # history, past attempts and answers stay
    retired_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    question_set: Mapped[QuestionSet] = relationship(lazy="raise")
    topic: Mapped[Topic | None] = relationship(lazy="raise")
    choices: Mapped[list["Choice"]] = relationship(
        lazy="raise", order_by="Choice.position", cascade="all, delete-orphan"
    )
    links: Mapped[list["QuestionNoteLink"]] = relationship(
        lazy="raise", cascade="all, delete-orphan"
    )
    references: Mapped[list["QuestionReference"]] = relationship(
        lazy="raise", order_by="QuestionReference.position", cascade="all, delete-orphan"
    )


IN_USE = Question.retired_at.is_(None)  # questions practice, set lists and new exams show


class Choice(Base):
    __tablename__ = "choice"
    __table_args__ = (UniqueConstraint("question_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    text_md: Mapped[str] = mapped_column(Text)
    is_correct: Mapped[bool] = mapped_column(default=False)
    # shown to a learner who chose it, after the answer: why it is right or wrong
    feedback_md: Mapped[str] = mapped_column(Text, default="", server_default="")
    # an author's word that it keeps its place when choices are shuffled (besides the
    # "All of the above" kind, which always does)
    keeps_place: Mapped[bool] = mapped_column(default=False, server_default=false())


class QuestionRevision(Base):
    """A question's authored content as one save left it, with who saved it, when and why.

    Every save that changes a question writes one (the editor's, an import's); `number`
    counts up per question from 1, and the newest is what the editor's lock compares. (It
    is apart from `Question.revision`, which counts changes to what a learner answers and is
    what answers and exam snapshots record.) `content` is the question as
    `revisions.snapshots` builds it, so an old revision can be shown, compared and restored.
    """

    __tablename__ = "question_revision"
    __table_args__ = (UniqueConstraint("question_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    author_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True
    )
    saved_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    note: Mapped[str] = mapped_column(String(200))
    content: Mapped[dict] = mapped_column(JSON)


class QuestionReference(Base):
    """A source that backs a question's answer: a web page, and the product version it is for.

    A table of its own rather than columns on `question`: altering that table on SQLite
    rebuilds it, and the rebuild drops the search index's triggers.
    """

    __tablename__ = "question_reference"
    __table_args__ = (UniqueConstraint("question_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    title: Mapped[str | None] = mapped_column(String(300))
    url: Mapped[str] = mapped_column(String(2000))
    version: Mapped[str | None] = mapped_column(String(80))


class Note(Base):
    __tablename__ = "note"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(120), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    author: Mapped[str] = mapped_column(String(200), default="")
    topic_id: Mapped[int | None] = mapped_column(
        ForeignKey("topic.id", ondelete="SET NULL"), index=True
    )
    source: Mapped[str] = mapped_column(String(300), default="")
    body_md: Mapped[str] = mapped_column(Text)
    revision: Mapped[int] = mapped_column(Integer, default=1)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    topic: Mapped[Topic | None] = relationship(lazy="raise")
    sections: Mapped[list["NoteSection"]] = relationship(
        lazy="raise", order_by="NoteSection.position", cascade="all, delete-orphan"
    )


class NoteSection(Base):
    __tablename__ = "note_section"
    __table_args__ = (UniqueConstraint("note_id", "anchor"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    note_id: Mapped[int] = mapped_column(ForeignKey("note.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    anchor: Mapped[str] = mapped_column(String(120))
    heading: Mapped[str] = mapped_column(String(300))
    level: Mapped[int] = mapped_column(Integer, default=2)
    body_md: Mapped[str] = mapped_column(Text, default="")

    links: Mapped[list["QuestionNoteLink"]] = relationship(
        lazy="raise", cascade="all, delete-orphan"
    )


class NoteRevision(Base):
    """A note's text as one save left it, with who saved it, when and why.

    `content` holds the title and the note's Markdown, whose headings name the anchors that
    differ from their text, so restoring a revision keeps every section's anchor. Every
    save that changes a note keeps one (the note editor's, an import's); `number` counts up
    per note from 1, and the newest is what the editor's lock compares.
    """

    __tablename__ = "note_revision"
    __table_args__ = (UniqueConstraint("note_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    note_id: Mapped[int] = mapped_column(ForeignKey("note.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    author_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True
    )
    saved_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    note: Mapped[str] = mapped_column(String(200))
    content: Mapped[dict] = mapped_column(JSON)


class QuestionNoteLink(Base):
    __tablename__ = "question_note_link"
    __table_args__ = (
        UniqueConstraint("question_id", "section_id"),
        CheckConstraint("origin IN ('explicit', 'suggested')", name="origin"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("question.id", ondelete="CASCADE"), index=True
    )
    section_id: Mapped[int] = mapped_column(
        ForeignKey("note_section.id", ondelete="CASCADE"), index=True
    )
    origin: Mapped[str] = mapped_column(String(10))
    score: Mapped[float] = mapped_column(Float, default=1.0)


class LinkDecision(Base):
    """An author's word on a suggested link, kept apart from the links an import rewrites.

    A confirmed pair stays linked whatever its similarity becomes; a rejected pair is never
    suggested again. Keyed by question and section ids, which re-imports keep.
    """

    __tablename__ = "link_decision"
    __table_args__ = (
        UniqueConstraint("question_id", "section_id"),
        CheckConstraint("decision IN ('confirmed', 'rejected')", name="decision"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"))
    section_id: Mapped[int] = mapped_column(
        ForeignKey("note_section.id", ondelete="CASCADE"), index=True
    )
    decision: Mapped[str] = mapped_column(String(10))
    decided_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True
    )
    decided_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ContentVersion(Base):
    """A counter every content write bumps, so each worker can tell when its cache is stale."""

    __tablename__ = "content_version"

    id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    # the digest of the seed folder last loaded (`studyhall seed`), None when never loaded
    seed_digest: Mapped[str | None] = mapped_column(String(64))


class Media(Base):
    """An image shown in content, stored once by the SHA-256 of its bytes (served at
    /media/{sha256}/{name}); the first name it came with is kept."""

    __tablename__ = "media"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    content_type: Mapped[str] = mapped_column(String(40))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
