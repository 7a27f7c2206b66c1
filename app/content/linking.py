"""Suggest question-to-note links by text similarity (TF-IDF cosine), through an inverted index.

The note sections are the index and each question is a query against it: term weights come
from the sections' document frequencies, and an inverted index (term -> the sections holding
it, with their weights) adds up a question's scores from the postings of its own words only.
Words in many sections are kept as dense rows instead, so a question's common words cost one
small matrix product: a library of 50,000 questions and 2,000 sections scores in seconds
rather than pair by pair.

Scores depend on the question's text and on the sections, so only what changed is scored
again: the questions an import created, edited or relinked; every question when note sections
changed (their frequencies weigh every score).

Authors' decisions hold whatever the scores say: a confirmed link is kept as an explicit one,
and a rejected pair is never suggested again (the next best section takes its place).
"""

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from types import ModuleType
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from app.content.models import Choice, LinkDecision, NoteSection, Question, QuestionNoteLink

if TYPE_CHECKING:
    import numpy as np

MAX_SUGGESTIONS = 3
CHUNK = 1000  # questions scored (and their links written) per transaction
DENSE_SHARE = 8  # a word in at least 1/8 of the sections gets a dense row
_WORD = re.compile(r"[a-z][a-z0-9]+|\d+[a-z]+[a-z0-9]*")
_STOP = frozenset(
    """a an and are as at be by can for from has have how in is it its of on or so such
    that the their this to was what when which while with without does do not only no
    all than then there these they into more most also other use used using will""".split()
)
# transaction(write) opens a transaction (a write one takes the write lock) and ends it
Transactions = Callable[[bool], AbstractContextManager[Session]]
Progress = Callable[[int, int], None]


def tokens(text: str) -> list[str]:
    """Split text into lower-case content words."""
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP]


def _numpy() -> ModuleType:
    """numpy, imported on first use rather than with this module: a serving worker that
    never links content does without it (about 20 MB)."""
    import numpy

    return numpy


class SectionIndex:
    """Note sections as TF-IDF vectors: common words in a dense table, rare ones in postings.

    A word in many sections has a row of scores per section (dense, so a question's common
    words cost one matrix product); a rarer word keeps the list of sections holding it (an
    inverted index, so it costs only those sections).
    """

    def __init__(self, sections: Sequence[tuple[int, str]]) -> None:
        np = _numpy()

        sections = sorted(sections)  # ties go to the older section, as they always have
        self.ids = [section_id for section_id, _ in sections]
        docs = [Counter(tokens(text)) for _, text in sections]
        df = Counter(word for doc in docs for word in doc)
        # smoothed, as scikit-learn does: a word in every section still counts a little
        self._idf = {word: 1 + math.log((1 + len(docs)) / (1 + n)) for word, n in df.items()}
        self._unseen = 1 + math.log(1 + len(docs))  # a word no section has
        common = sorted(word for word, n in df.items() if n * DENSE_SHARE >= len(docs))
        self._rows = {word: row for row, word in enumerate(common)}
        self._dense = np.zeros((len(common), len(docs)), dtype=np.float32)
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for column, doc in enumerate(docs):
            for word, weight in self._vector(doc).items():
                if word in self._rows:
                    self._dense[self._rows[word], column] = weight
                else:
                    columns, weights = postings.setdefault(word, ([], []))
                    columns.append(column)
                    weights.append(weight)
        self._postings = {
            word: (np.array(columns, dtype=np.int64), np.array(weights))
            for word, (columns, weights) in postings.items()
        }

    @classmethod
    def load(cls, session: Session) -> "SectionIndex":
        """Index every note section."""
        rows = session.execute(select(NoteSection.id, NoteSection.heading, NoteSection.body_md))
        return cls([(sid, f"{heading} {body}") for sid, heading, body in rows])

    def _vector(self, counts: Counter[str]) -> dict[str, float]:
        vector = {
            word: (1 + math.log(n)) * self._idf.get(word, self._unseen)
            for word, n in counts.items()
        }
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {word: v / norm for word, v in vector.items()}

    def best(
        self, texts: Sequence[str], threshold: float, limit: int = MAX_SUGGESTIONS
    ) -> list[list[tuple[int, float]]]:
        """Return, for each text, up to limit (section id, score) pairs scoring >= threshold."""
        if not self.ids:
            return [[] for _ in texts]
        np = _numpy()

        common = np.zeros((len(texts), len(self._rows)), dtype=np.float32)
        scores = np.zeros((len(texts), len(self.ids)))
        for i, text in enumerate(texts):
            for word, weight in self._vector(Counter(tokens(text))).items():
                if (row := self._rows.get(word)) is not None:
                    common[i, row] = weight
                elif (posting := self._postings.get(word)) is not None:
                    scores[i, posting[0]] += posting[1] * weight
        scores += common @ self._dense
        return [self._top(row, threshold, limit) for row in scores]

    def _top(self, scores: "np.ndarray", threshold: float, limit: int) -> list[tuple[int, float]]:
        np = _numpy()
        passed = np.flatnonzero(scores >= threshold)
        if len(passed) > limit:  # the best few first, then only those sorted
            passed = passed[np.argpartition(-scores[passed], limit - 1)[:limit]]
        order = passed[np.lexsort((passed, -scores[passed]))]
        return [(self.ids[i], float(scores[i])) for i in order]


def suggest_links(
    transaction: Transactions,
    question_ids: Collection[int] | None,
    threshold: float,
    progress: Progress | None = None,
) -> int:
    """Score the given questions (None: all) again and replace their suggested links.

    Reading and scoring happen outside write transactions; each chunk's links are written
    in a short one. Return how many suggestions were written.
    """
    if question_ids is not None and not question_ids:
        return 0
    with transaction(False) as session:
        index = SectionIndex.load(session)
        if question_ids is None:
            question_ids = session.scalars(select(Question.id).order_by(Question.id)).all()
        explicit = _pairs(session, QuestionNoteLink, QuestionNoteLink.origin == "explicit")
        rejected = _pairs(session, LinkDecision, LinkDecision.decision == "rejected")
    ids = sorted(question_ids)
    added = 0
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        with transaction(False) as session:
            texts = question_texts(session, chunk)
        rows = _suggestions(index, chunk, texts, threshold, explicit, rejected)
        with transaction(True) as session:
            session.execute(
                delete(QuestionNoteLink).where(
                    QuestionNoteLink.origin == "suggested", QuestionNoteLink.question_id.in_(chunk)
                )
            )
            if rows:
                session.execute(insert(QuestionNoteLink), rows)
        added += len(rows)
        if progress is not None:
            progress(start + len(chunk), len(ids))
    return added


def _pairs(session: Session, model: Any, where: Any) -> set[tuple[int, int]]:
    """The (question, section) pairs of the model's rows that match where."""
    rows = session.execute(select(model.question_id, model.section_id).where(where))
    return {(question_id, section_id) for question_id, section_id in rows}


def _suggestions(
    index: SectionIndex,
    chunk: list[int],
    texts: dict[int, str],
    threshold: float,
    explicit: set[tuple[int, int]],
    rejected: set[tuple[int, int]],
) -> list[dict[str, object]]:
    """The best few sections for each question: a rejected one makes room for the next best;
    one linked explicitly already is left out."""
    skipped = Counter(qid for qid, _ in rejected if qid in texts)
    limit = MAX_SUGGESTIONS + max(skipped.values(), default=0)
    found = index.best([texts[qid] for qid in chunk], threshold, limit)
    rows = []
    for qid, best in zip(chunk, found, strict=True):
        kept = [(sid, score) for sid, score in best if (qid, sid) not in rejected]
        rows += [
            {"question_id": qid, "section_id": sid, "origin": "suggested", "score": round(s, 4)}
            for sid, s in kept[:MAX_SUGGESTIONS]
            if (qid, sid) not in explicit
        ]
    return rows


def question_texts(session: Session, ids: list[int]) -> dict[int, str]:
    """The text of each question that suggestions compare: stem, explanation and choices."""
    parts: dict[int, list[str]] = {
        qid: [stem, explanation]
        for qid, stem, explanation in session.execute(
            select(Question.id, Question.stem_md, Question.explanation_md).where(
                Question.id.in_(ids)
            )
        ).all()
    }
    for qid, text in session.execute(
        select(Choice.question_id, Choice.text_md)
        .where(Choice.question_id.in_(ids))
        .order_by(Choice.question_id, Choice.position)
    ).all():
        parts[qid].append(text)
    return {qid: " ".join(texts) for qid, texts in parts.items()}
