"""Readiness and the score chart, computed from hand-built histories."""

from datetime import UTC, datetime, timedelta

import pytest

from app.progress import queries
from app.progress.chart import score_chart
from app.progress.read_models import ExamScore, Readiness
from app.progress.readiness import (
    UNSEEN_RECALL,
    Cell,
    ExamPlan,
    expected_score,
    mean_recall,
    readiness,
)

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


def test_unseen_questions_count_as_a_guess_and_seen_ones_with_their_recall():
    assert mean_recall([]) is None
    assert mean_recall([Cell(4)]) == UNSEEN_RECALL
    # two seen at 0.9 and 0.7, two unseen at 0.25
    assert mean_recall([Cell(3, 2, 1.6), Cell(1)]) == pytest.approx((1.6 + 0.5) / 4)


def test_the_expected_score_weighs_each_topic_by_its_weight():
    strong, weak = [Cell(2, 2, 1.8)], [Cell(2)]
    assert expected_score(strong + weak, []) == pytest.approx((1.8 + 0.5) / 4)
    assert expected_score(strong + weak, [(3, strong), (1, weak)]) == pytest.approx(
        (3 * 0.9 + 1 * 0.25) / 4
    )
    # a weighted topic without questions takes its share from the whole pool
    whole = (1.8 + 0.5) / 4
    assert expected_score(strong + weak, [(1, strong), (1, [])]) == pytest.approx((0.9 + whole) / 2)
    assert expected_score([], [(1, [])]) is None


def test_readiness_draws_on_the_exams_sets_and_topic_subtrees():
    cells = {
        ("a", 1): Cell(2, 2, 2.0, right=2),
        ("a", 2): Cell(2),
        ("b", 1): Cell(4, 4, 0.4, right=1),
        ("b", None): Cell(2),
    }
    by_set = readiness(ExamPlan("x", "X", 70, ("a",), ()), cells)
    assert (by_set.questions, by_set.seen, by_set.needed) == (4, 2, 2)
    assert by_set.expected == pytest.approx((2.0 + 0.5) / 4) and by_set.expected_percent == 62
    assert not by_set.ready
    everything = readiness(ExamPlan("y", "Y", 20, (), ()), cells)
    assert everything.questions == 10 and everything.ready
    weighted = readiness(ExamPlan("z", "Z", 50, (), ((1.0, frozenset({1, 3})),)), cells)
    assert (weighted.questions, weighted.seen) == (6, 6)
    assert weighted.expected == pytest.approx(2.4 / 6) and weighted.right == 3


def test_the_forecast_is_never_above_the_share_of_latest_answers_right():
    # a heavily weighted topic all right, a light one mostly wrong: 3 of 7 right in all
    cells = {("a", 1): Cell(2, 2, 2.0, right=2), ("a", 2): Cell(5, 5, 1.0, right=1)}
    found = readiness(
        ExamPlan("x", "X", 50, (), ((9.0, frozenset({1})), (1.0, frozenset({2})))), cells
    )
    assert found.expected == pytest.approx(3 / 7) and found.expected_percent == 42
    assert not found.ready


def test_readiness_of_an_exam_without_questions_is_unknown():
    found = readiness(ExamPlan("x", "X", 70, ("none",), ()), {("a", 1): Cell(2)})
    assert found.expected is None and found.expected_percent is None and not found.ready
    assert Readiness("x", "X", 70, 10, 5, 0.7, right=4, needed=5).ready


def _score(n: int, percent: float, passed: bool, mark: int = 70) -> ExamScore:
    return ExamScore(n, f"Exam {n}", T0 + timedelta(days=n), percent, mark, passed)


def test_the_chart_spreads_attempts_evenly_and_puts_scores_on_a_0_to_100_scale():
    assert score_chart([]) is None
    chart = score_chart([_score(1, 40, False), _score(2, 100, True), _score(3, 70, True)])
    assert chart is not None
    xs = [p.x for p in chart.points]
    assert xs[0] == chart.left and xs[-1] == chart.right and xs[1] == (xs[0] + xs[2]) / 2
    assert chart.points[1].y == chart.top and chart.grid[0] == (chart.bottom, 0)
    assert chart.points[0].y == pytest.approx(chart.bottom - 0.4 * (chart.bottom - chart.top))
    assert chart.line.count(",") == 3 and chart.pass_y == chart.points[2].y


def test_a_single_attempt_stands_in_the_middle_with_the_pass_mark_across():
    chart = score_chart([_score(1, 55, False, mark=60)])
    assert chart is not None
    (point,) = chart.points
    assert point.x == (chart.left + chart.right) / 2
    assert chart.pass_line.startswith(f"{chart.left},") and f"{chart.right}," in chart.pass_line


def test_a_learner_with_no_history_has_no_forecast_yet(seeded, make_user):
    user = make_user("ann")
    with seeded.session_scope() as session:
        view = queries.dashboard(session, user.id, T0)
    assert view.empty and view.chart is None and view.seconds == 0
    (exam,) = view.readiness
    assert exam.slug == "tensorrt-practice-exam" and exam.expected == UNSEEN_RECALL
    assert not exam.enough and exam.expected_percent is None and not exam.ready
    assert (exam.questions, exam.seen, exam.needed, exam.pass_mark) == (7, 0, 4, 70)
