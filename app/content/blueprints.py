"""Exam blueprints: content that says how a practice exam is drawn, timed and passed.

They travel with the rest of the content (the catalog, the JSON export and import), so they
live here; the exams feature samples, times and grades attempts from them.
"""

import re
from typing import Any

from sqlalchemy import JSON, Boolean, CheckConstraint, Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.content.bundle import BlueprintData, Report
from app.content.errors import InvalidContent
from app.content.models import QuestionSet, Topic
from app.db import Base

MODES = ("exam", "practice")


class ExamBlueprint(Base):
    __tablename__ = "exam_blueprint"
    __table_args__ = (
        CheckConstraint("mode IN ('exam', 'practice')", name="mode"),
        CheckConstraint("pass_mark >= 0 AND pass_mark <= 100", name="pass_mark"),
        CheckConstraint("question_count >= 1", name="question_count"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(120), unique=True)
    title: Mapped[str] = mapped_column(String(200))
    description_md: Mapped[str] = mapped_column(Text, default="")
    question_count: Mapped[int] = mapped_column(Integer)
    time_limit_s: Mapped[int | None] = mapped_column(Integer)  # None: untimed
    pass_mark: Mapped[int] = mapped_column(Integer, default=70)  # percent
    mode: Mapped[str] = mapped_column(String(10), default="exam")
    shuffle_questions: Mapped[bool] = mapped_column(Boolean, default=True)
    shuffle_choices: Mapped[bool] = mapped_column(Boolean, default=True)
    partial_credit: Mapped[bool] = mapped_column(Boolean, default=False)
    # Where questions come from: set slugs, and topic slugs with their weights.
    sets: Mapped[list[str]] = mapped_column(JSON, default=list)
    topics: Mapped[dict[str, float]] = mapped_column(JSON, default=dict)
    # at least this percent of an attempt's questions ask to apply or analyse, not recall
    reasoning: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    position: Mapped[int] = mapped_column(Integer, default=0)


# How learners see the exams listed: the longest (the mock exams) first, then in the order
# their files give (several files each start from the first place), then by title.
SHOWN_ORDER = (
    ExamBlueprint.question_count.desc(),
    ExamBlueprint.position,
    ExamBlueprint.title,
    ExamBlueprint.id,
)


def load_blueprints(session: Session, items: list[BlueprintData], report: Report) -> None:
    """Create or update blueprints by slug, after checking the sets and topics they draw from."""
    if not items:
        return
    existing = {b.slug: b for b in session.scalars(select(ExamBlueprint))}
    sets = set(session.scalars(select(QuestionSet.slug)))
    topics = set(session.scalars(select(Topic.slug)))
    for position, item in enumerate(items):
        check_blueprint(item, sets, topics)
        blueprint = existing.get(item.slug)
        if blueprint is None:
            blueprint = existing[item.slug] = ExamBlueprint(slug=item.slug)
            session.add(blueprint)
            report.count("exams_created")
        else:
            report.count("exams_updated")
        blueprint.title, blueprint.description_md = item.title, item.description
        blueprint.question_count, blueprint.time_limit_s = item.question_count, item.time_limit_s
        blueprint.pass_mark, blueprint.mode = item.pass_mark, item.mode
        blueprint.shuffle_questions, blueprint.shuffle_choices = (
            item.shuffle_questions,
            item.shuffle_choices,
        )
        blueprint.partial_credit, blueprint.position = item.partial_credit, position
        blueprint.sets, blueprint.topics = list(item.sets), dict(item.topics)
        blueprint.reasoning = item.reasoning


def check_blueprint(item: BlueprintData, sets: set[str], topics: set[str]) -> None:
    """Refuse a blueprint that is malformed or draws from sets or topics that do not exist."""
    name = f"exam {item.slug!r}"
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", item.slug) or len(item.slug) > 120:
        raise InvalidContent(item.line, f"{name}: the slug must be lower-case words joined by '-'")
    if not item.title.strip() or len(item.title) > 200:
        raise InvalidContent(item.line, f"{name}: the title must be 1 to 200 characters")
    if item.mode not in MODES:
        raise InvalidContent(item.line, f"{name}: mode must be 'exam' or 'practice'")
    if not 0 <= item.pass_mark <= 100:
        raise InvalidContent(item.line, f"{name}: pass_mark must be a percent from 0 to 100")
    if not 0 <= item.reasoning <= 100:
        raise InvalidContent(item.line, f"{name}: reasoning must be a percent from 0 to 100")
    if not 1 <= item.question_count <= 1000:
        raise InvalidContent(item.line, f"{name}: questions must be from 1 to 1000")
    if item.time_limit_s is not None and not 60 <= item.time_limit_s <= 86_400:
        raise InvalidContent(item.line, f"{name}: the time limit must be 1 minute to 24 hours")
    if not item.sets and not item.topics:
        raise InvalidContent(item.line, f"{name}: name the sets or topics to draw from")
    for slug in item.sets:
        if slug not in sets:
            raise InvalidContent(item.line, f"{name}: unknown question set {slug!r}")
    for slug, weight in item.topics.items():
        if slug not in topics:
            raise InvalidContent(item.line, f"{name}: unknown topic {slug!r}")
        if not 0 < weight <= 1000:
            raise InvalidContent(item.line, f"{name}: topic weights must be above 0")


def export_blueprints(session: Session) -> list[dict[str, Any]]:
    """Return every blueprint as the JSON export holds it."""
    blueprints = session.scalars(
        select(ExamBlueprint).order_by(ExamBlueprint.position, ExamBlueprint.slug)
    )
    return [
        {
            "slug": b.slug,
            "title": b.title,
            "description": b.description_md,
            "question_count": b.question_count,
            "time_limit_s": b.time_limit_s,
            "pass_mark": b.pass_mark,
            "mode": b.mode,
            "shuffle_questions": b.shuffle_questions,
            "shuffle_choices": b.shuffle_choices,
            "partial_credit": b.partial_credit,
            "sets": list(b.sets),
            "topics": dict(b.topics),
            "reasoning": b.reasoning,
        }
        for b in blueprints
    ]
