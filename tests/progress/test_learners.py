"""Scripted learners answer through the real app on a test clock; the dashboard must say the
plainly true thing about them: readiness, recall per topic, the weakest topics and the scores."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from tests.factories import choice_ids, log_in, question_id, tags

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
KEYS = [str(n) for n in range(1, 8)]  # the seed set's questions: the practice exam's pool
AT_OR_ABOVE = "at or above the pass mark"
Learner = Callable[[dict[str, bool]], None]


@pytest.fixture
def clock(app):  # type: ignore[no-untyped-def]
    """Move the app's clock: clock(moment)."""

    def move(moment: datetime) -> None:
        app.state.clock = lambda: moment

    move(T0)
    return move


@pytest.fixture
def ann(client: TestClient, make_user, clock) -> TestClient:  # type: ignore[no-untyped-def]
    make_user("ann")
    log_in(client, "ann")
    return client


@pytest.fixture
def answers(ann: TestClient, seeded) -> Learner:  # type: ignore[no-untyped-def]
    """Answer seed questions on their pages, right or wrong: answers({"1": True, ...})."""

    def give(outcomes: dict[str, bool]) -> None:
        for key, right in outcomes.items():
            good, bad = choice_ids(seeded, key)
            choice = good if right else bad[0]
            response = ann.post(f"/questions/{question_id(seeded, key)}", data={"choice": choice})
            assert response.status_code in (200, 303)

    return give


def _readiness(client: TestClient) -> str:
    """The text of the practice exam's readiness on the dashboard."""
    html = client.get("/progress").text
    section = html[html.index('id="readiness-heading"') :]
    return " ".join(section[: section.index("</li>")].split())


def _exam_json(client: TestClient) -> dict[str, object]:
    (exam,) = client.get("/api/v1/progress").json()["readiness"]
    return exam  # type: ignore[no-any-return]


def test_all_right_is_at_or_above_the_pass_mark(ann, answers):
    answers(dict.fromkeys(KEYS, True))
    text = _readiness(ann)
    assert "Expected <strong>100%</strong>" in text and AT_OR_ABOVE in text
    assert "7 of 7 answered, 7 right" in text


def test_all_wrong_is_far_below_the_pass_mark_and_every_topic_at_0(ann, answers):
    answers(dict.fromkeys(KEYS, False))
    text = _readiness(ann)
    assert "Expected <strong>0%</strong>" in text and "70 points below the pass mark" in text
    assert AT_OR_ABOVE not in text and "7 of 7 answered, 0 right" in text
    topics = ann.get("/api/v1/progress").json()["topics"]
    assert all(t["measured"] and t["recall"] == 0 and t["mastery"] == 0 for t in topics)
    html = ann.get("/progress").text
    assert html.count("recall now: 0%") == 5 and "recall now: 100%" not in html


def test_two_of_seven_right_is_below_the_pass_mark(ann, answers):
    answers({key: key in ("3", "7") for key in KEYS})
    text = _readiness(ann)
    assert "7 of 7 answered, 2 right" in text and AT_OR_ABOVE not in text
    assert "Expected <strong>28%</strong>" in text and "42 points below the pass mark" in text
    exam = _exam_json(ann)
    assert exam["expected_percent"] == 28 and exam["ready"] is False


def test_two_of_seven_right_after_right_answers_counts_the_latest(ann, answers):
    """Answered all right once, then 5 of them wrong: the latest answers are 2 of 7 right."""
    answers(dict.fromkeys(KEYS, True))
    answers({key: False for key in KEYS if key not in ("3", "7")})
    text = _readiness(ann)
    assert "7 of 7 answered, 2 right" in text and AT_OR_ABOVE not in text
    assert _exam_json(ann)["ready"] is False


def test_four_of_seven_answered_two_right_is_below(ann, answers):
    answers({"1": True, "2": True, "3": False, "4": False})
    text = _readiness(ann)
    assert "4 of 7 answered, 2 right" in text and AT_OR_ABOVE not in text
    # the two right ones, the three unseen ones as guesses: (2 + 3 x 0.25) / 7
    assert "Expected <strong>39%</strong>" in text


def test_one_answer_is_not_enough_for_a_forecast(ann, answers):
    answers({"7": True})
    text = _readiness(ann)
    assert "Not enough answers yet" in text and "1 of 7 answered, 1 right" in text
    assert "Expected" not in text and AT_OR_ABOVE not in text
    assert "answer 3 more of its questions" in text
    exam = _exam_json(ann)
    assert exam["expected_percent"] is None and exam["ready"] is False and exam["needed"] == 4


def test_a_month_later_the_forecast_has_faded(ann, answers, clock):
    answers(dict.fromkeys(KEYS, True))
    assert AT_OR_ABOVE in _readiness(ann)
    clock(T0 + timedelta(days=30))
    text = _readiness(ann)
    # FSRS: a question answered right once is recalled about 2 times in 3 a month later
    assert "Expected <strong>66%</strong>" in text and "4 points below the pass mark" in text
    topics = ann.get("/api/v1/progress").json()["topics"]
    assert all(0.6 < t["recall"] < 0.7 for t in topics)


def test_a_wrong_answer_just_given_is_not_recalled(ann, answers):
    answers({"3": False, "7": True})
    html = ann.get("/progress").text
    precision = html[html.index('id="mastery-precision-int8-calibration"') :]
    assert "recall now: 0%" in precision[: precision.index("</li>")]
    topics = {t["slug"]: t for t in ann.get("/api/v1/progress").json()["topics"]}
    assert topics["precision-int8-calibration"]["recall"] == 0
    assert topics["throughput-latency"]["recall"] == 1


def test_weakest_first_ranks_by_the_share_right_not_by_how_much_was_seen(ann, answers, clock):
    """Engine building all wrong today, latency right a month ago, deployment half answered."""
    clock(T0 - timedelta(days=30))
    answers({"7": True})
    clock(T0)
    answers({"4": False, "5": False, "3": True, "2": True})
    topics = ann.get("/api/v1/progress").json()["topics"]
    ranked = [t["slug"] for t in topics if t["measured"]]
    assert ranked == ["engine-building-refit", "throughput-latency", "precision-int8-calibration"]
    unmeasured = [t["slug"] for t in topics if not t["measured"]]
    assert unmeasured == ["deployment-jetson-dla", "sparsity"]  # after the measured ones
    html = ann.get("/progress").text
    meters = [m["aria-labelledby"] for m in tags(html, "meter")]
    assert meters == [f"mastery-{slug}" for slug in ranked]  # no bar for a topic not measured
    unknown = html[html.index('id="unmeasured-heading"') :]
    assert "Not enough answers yet" in unknown and 'id="mastery-deployment-jetson-dla"' in unknown


def _sit(db, user_id: int, at: datetime, right: set[int], slug: str = "tensorrt-practice-exam"):  # type: ignore[no-untyped-def]
    """Sit an exam at a moment, answering the questions at the `right` positions right."""
    from app.exams import service as exams
    from tests.exams.conftest import GRACE
    from tests.exams.helpers import answer, items, right_and_wrong, start

    attempt_id = start(db, user_id, at, slug)
    for item in items(db, attempt_id):
        good, bad = right_and_wrong(item)
        answer(
            db, attempt_id, user_id, item.position, [good if item.position in right else bad], at
        )
    with db.session_scope(write=True) as session:
        exams.submit(session, attempt_id, user_id, at + timedelta(minutes=5), GRACE)


def _user_id(db, name: str = "ann") -> int:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from app.accounts.models import User

    with db.session_scope() as session:
        return session.scalars(select(User.id).where(User.username == name)).one()


def test_two_of_seven_right_in_the_practice_exam_is_below_the_pass_mark(ann, seeded):
    _sit(seeded, _user_id(seeded), T0 - timedelta(hours=1), right={1, 2})
    text = _readiness(ann)
    assert "7 of 7 answered, 2 right" in text and AT_OR_ABOVE not in text
    assert _exam_json(ann)["ready"] is False


def test_each_exam_has_its_own_score_chart(ann, seeded):
    from app.content.blueprints import ExamBlueprint

    with seeded.session_scope(write=True) as session:
        session.add(
            ExamBlueprint(
                slug="short-exam",
                title="Short exam",
                question_count=3,
                time_limit_s=600,
                pass_mark=70,
                sets=[],
                topics={},
            )
        )
    user_id = _user_id(seeded)
    _sit(seeded, user_id, T0 - timedelta(days=3), right={1, 2, 3, 4, 5, 6})
    _sit(seeded, user_id, T0 - timedelta(days=2), right=set(), slug="short-exam")
    _sit(seeded, user_id, T0 - timedelta(days=1), right={1, 2, 3, 4, 5})
    html = ann.get("/progress").text
    charts = [t for t in tags(html, "svg") if t.get("role") == "img"]
    assert len(charts) == 2
    titles = [t["id"] for t in tags(html, "title") if t.get("id", "").startswith("chart-title")]
    assert titles == ["chart-title-1", "chart-title-2"]
    assert "TensorRT practice exam: scores, oldest first" in html
    assert "Short exam: scores, oldest first" in html
    first, second = html.split('<figure class="score-chart">')[1:3]
    assert first.count("chart-point") == 2 and second.count("chart-point") == 1
