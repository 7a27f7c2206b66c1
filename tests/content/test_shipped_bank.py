"""The content in seed/ is a bank learners can trust: every answer cites its source, every
subtopic has enough questions and a note, and the content checks find nothing."""

from collections import Counter

from sqlalchemy import select

from app.content.checks import url_problem
from app.content.models import Note, Question, QuestionReference, Topic
from app.content.quality import TOPIC_MIN, check_content
from app.db import Database


def test_every_question_cites_versioned_https_sources(seeded: Database):
    with seeded.session_scope() as session:
        questions = set(session.scalars(select(Question.id)))
        rows = session.execute(
            select(QuestionReference.question_id, QuestionReference.url, QuestionReference.version)
        ).all()
    assert questions
    assert questions - {qid for qid, _, _ in rows} == set(), "questions without a reference"
    bad = [
        (qid, url, version)
        for qid, url, version in rows
        if url_problem(url) is not None
        or not url.startswith("https://")
        or not (version or "").strip()
    ]
    assert bad == []


def test_every_leaf_topic_with_questions_has_enough_of_them_and_a_note(seeded: Database):
    with seeded.session_scope() as session:
        topics = session.execute(select(Topic.id, Topic.slug, Topic.parent_id)).all()
        questions = Counter(session.scalars(select(Question.topic_id)))
        notes = Counter(session.scalars(select(Note.topic_id)))
    parents = {parent_id for _, _, parent_id in topics}
    leaves = {topic_id: slug for topic_id, slug, _ in topics if topic_id not in parents}
    held = {slug: questions[topic_id] for topic_id, slug in leaves.items() if questions[topic_id]}
    assert held
    assert {slug: n for slug, n in held.items() if n < TOPIC_MIN} == {}
    assert [slug for topic_id, slug in leaves.items() if slug in held and not notes[topic_id]] == []


def test_the_content_checks_find_nothing_in_the_shipped_content(seeded: Database):
    with seeded.session_scope() as session:
        report = check_content(session)
    assert report.questions > 0
    assert [f"{f.kind} {f.subject}: {f.message}" for f in report.findings] == []
