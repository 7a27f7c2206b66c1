"""The score history of a learner's exams, laid out for SVGs the server draws.

Each exam gets a chart of its own: a 50-question exam and a 3-question one are not points of
one line. No chart library and no script: the template draws what this computes. Attempts
stand at even steps from left to right, oldest first (a day with three exams stays readable);
scores go up from 0 % to 100 %. Each point is marked by shape as well as colour (a filled circle for a
pass, a hollow square for a fail) and carries its percent as a label, and the page lists the
same scores in a table, so the chart reads without colour or without sight.
"""

from collections.abc import Sequence
from itertools import groupby

from app.progress.read_models import ChartPoint, ExamScore, ScoreChart

WIDTH, HEIGHT = 640, 240
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 48.0, 24.0, 24.0, 40.0
GRID = (0, 25, 50, 75, 100)
CHART_EXAMS = 4  # exams with a chart, the ones sat last; the table lists every score


def _coordinates(n: int, count: int, left: float, right: float) -> float:
    if count == 1:
        return (left + right) / 2
    return left + (right - left) * n / (count - 1)


def score_charts(scores: Sequence[ExamScore]) -> tuple[ScoreChart, ...]:
    """Lay out the scores (oldest first) in one chart per exam, the exam sat last first, for
    the `CHART_EXAMS` exams sat last."""
    last = {s.title: n for n, s in enumerate(scores)}
    ordered = sorted(scores, key=lambda s: -last[s.title])
    charts = (score_chart(list(group)) for _, group in groupby(ordered, key=lambda s: s.title))
    return tuple(chart for chart in charts if chart is not None)[:CHART_EXAMS]


def score_chart(
    scores: Sequence[ExamScore], width: int = WIDTH, height: int = HEIGHT
) -> ScoreChart | None:
    """Lay out one exam's scores (oldest first) on a width x height chart; None without any."""
    if not scores:
        return None
    left, right = MARGIN_LEFT, width - MARGIN_RIGHT
    top, bottom = MARGIN_TOP, height - MARGIN_BOTTOM

    def y_of(percent: float) -> float:
        return round(bottom - (bottom - top) * max(0.0, min(percent, 100.0)) / 100, 1)

    xs = [round(_coordinates(n, len(scores), left, right), 1) for n in range(len(scores))]
    points = tuple(ChartPoint(x, y_of(s.percent), s) for x, s in zip(xs, scores, strict=True))
    pass_ys = [y_of(s.pass_mark) for s in scores]
    if len(scores) == 1:  # a lone attempt still gets a pass-mark line across the chart
        xs, pass_ys = [left, right], pass_ys * 2
    return ScoreChart(
        title=scores[-1].title,
        width=width,
        height=height,
        left=left,
        right=right,
        top=top,
        bottom=bottom,
        grid=tuple((y_of(p), p) for p in GRID),
        points=points,
        line=" ".join(f"{p.x},{p.y}" for p in points),
        pass_line=" ".join(f"{x},{y}" for x, y in zip(xs, pass_ys, strict=True)),
        pass_y=pass_ys[-1],
    )
