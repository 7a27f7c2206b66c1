"""Problem reports on questions and note sections, and the errata they become.

A learner reports a problem (a wrong answer, a typo, something outdated); authors see the
open reports and resolve them with a note. A report marked as an erratum is shown on the
content it is about until it is resolved. Seed errata arrive as content (`errata` in a
bundle) and are matched by a key made of their target and text, so loading them again
never duplicates one, nor reopens one an author resolved.
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    String,
    Text,
    cast,
    func,
    literal_column,
    or_,
    select,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.content.bundle import ErratumData, Report
from app.content.errors import InvalidContent
from app.content.models import Note, NoteSection, Question, QuestionSet
from app.db import Base, UTCDateTime, utcnow

KINDS = {
    "wrong-answer": "Wrong answer",
    "typo": "Typo",
    "outdated": "Outdated",
    "other": "Other",
}


class ProblemReport(Base):
    __tablename__ = "problem_report"
    __table_args__ = (
        CheckConstraint("kind IN ('wrong-answer', 'typo', 'outdated', 'other')", name="kind"),
        CheckConstraint("status IN ('open', 'resolved')", name="status"),
        CheckConstraint("(question_id IS NULL) <> (section_id IS NULL)", name="one_target"),
        Index("ix_problem_report_status_created_at", "status", "created_at"),
        # A page asks for its content's open errata: with the status in the same index SQLite
        # takes it over the status index, which would scan every open report in the library.
        Index("ix_problem_report_question_id_status", "question_id", "status"),
        Index("ix_problem_report_section_id_status", "section_id", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int | None] = mapped_column(ForeignKey("question.id", ondelete="CASCADE"))
    section_id: Mapped[int | None] = mapped_column(
        ForeignKey("note_section.id", ondelete="CASCADE")
    )
    kind: Mapped[str] = mapped_column(String(20))
    text: Mapped[str] = mapped_column(Text)
    erratum: Mapped[bool] = mapped_column(Boolean, default=False)  # shown on the content
    status: Mapped[str] = mapped_column(String(10), default="open")
    reporter_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    resolution: Mapped[str] = mapped_column(Text, default="")
    resolved_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True
    )
    resolved_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    source_key: Mapped[str | None] = mapped_column(String(64), unique=True)  # seed errata


TEXT_MAX = 1000  # characters of a report or a resolution
TEXT_MIN = 5
SEP, END = "\x1f", "\x1e"  # no text holds control characters: every input refuses them


@dataclass(frozen=True)
class Erratum:
    """An open erratum as the content pages show it."""

    kind: str
    text: str

    @property
    def label(self) -> str:
        return KINDS.get(self.kind, self.kind)


def open_errata_column(target: Any) -> Any:
    """A column packing the open errata of the question or section `target` refers to.

    One column of a query the page runs anyway, so showing errata costs no extra statement.
    """
    entry = cast(ProblemReport.id, String) + SEP + ProblemReport.kind + SEP + ProblemReport.text
    # the separator written into the statement, so the compiled statement is the same each time
    return (
        select(func.aggregate_strings(entry, literal_column(f"'{END}'")))  # type: ignore[arg-type]
        .where(target, ProblemReport.status == "open", ProblemReport.erratum.is_(True))
        .scalar_subquery()
    )


def disputed_keys() -> Any:
    """The questions whose key an open erratum says is wrong: no exam scores them."""
    return select(ProblemReport.question_id).where(
        ProblemReport.question_id.is_not(None),
        ProblemReport.kind == "wrong-answer",
        ProblemReport.status == "open",
        ProblemReport.erratum.is_(True),
    )


def unpack_errata(packed: str | None) -> tuple[Erratum, ...]:
    """Read what `open_errata_column` packed, oldest first."""
    if not packed:
        return ()
    entries = sorted((entry.split(SEP, 2) for entry in packed.split(END)), key=lambda e: int(e[0]))
    return tuple(Erratum(kind, text) for _, kind, text in entries)


# --- seed errata, loaded with the content ---------------------------------------------------


def erratum_key(item: ErratumData) -> str:
    """The key a seed erratum is known by: loading it again finds it, resolved or not."""
    return hashlib.sha256(f"{item.target}\n{item.kind}\n{item.text}".encode()).hexdigest()


def check_errata(items: list[ErratumData], questions: set[str], sections: set[str]) -> None:
    """Refuse an erratum that is malformed or about content that does not exist."""
    for item in items:
        if item.kind not in KINDS:
            raise InvalidContent(item.line, f"kind must be one of {', '.join(KINDS)}")
        if not TEXT_MIN <= len(item.text.strip()) <= TEXT_MAX:
            raise InvalidContent(item.line, f"text must be {TEXT_MIN} to {TEXT_MAX} characters")
        known = sections if "#" in item.target else questions
        if item.target not in known:
            what = "note section" if "#" in item.target else "question"
            raise InvalidContent(item.line, f"no {what} {item.target!r}")


def load_errata(session: Session, items: list[ErratumData], report: Report) -> None:
    """File each seed erratum once, shown on its content; a known one is left as it is.

    A seed erratum still open on content the file speaks of, but no longer in the file, was
    reworded or withdrawn: it is resolved, so a reworded one does not show twice.
    """
    keys = {erratum_key(item): item for item in items}
    known = set(
        session.scalars(select(ProblemReport.source_key).where(ProblemReport.source_key.in_(keys)))
    )
    questions, sections = _targets(session, [item.target for item in items])
    for stale in session.scalars(
        select(ProblemReport).where(
            ProblemReport.source_key.is_not(None),
            ProblemReport.source_key.not_in(keys),
            ProblemReport.status == "open",
            or_(
                ProblemReport.question_id.in_(questions.values()),
                ProblemReport.section_id.in_(sections.values()),
            ),
        )
    ):
        stale.status, stale.resolved_at = "resolved", utcnow()
        stale.resolution = "Replaced by the errata file's current wording."
        report.count("errata_resolved")
    for key, item in keys.items():
        if key in known:
            report.count("errata_unchanged")
            continue
        target_id = (sections if "#" in item.target else questions)[item.target]
        column = "section_id" if "#" in item.target else "question_id"
        report_row = ProblemReport(
            kind=item.kind, text=item.text.strip(), erratum=True, source_key=key
        )
        setattr(report_row, column, target_id)
        session.add(report_row)
        report.count("errata_created")
    session.flush()


def _targets(session: Session, refs: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """The ids of the questions ("set/key") and note sections ("note#anchor") named."""
    wanted_sets = {ref.rpartition("/")[0] for ref in refs if "#" not in ref}
    wanted_notes = {ref.partition("#")[0] for ref in refs if "#" in ref}
    questions = {
        f"{slug}/{key}": qid
        for slug, key, qid in session.execute(
            select(QuestionSet.slug, Question.key, Question.id)
            .join(Question)
            .where(QuestionSet.slug.in_(wanted_sets))
        )
    }
    sections = {
        f"{slug}#{anchor}": sid
        for slug, anchor, sid in session.execute(
            select(Note.slug, NoteSection.anchor, NoteSection.id)
            .join(Note)
            .where(Note.slug.in_(wanted_notes))
        )
    }
    return questions, sections
