"""Suggest question-to-note links by text similarity (TF-IDF cosine)."""

import math
import re
from collections import Counter

from sqlalchemy import delete, select
from sqlalchemy.orm import Session, selectinload

from app.content.models import NoteSection, Question, QuestionNoteLink

MAX_SUGGESTIONS = 3
_WORD = re.compile(r"[a-z][a-z0-9]+|\d+[a-z]+[a-z0-9]*")
_STOP = frozenset(
    """a an and are as at be by can for from has have how in is it its of on or so such
    that the their this to was what when which while with without does do not only no
    all than then there these they into more most also other use used using will""".split()
)


def tokens(text: str) -> list[str]:
    """Split text into lower-case content words."""
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP]


def _vectors(docs: list[list[str]]) -> list[dict[str, float]]:
    df = Counter(word for doc in docs for word in set(doc))
    n = len(docs)
    vectors = []
    for doc in docs:
        tf = Counter(doc)
        vec = {w: (1 + math.log(c)) * math.log((1 + n) / (1 + df[w])) for w, c in tf.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({w: v / norm for w, v in vec.items()})
    return vectors


def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(w, 0.0) for w, v in a.items())


def refresh_suggested_links(session: Session, threshold: float) -> int:
    """Replace every suggested link with fresh ones scoring at least threshold; return how many."""
    session.execute(delete(QuestionNoteLink).where(QuestionNoteLink.origin == "suggested"))
    questions = session.scalars(select(Question).options(selectinload(Question.choices))).all()
    sections = session.scalars(select(NoteSection)).all()
    if not questions or not sections:
        return 0
    explicit = set(
        session.execute(select(QuestionNoteLink.question_id, QuestionNoteLink.section_id)).all()
    )
    question_docs = [
        tokens(" ".join([q.stem_md, q.explanation_md, *(c.text_md for c in q.choices)]))
        for q in questions
    ]
    section_docs = [tokens(f"{s.heading} {s.body_md}") for s in sections]
    vectors = _vectors(question_docs + section_docs)
    added = 0
    for qi, question in enumerate(questions):
        scored = [
            (_cosine(vectors[qi], vectors[len(questions) + si]), section)
            for si, section in enumerate(sections)
        ]
        best = sorted((p for p in scored if p[0] >= threshold), key=lambda p: -p[0])
        for score, section in best[:MAX_SUGGESTIONS]:
            if (question.id, section.id) not in explicit:
                session.add(
                    QuestionNoteLink(
                        question_id=question.id,
                        section_id=section.id,
                        origin="suggested",
                        score=round(score, 4),
                    )
                )
                added += 1
    session.flush()
    return added
