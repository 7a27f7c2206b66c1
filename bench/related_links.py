"""Measure how far learners can trust suggested note links, against the authors' own links.

    python bench/related_links.py [--seed-dir seed]

loads the seed documents into a scratch SQLite database, then scores every question that an
author linked to a note section the way suggestions are scored, but without leaving out the
sections already linked: each question's best `MAX_SUGGESTIONS` sections scoring at least
`STUDYHALL_LINK_THRESHOLD`. A suggestion is right when an author linked the question to that
section. It prints, for each score, how many suggestions reach it, the share of them that
are right (precision; a lower bound, since an author's list may miss a fitting section) and
the share of the authors' links found (recall), and the lowest score where precision
reaches `--precision` (0.8): the value for `STUDYHALL_RELATED_THRESHOLD`.
"""

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path
from statistics import quantiles

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import PROJECT_ROOT, Settings
from app.content.linking import MAX_SUGGESTIONS, SectionIndex, question_texts
from app.content.models import QuestionNoteLink
from app.db import Database
from app.importers.service import import_document, seed_files
from app.migrate import upgrade

STEPS = [round(0.12 + 0.02 * n, 2) for n in range(20)]


def scored(session: Session, threshold: float) -> tuple[list[tuple[float, bool]], int]:
    """Each suggestion's score and whether an author linked the same pair; and how many
    links the authors made (to the questions with one)."""
    explicit: dict[int, set[int]] = {}
    for qid, sid in session.execute(
        select(QuestionNoteLink.question_id, QuestionNoteLink.section_id).where(
            QuestionNoteLink.origin == "explicit"
        )
    ):
        explicit.setdefault(qid, set()).add(sid)
    ids = sorted(explicit)
    texts = question_texts(session, ids)
    best = SectionIndex.load(session).best([texts[q] for q in ids], threshold, MAX_SUGGESTIONS)
    pairs = [
        (score, sid in explicit[q])
        for q, found in zip(ids, best, strict=True)
        for sid, score in found
    ]
    return pairs, sum(len(sections) for sections in explicit.values())


def precision_at(pairs: Sequence[tuple[float, bool]], threshold: float) -> float:
    """The share of suggestions scoring at least threshold that an author made too."""
    kept = [right for score, right in pairs if score >= threshold]
    return sum(kept) / len(kept) if kept else 1.0


def lowest_trusted(pairs: Sequence[tuple[float, bool]], precision: float) -> float:
    """The lowest step from which every higher step keeps the precision."""
    trusted = [
        t for t in STEPS if all(precision_at(pairs, u) >= precision for u in STEPS if u >= t)
    ]
    return min(trusted) if trusted else 1.0


def load(seed_dir: Path, folder: Path, threshold: float) -> Database:
    url = f"sqlite:///{folder / 'related.db'}"
    upgrade(url)
    db = Database(url)
    for path in seed_files(seed_dir):
        with db.session_scope(write=True) as session:
            import_document(session, path.read_bytes(), f"seed/{path.name}", threshold)
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed-dir", type=Path, default=PROJECT_ROOT / "seed")
    parser.add_argument("--precision", type=float, default=0.8)
    args = parser.parse_args()
    settings = Settings()
    with tempfile.TemporaryDirectory() as folder:
        db = load(args.seed_dir, Path(folder), settings.link_threshold)
        with db.session_scope() as session:
            pairs, links = scored(session, settings.link_threshold)
        db.dispose()
    right = [s for s, ok in pairs if ok]
    wrong = [s for s, ok in pairs if not ok]
    print(f"{len(pairs)} suggestions for the questions with {links} author links")
    for name, scores in (("matching", right), ("not matching", wrong)):
        q1, q2, q3 = quantiles(scores, n=4)
        print(f"  {name}: {len(scores)}, quartiles {q1:.2f} {q2:.2f} {q3:.2f}")
    print("score  kept  precision  recall")
    for step in STEPS:
        kept = [ok for s, ok in pairs if s >= step]
        print(
            f"{step:5.2f} {len(kept):5d} {precision_at(pairs, step):10.3f} {sum(kept) / links:7.3f}"
        )
    trusted = lowest_trusted(pairs, args.precision)
    print(f"lowest score with precision >= {args.precision}: {trusted:.2f}")
    print(f"STUDYHALL_RELATED_THRESHOLD is {settings.related_threshold:.2f}")


if __name__ == "__main__":
    main()
