"""Item statistics against a reference computed here with numpy, on a planted data set."""

import random
from collections import Counter
from datetime import timedelta

import numpy as np
import pytest
from sqlalchemy import insert

from app.accounts.models import User
from app.content.blueprints import ExamBlueprint
from app.exams import answers
from app.exams import service as exams
from app.items import service
from app.items.errors import NotFound
from app.items.queries import Sums, median
from app.items.service import ChoiceStat, ItemQuery, flags_for, point_biserial, safe_cell
from app.progress.service import check_answer
from tests.items.planted import GRACE, KEYS, PRACTICE, START, Planted, plant

LETTERS = "ABCD"


@pytest.fixture
def planted(db) -> Planted:  # type: ignore[no-untyped-def]
    return plant(db)


def _by_key(db, planted: Planted) -> dict[str, service.ItemStat]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        items = service.statistics(session)
    keys = {qid: key for key, qid in planted.question_ids.items()}
    return {keys[item.question_id]: item for item in items}


def _reference(planted: Planted, key: str) -> dict[str, object]:
    """Figures of one question computed from what each learner picked, with numpy."""
    picks = planted.exam
    learners = len(picks[key])
    scores = np.array([sum(picks[k][i] == "A" for k in KEYS) for i in range(learners)])
    answered = [i for i in range(learners) if picks[key][i] is not None]
    x = np.array([picks[key][i] == "A" for i in answered], dtype=float)
    y = scores[answered] - x
    r = float(np.corrcoef(x, y)[0, 1]) if x.std() > 0 and y.std() > 0 else None
    # the stronger half: the better half of the attempts by score, ties to the earlier one
    strong = set(sorted(range(learners), key=lambda i: (-scores[i], i))[: learners // 2])
    stronger = [picks[key][i] for i in answered if i in strong]
    chosen = [picks[key][i] for i in answered]
    return {
        "responses": len(answered),
        "facility": float(x.mean()),
        "discrimination": r,
        "shares": [chosen.count(letter) / len(answered) for letter in LETTERS],
        "stronger": [stronger.count(letter) for letter in LETTERS],
    }


def test_exam_figures_match_a_reference_computation(db, planted):
    items = _by_key(db, planted)
    for key in KEYS:
        expected, stat = _reference(planted, key), items[key].exam
        assert stat.responses == expected["responses"], key
        assert stat.facility == pytest.approx(expected["facility"]), key
        if expected["discrimination"] is None:
            assert stat.discrimination is None, key
        else:
            assert stat.discrimination == pytest.approx(expected["discrimination"]), key
        assert [c.share for c in stat.choices] == pytest.approx(expected["shares"]), key
        assert [c.stronger_picks for c in stat.choices] == expected["stronger"], key
        assert not stat.timed and stat.median_seconds is None  # exams record no time


def test_practice_figures_count_practice_answers_only(db, planted):
    """A finished exam copies its answers into the learner's history as source 'exam': the
    practice figures leave them out, and have no discrimination."""
    items = _by_key(db, planted)
    for key in KEYS:
        given = PRACTICE.get(key, [])
        stat = items[key].practice
        assert stat.responses == len(given) and stat.discrimination is None
        assert stat.timed
        if not given:
            assert stat.facility is None and stat.median_seconds is None
            continue
        letters = [letter for letter, _ in given]
        assert stat.facility == pytest.approx(letters.count("A") / len(given))
        timed = [seconds for _, seconds in given if seconds is not None]
        assert stat.median_seconds == pytest.approx(float(np.median(timed)))
        shares = [letters.count(letter) / len(given) for letter in LETTERS]
        assert [c.share for c in stat.choices] == pytest.approx(shares)


EXPECTED_FLAGS = {
    "fine": (),
    "steady": (),
    "tough": (),
    "easy": ("too-easy", "unpicked-distractor"),
    "hard": ("too-hard",),
    "miskeyed": ("wrong-key", "negative-discrimination"),
    "dead": ("unpicked-distractor",),
    "few": (),  # three responses, all wrong: too few to flag anything
}


def test_each_flag_is_raised_where_planted_and_nowhere_else(db, planted):
    items = _by_key(db, planted)
    assert {key: item.exam.flags for key, item in items.items()} == EXPECTED_FLAGS
    practice = {key: item.practice.flags for key, item in items.items()}
    assert practice == {key: ("too-easy",) if key == "hard" else () for key in KEYS}


def _choices(*shares: tuple[bool, float, int]) -> list[ChoiceStat]:
    return [
        ChoiceStat(n, n, "", correct, 0, share, stronger)
        for n, (correct, share, stronger) in enumerate(shares, start=1)
    ]


def test_flags_wait_for_their_minimum_responses():
    easy = _choices((True, 0.99, 5), (False, 0.01, 0))
    assert flags_for("exam", 19, 0.99, 0.3, easy) == ()
    assert flags_for("exam", 20, 0.99, 0.3, easy) == ("too-easy",)
    assert flags_for("exam", 50, 0.99, 0.3, easy) == ("too-easy", "unpicked-distractor")
    assert flags_for("practice", 20, 0.1, None, easy) == ("too-hard",)
    assert flags_for("exam", 29, 0.5, -0.2, easy) == ()
    assert flags_for("exam", 30, 0.5, -0.2, easy) == ("negative-discrimination",)
    miskeyed = _choices((True, 0.4, 4), (False, 0.6, 6))
    assert flags_for("exam", 19, 0.4, 0.1, miskeyed) == ()
    assert flags_for("exam", 20, 0.4, 0.1, miskeyed) == ("wrong-key",)
    assert flags_for("practice", 40, 0.4, None, miskeyed) == ()  # practice has no halves
    at_the_edge = _choices((True, 0.95, 5), (False, 0.02, 0), (False, 0.03, 0))
    assert flags_for("exam", 100, 0.95, 0.1, at_the_edge) == ()


def test_point_biserial_is_empty_when_either_side_is_constant():
    assert point_biserial(Sums(10, 10, 30.0, 30.0, 100.0)) is None  # all right
    assert point_biserial(Sums(4, 2, 12.0, 6.0, 36.0)) is None  # the same rest score
    assert point_biserial(Sums(1, 1, 3.0, 3.0, 9.0)) is None
    x, y = np.array([1, 0, 1, 0, 1.0]), np.array([4, 1, 3, 2, 2.0])
    sums = Sums(5, 3, y.sum(), (x * y).sum(), (y * y).sum())
    assert point_biserial(sums) == pytest.approx(np.corrcoef(x, y)[0, 1])


def test_median_of_counted_values_matches_numpy():
    rng = random.Random(7)
    cases = [[4.0], [4.0, 8.0], [1.0, 1.0, 2.0, 9.0, 9.0], [3.0] * 7 + list(range(50))]
    cases += [[float(rng.randint(0, 30)) for _ in range(rng.randint(1, 40))] for _ in range(200)]
    for values in cases:
        assert median(dict(Counter(values))) == pytest.approx(float(np.median(values))), values
    assert median({}) is None


def test_practice_times_are_counted_to_the_whole_second(db, planted):
    with db.session_scope(write=True) as session:
        user = User(username="timer", password_hash="-")
        session.add(user)
        session.flush()
        qid, key = planted.question_ids["steady"], planted.choice_ids["steady"]["A"]
        for n, seconds in enumerate((3.4, 3.6, 10.2, 4.49)):
            at = START + timedelta(days=2, minutes=n)
            check_answer(session, user.id, qid, [key], at, seconds)
    with db.session_scope() as session:
        (item,) = service.statistics(session, qid)
    assert item.practice.median_seconds == 4.0  # of 3, 4, 4 and 10


def test_the_stronger_half_is_ranked_within_each_exam(db, planted):
    """Two people sit a second exam and both answer "steady" with B: one is the stronger half
    of that exam's two attempts, whatever the sixty attempts of the planted exam scored."""
    qid, cid = planted.question_ids["steady"], planted.choice_ids["steady"]
    with db.session_scope(write=True) as session:
        blueprint = ExamBlueprint(slug="second", title="Second", question_count=2, pass_mark=50)
        session.add(blueprint)
        session.flush()
        users = session.scalars(
            insert(User).returning(User.id),
            [{"username": f"sitter{n}", "password_hash": "-"} for n in range(2)],
        ).all()
        spec = exams.ExamSpec(
            title="Second",
            question_ids=(qid, planted.question_ids["easy"]),
            count=2,
            time_limit_s=None,
            pass_mark=50,
            mode="exam",
            shuffle_questions=False,
            shuffle_choices=False,
        )
        for n, user_id in enumerate(users):
            now = START + timedelta(days=3, minutes=n)
            drawn = exams.paper(session, spec, random.Random(n), blueprint_id=blueprint.id)
            started = exams.sit(session, user_id, drawn, now, GRACE)
            answers.save_answer(session, started.attempt_id, user_id, 1, [cid["B"]], now, GRACE)
            easy = planted.choice_ids["easy"]["A" if n == 0 else "B"]  # the first scores 50%
            answers.save_answer(session, started.attempt_id, user_id, 2, [easy], now, GRACE)
            exams.submit(session, started.attempt_id, user_id, now, GRACE)
    with db.session_scope() as session:
        (item,) = service.statistics(session, qid)
    before = next(c for c in _reference_choices(planted, "steady") if c[0] == "B")[1]
    picks_b = next(c for c in item.exam.choices if c.position == 2)
    assert picks_b.stronger_picks == before + 1


def _reference_choices(planted: Planted, key: str) -> list[tuple[str, int]]:
    stronger = _reference(planted, key)["stronger"]
    assert isinstance(stronger, list)
    return list(zip(LETTERS, stronger, strict=True))


def test_one_question_and_a_missing_one(db, planted):
    with db.session_scope() as session:
        item = service.question_statistics(session, planted.question_ids["dead"])
        with pytest.raises(NotFound):
            service.question_statistics(session, 999_999)
    assert item.exam.flags == ("unpicked-distractor",) and item.stem == "Planted question dead?"
    assert [c.text for c in item.exam.choices] == [f"dead choice {x}" for x in LETTERS]


def test_the_table_sorts_with_empty_figures_last_either_way(db, planted):
    with db.session_scope() as session:
        items = service.statistics(session)
    keys = {qid: key for key, qid in planted.question_ids.items()}
    up = service.select_rows(items, ItemQuery(sort="discrimination"))
    down = service.select_rows(items, ItemQuery(sort="discrimination", descending=True))
    assert [keys[i.question_id] for i in up] == [
        "miskeyed", "hard", "steady", "dead", "tough", "fine", "easy", "few"
    ]  # fmt: skip
    assert [keys[i.question_id] for i in down][:6] == [
        "fine", "tough", "dead", "steady", "hard", "miskeyed"
    ]  # fmt: skip
    flagged = service.select_rows(items, ItemQuery(flag="any", sort="flags", descending=True))
    assert [keys[i.question_id] for i in flagged] == ["easy", "miskeyed", "hard", "dead"]
    practice = service.select_rows(items, ItemQuery(source="practice", sort="time"))
    assert [keys[i.question_id] for i in practice][:2] == ["fine", "hard"]


def test_text_cells_cannot_start_a_formula():
    for text in ("=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"):
        assert safe_cell(text) == "'" + text
    assert safe_cell("Plain words") == "Plain words"
