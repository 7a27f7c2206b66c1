"""Custom exams: topics, count, time or untimed, mode, and the wrong / unseen filters."""

from datetime import timedelta

import pytest

from app.db import utcnow
from app.exams import service
from app.exams.custom import CustomExam, custom_paper
from app.exams.errors import InvalidExamSpec
from tests.exams.conftest import GRACE, START
from tests.exams.helpers import attempt, items, right_and_wrong
from tests.exams.test_routes import Clock
from tests.factories import choice_ids, question_id

ROOT = "inference-optimization-tensorrt"


def start(db, user_id, **fields):  # type: ignore[no-untyped-def]
    wanted = CustomExam(**{"topics": (ROOT,), "count": 5, "minutes": 0, **fields})
    with db.session_scope(write=True) as session:
        drawn = custom_paper(session, user_id, wanted)
        return service.sit(session, user_id, drawn, START, GRACE).attempt_id


def test_a_custom_exam_draws_from_a_topic_and_its_subtopics(seeded, learner):
    attempt_id = start(seeded, learner, minutes=5)
    found = attempt(seeded, attempt_id)
    assert found.question_count == 5 and found.deadline_at == START + timedelta(minutes=5)
    assert found.title == "Custom exam: Inference Optimization & TensorRT"


def test_untimed_and_several_open_at_once(seeded, learner):
    first, second = start(seeded, learner), start(seeded, learner)
    assert first != second
    assert attempt(seeded, first).deadline_at is None


def test_only_one_subtopic(seeded, learner):
    attempt_id = start(seeded, learner, topics=("engine-building-refit",), count=10)
    assert len(items(seeded, attempt_id)) == 2


def test_only_unseen_leaves_out_what_was_practised_or_sat(seeded, learner):
    from app.progress.service import Answer, record_answers

    with seeded.session_scope(write=True) as session:
        record_answers(
            session, learner, [Answer(question_id(seeded, "1"), 1, [1], False, utcnow())]
        )
    sat = start(seeded, learner, topics=("engine-building-refit",))
    unseen = start(seeded, learner, count=10, only_unseen=True)
    left_out = {question_id(seeded, "1")} | {i.question_id for i in items(seeded, sat)}
    assert not left_out & {i.question_id for i in items(seeded, unseen)}
    assert len(items(seeded, unseen)) == 4


def test_only_wrong_takes_what_was_answered_wrong(seeded, learner):
    from app.progress.service import Answer, record_answers

    right, wrong = choice_ids(seeded, "3")
    with seeded.session_scope(write=True) as session:
        record_answers(
            session, learner, [Answer(question_id(seeded, "3"), 1, [wrong[0]], False, utcnow())]
        )
        record_answers(
            session, learner, [Answer(question_id(seeded, "4"), 1, [right], True, utcnow())]
        )
    attempt_id = start(seeded, learner, count=10, only_wrong=True)
    assert [i.question_id for i in items(seeded, attempt_id)] == [question_id(seeded, "3")]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"topics": ()}, "topics"),
        ({"topics": ("nope",)}, "topics"),
        ({"count": 0}, "count"),
        ({"count": 201}, "count"),
        ({"minutes": 601}, "minutes"),
        ({"mode": "quiz"}, "mode"),
        ({"only_wrong": True, "only_unseen": True}, "only_wrong"),
        ({"only_wrong": True}, "topics"),  # nothing answered wrong yet
    ],
)
def test_impossible_custom_exams_are_refused(seeded, learner, fields, field):
    with pytest.raises(InvalidExamSpec) as caught:
        start(seeded, learner, **fields)
    assert caught.value.field == field


@pytest.fixture
def ann(seeded, user_client, app):  # type: ignore[no-untyped-def]
    app.state.exam_clock = Clock()
    return user_client("ann")


def test_the_custom_form_starts_an_exam(ann, seeded):
    page = ann.get("/exams").text
    assert "Build your own exam" in page and 'value="sparsity"' in page
    response = ann.post(
        "/exams/custom",
        data={
            "topics": ["sparsity", "engine-building-refit"],
            "count": "3",
            "minutes": "0",
            "mode": "practice",
        },
        follow_redirects=False,
    )
    assert response.status_code == 303
    attempt_id = int(response.headers["location"].rsplit("/", 1)[1])
    shown = items(seeded, attempt_id)
    assert len(shown) == 3 and attempt(seeded, attempt_id).mode == "practice"
    # practice mode: feedback right after the answer, and the answer stays
    right, wrong = right_and_wrong(shown[0])
    ann.post(f"/attempts/{attempt_id}/questions/1", data={"choice": str(wrong)})
    page = ann.get(f"/attempts/{attempt_id}/questions/1").text
    assert "Not quite." in page and "Right answer" in page
    ann.post(f"/attempts/{attempt_id}/questions/1", data={"choice": str(right)})
    assert items(seeded, attempt_id)[0].selected_ids == [wrong]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"count": "3", "minutes": "0"}, "Choose at least one topic."),
        ({"topics": "sparsity", "count": "many"}, "Enter how many questions"),
        ({"topics": "sparsity", "count": "3", "minutes": "-1"}, "Enter the minutes"),
        ({"topics": "sparsity", "count": "3", "minutes": "9999"}, "0 (untimed) to 600"),
        ({"topics": "sparsity", "count": "3", "mode": "quiz"}, "Choose exam or practice"),
        ({"topics": "zzz", "count": "3"}, "There is no topic called"),
        ({"topics": "sparsity", "count": "9" * 20}, "Some of that input was not valid"),
    ],
)
def test_bad_custom_forms_are_shown_again_with_a_message(ann, data, message):
    response = ann.post("/exams/custom", data=data, follow_redirects=False)
    assert response.status_code == 422
    assert message in response.text
