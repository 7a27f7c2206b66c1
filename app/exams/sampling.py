"""Drawing an attempt's questions (weighted by topic, no repeats) and snapshotting them."""

import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from app.content.blueprints import ExamBlueprint
from app.content.errata import disputed_keys
from app.content.markdown import render, render_inline
from app.content.models import (
    IN_USE,
    Choice,
    Question,
    QuestionReference,
    QuestionSet,
    Topic,
)
from app.content.queries import links_of_questions, topic_subtrees
from app.content.read_models import ChoiceView, NoteLink
from app.content.service import is_fixed_choice, shuffle_choices
from app.exams.errors import ExamError

if TYPE_CHECKING:
    from app.exams.service import ExamSpec


def ordered_question_ids(session: Session, *where: Any) -> tuple[int, ...]:
    """The ids of questions an exam may score that match where, in set and position order.

    A question whose key an open erratum disputes is left out until an author resolves it;
    practice still shows it, with the erratum. A retired question is left out for good.
    """
    return tuple(
        session.scalars(
            select(Question.id)
            .join(QuestionSet, Question.set_id == QuestionSet.id)
            .where(*where, IN_USE, Question.id.not_in(disputed_keys()))
            .order_by(QuestionSet.slug, Question.position)
        )
    )


def blueprint_spec(session: Session, blueprint: ExamBlueprint) -> "ExamSpec":
    """Turn a blueprint into the pool(s) an attempt draws from."""
    from app.exams.service import ExamSpec

    where = [QuestionSet.slug.in_(blueprint.sets)] if blueprint.sets else []
    pool = ordered_question_ids(session, *where)
    pools: list[tuple[float, tuple[int, ...]]] = []
    if blueprint.topics:
        trees = topic_subtrees(session)
        for slug, weight in blueprint.topics.items():
            ids = ordered_question_ids(session, *where, Question.topic_id.in_(trees.get(slug, ())))
            pools.append((weight, ids))
        pool = tuple(dict.fromkeys(qid for _, ids in pools for qid in ids))
    return ExamSpec(
        title=blueprint.title,
        question_ids=pool,
        count=blueprint.question_count,
        time_limit_s=blueprint.time_limit_s,
        pass_mark=blueprint.pass_mark,
        mode=blueprint.mode,
        shuffle_questions=blueprint.shuffle_questions,
        shuffle_choices=blueprint.shuffle_choices,
        partial_credit=blueprint.partial_credit,
        topic_pools=tuple(pools),
        reasoning=blueprint.reasoning,
        reasoning_ids=frozenset(
            session.scalars(
                select(Question.id).where(
                    Question.id.in_(pool), Question.level.in_(("apply", "analyse"))
                )
            )
            if blueprint.reasoning
            else ()
        ),
    )


def draw(spec: "ExamSpec", rng: random.Random) -> list[int]:
    """Pick the attempt's questions: each topic its weighted share, the rest from the pool."""
    count = min(spec.count, len(spec.question_ids))
    if count == 0:
        raise ExamError("There are no questions to draw this exam from yet.")
    picked: list[int] = []
    weights = [weight for weight, _ in spec.topic_pools]
    for (_, pool), share in zip(spec.topic_pools, shares(weights, count), strict=True):
        picked.extend(_sample(spec, pool, share, set(picked), rng))
    picked.extend(_sample(spec, spec.question_ids, count - len(picked), set(picked), rng))
    if spec.shuffle_questions:
        rng.shuffle(picked)
    else:
        order = {qid: n for n, qid in enumerate(spec.question_ids)}
        picked.sort(key=order.__getitem__)
    return picked


def _sample(
    spec: "ExamSpec", pool: Sequence[int], n: int, taken: set[int], rng: random.Random
) -> list[int]:
    """Up to n questions of pool not taken yet, the blueprint's share of them reasoning ones."""
    fresh = [qid for qid in pool if qid not in taken]
    n = min(n, len(fresh))
    reasoning = [qid for qid in fresh if qid in spec.reasoning_ids]
    first = rng.sample(reasoning, min(math.ceil(n * spec.reasoning / 100), len(reasoning)))
    chosen = set(first)
    return first + rng.sample([qid for qid in fresh if qid not in chosen], n - len(first))


def shares(weights: Sequence[float], count: int) -> list[int]:
    """Split count by weight (the largest remainders get the spare ones)."""
    total = sum(weights)
    if not total:
        return []
    exact = [count * weight / total for weight in weights]
    shares = [int(x) for x in exact]
    spare = count - sum(shares)
    for index in sorted(range(len(exact)), key=lambda i: shares[i] - exact[i])[:spare]:
        shares[index] += 1
    return shares


_SNAPSHOT_QUESTIONS = (
    select(
        Question.id,
        Question.revision,
        Question.kind,
        Question.stem_md,
        Question.explanation_md,
        Topic.slug,
        Topic.title,
    )
    .outerjoin(Topic, Question.topic_id == Topic.id)
    .where(Question.id.in_(bindparam("ids", expanding=True)))
)
_SNAPSHOT_CHOICES = (
    select(
        Choice.question_id,
        Choice.id,
        Choice.position,
        Choice.text_md,
        Choice.is_correct,
        Choice.keeps_place,
    )
    .where(Choice.question_id.in_(bindparam("ids", expanding=True)))
    .order_by(Choice.question_id, Choice.position)
)
_SNAPSHOT_REFERENCES = (
    select(
        QuestionReference.question_id,
        QuestionReference.url,
        QuestionReference.title,
        QuestionReference.version,
    )
    .where(QuestionReference.question_id.in_(bindparam("ids", expanding=True)))
    .order_by(QuestionReference.question_id, QuestionReference.position)
)


def snapshots(
    session: Session, question_ids: Sequence[int], shuffle: bool, rng: random.Random
) -> list[tuple[int, dict[str, Any]]]:
    """Copy each question as it is now: stem, choices in shown order, key, explanation, links
    and references.

    Plain rows, four statements for the whole attempt: starting an exam is one of the
    writes a crowd of learners makes at once.
    """
    connection, ids = session.connection(), {"ids": list(question_ids)}
    questions = {row.id: row for row in connection.execute(_SNAPSHOT_QUESTIONS, ids)}
    choices: dict[int, list[Any]] = {}
    for row in connection.execute(_SNAPSHOT_CHOICES, ids):
        choices.setdefault(row.question_id, []).append(row)
    references: dict[int, list[dict[str, str | None]]] = {}
    for ref in connection.execute(_SNAPSHOT_REFERENCES, ids):
        references.setdefault(ref.question_id, []).append(
            {"url": ref.url, "title": ref.title, "version": ref.version}
        )
    links = links_of_questions(session, question_ids)
    seed = str(rng.random())
    return [
        (
            qid,
            _snapshot(
                questions[qid],
                choices.get(qid, []),
                references.get(qid, []),
                links.get(qid, []),
                shuffle,
                f"{seed}:{qid}",
            ),
        )
        for qid in question_ids
    ]


def _link(link: NoteLink) -> dict[str, Any]:
    kept = ("note_slug", "note_title", "anchor", "heading", "origin", "score")
    return {key: getattr(link, key) for key in kept}


def _snapshot(
    question: Any,
    choice_rows: list[Any],
    references: list[dict[str, str | None]],
    links: list[NoteLink],
    shuffle: bool,
    seed: str,
) -> dict[str, Any]:
    choices = tuple(
        ChoiceView(
            c.id, c.position, render_inline(c.text_md), c.keeps_place or is_fixed_choice(c.text_md)
        )
        for c in choice_rows
    )
    shown = shuffle_choices(choices, seed) if shuffle else choices
    return {
        "question_id": question.id,
        "revision": question.revision,
        "kind": question.kind,
        "stem_md": question.stem_md,
        "stem_html": render(question.stem_md),
        "topic": {"slug": question.slug, "title": question.title} if question.slug else None,
        "choices": [{"id": c.id, "html": c.html} for c in shown],
        "correct_ids": [c.id for c in choice_rows if c.is_correct],
        "explanation_html": render(question.explanation_md) if question.explanation_md else "",
        # every link, with its origin and score: a page shows learners the ones they see
        "links": [_link(link) for link in links],
        "references": references,
    }
