"""Exam rules with a hand-moved clock: start, resume, save, deadlines, finalising once."""

import random
import re
import threading
from datetime import timedelta

import pytest
from sqlalchemy import event, select, update

from app.content.models import Choice, Question
from app.exams import answers, sampling, service
from app.exams.errors import AttemptClosed, InvalidExamAnswer, NotFound, TimeUp
from app.exams.grading import grade_item
from app.exams.models import Attempt, AttemptItem
from tests.exams.conftest import EXAM, GRACE, START
from tests.exams.helpers import answer, attempt, items, right_and_wrong, start
from tests.factories import CONTENT_TABLES, count_rows

CONTENT_TABLE_NAMES = {table.name for table in CONTENT_TABLES}


def test_start_snapshots_every_question_and_fixes_the_deadline(seeded, learner):
    attempt_id = start(seeded, learner)
    found = attempt(seeded, attempt_id)
    assert found.status == "open"
    assert found.deadline_at == START + timedelta(minutes=10)
    assert found.question_count == 7 and found.pass_mark == 70
    shown = items(seeded, attempt_id)
    assert [i.position for i in shown] == list(range(1, 8))
    assert len({i.question_id for i in shown}) == 7  # no repeats
    for item in shown:
        assert item.snapshot["stem_html"] and item.snapshot["correct_ids"]
        assert len(item.snapshot["choices"]) >= 2


def test_sitting_a_drawn_paper_writes_the_attempt_and_reads_none_of_the_content(seeded, learner):
    """The questions are read and copied when the paper is drawn, in a read; the write that
    starts the attempt touches the learner's own rows only, so the one writer spends no time
    on the content."""
    with seeded.session_scope() as session:
        drawn = service.blueprint_paper(session, EXAM, random.Random(3))
    statements: list[str] = []

    def record(_conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(seeded.engine, "before_cursor_execute", record)
    try:
        with seeded.session_scope(write=True) as session:
            started = service.sit(session, learner, drawn, START, GRACE)
    finally:
        event.remove(seeded.engine, "before_cursor_execute", record)
    named = {
        name.strip('"')
        for statement in statements
        for name in re.findall(r'(?:FROM|JOIN|INTO|UPDATE)\s+("?\w+"?)', statement)
    }
    assert named and not named & CONTENT_TABLE_NAMES, named
    shown = items(seeded, started.attempt_id)
    assert [(i.question_id, i.snapshot) for i in shown] == drawn.questions
    assert not started.resumed


def test_a_drawn_paper_is_left_unused_when_the_exam_is_open_already(seeded, learner):
    first = start(seeded, learner)
    with seeded.session_scope() as session:
        drawn = service.blueprint_paper(session, EXAM)
    with seeded.session_scope(write=True) as session:
        again = service.sit(session, learner, drawn, START + timedelta(minutes=3), GRACE)
    assert again == service.Started(first, resumed=True)
    assert count_rows(seeded, Attempt) == 1 and count_rows(seeded, AttemptItem) == 7


def test_starting_again_resumes_the_open_attempt(seeded, learner):
    first = start(seeded, learner)
    assert start(seeded, learner, START + timedelta(minutes=3)) == first
    assert count_rows(seeded, Attempt) == 1


def test_starting_after_time_ran_out_finalises_the_old_attempt_and_starts_anew(seeded, learner):
    first = start(seeded, learner)
    second = start(seeded, learner, START + timedelta(hours=1))
    assert second != first
    assert attempt(seeded, first).status == "expired"


def test_saved_answers_are_kept_and_can_change(seeded, learner):
    attempt_id = start(seeded, learner)
    right, wrong = right_and_wrong(items(seeded, attempt_id)[0])
    answer(seeded, attempt_id, learner, 1, [wrong], START + timedelta(seconds=5))
    answer(seeded, attempt_id, learner, 1, [right], START + timedelta(seconds=9))
    saved = items(seeded, attempt_id)[0]
    assert saved.selected_ids == [right]
    assert saved.answered_at == START + timedelta(seconds=9)


@pytest.mark.parametrize(
    ("ids", "error"),
    [([999_999], InvalidExamAnswer), ("two", InvalidExamAnswer)],
)
def test_bad_answers_are_refused(seeded, learner, ids, error):
    attempt_id = start(seeded, learner)
    item = items(seeded, attempt_id)[0]
    if ids == "two":
        ids = [c["id"] for c in item.snapshot["choices"][:2]]
    with pytest.raises(error):
        answer(seeded, attempt_id, learner, 1, ids, START)
    assert items(seeded, attempt_id)[0].selected_ids == []


def test_a_missing_question_or_someone_elses_attempt_is_not_found(seeded, learner, make_user):
    attempt_id = start(seeded, learner)
    with pytest.raises(NotFound):
        answer(seeded, attempt_id, learner, 8, [], START)
    stranger = make_user("bob").id
    with pytest.raises(NotFound):
        answer(seeded, attempt_id, stranger, 1, [], START)
    with pytest.raises(NotFound):
        answer(seeded, attempt_id + 1, learner, 1, [], START)


def test_an_answer_within_the_grace_is_saved_and_one_second_later_refused(seeded, learner):
    attempt_id = start(seeded, learner)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    deadline = START + timedelta(minutes=10)
    answer(seeded, attempt_id, learner, 1, [right], deadline + GRACE)
    with pytest.raises(TimeUp):
        answer(seeded, attempt_id, learner, 2, [right], deadline + GRACE + timedelta(seconds=1))
    assert items(seeded, attempt_id)[1].selected_ids == []


def test_sweep_finalises_with_saved_answers_at_the_deadline(seeded, learner):
    attempt_id = start(seeded, learner)
    right, _ = right_and_wrong(items(seeded, attempt_id)[0])
    answer(seeded, attempt_id, learner, 1, [right], START + timedelta(minutes=2))
    late = START + timedelta(minutes=20)
    with seeded.session_scope(write=True) as session:
        assert service.sweep(session, START + timedelta(minutes=10, seconds=29), GRACE) == 0
        assert service.sweep(session, late, GRACE) == 1
    with seeded.session_scope(write=True) as session:
        assert service.sweep(session, late, GRACE) == 0
    closed = attempt(seeded, attempt_id)
    assert closed.status == "expired"
    assert closed.submitted_at == START + timedelta(minutes=10)
    assert closed.score == 1 and closed.percent == pytest.approx(14.3)
    assert closed.passed is False and closed.open_slot is None
    graded = items(seeded, attempt_id)
    assert graded[0].is_correct is True and graded[1].is_correct is False


def test_a_closed_attempt_refuses_answers_and_flags(seeded, learner):
    attempt_id = start(seeded, learner)
    with seeded.session_scope(write=True) as session:
        assert service.submit(session, attempt_id, learner, START, GRACE) == "submitted"
    with pytest.raises(AttemptClosed):
        answer(seeded, attempt_id, learner, 1, [], START)
    with seeded.session_scope(write=True) as session, pytest.raises(AttemptClosed):
        answers.set_flag(session, attempt_id, learner, 1, True, START, GRACE)
    with seeded.session_scope(write=True) as session:  # a second submit is no error
        assert service.submit(session, attempt_id, learner, START, GRACE) == "submitted"


def test_submitting_after_the_grace_counts_as_time_ran_out(seeded, learner):
    attempt_id = start(seeded, learner)
    with seeded.session_scope(write=True) as session:
        late = START + timedelta(hours=2)
        assert service.submit(session, attempt_id, learner, late, GRACE) == "expired"
    assert attempt(seeded, attempt_id).submitted_at == START + timedelta(minutes=10)


def _race(*jobs) -> list[object]:  # type: ignore[no-untyped-def]
    """Run jobs at the same moment in threads; return their results (or exceptions)."""
    barrier = threading.Barrier(len(jobs))
    results: list[object] = [None] * len(jobs)

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = jobs[index]()
        except Exception as exc:  # the test looks at it
            results[index] = exc

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_two_sweeps_at_once_finalise_once(seeded, learner):
    attempt_id = start(seeded, learner)
    late = START + timedelta(hours=1)

    def sweep() -> int:
        with seeded.session_scope(write=True) as session:
            return service.sweep(session, late, GRACE)

    assert sorted(_race(sweep, sweep, sweep)) == [0, 0, 1]  # type: ignore[type-var]
    assert attempt(seeded, attempt_id).status == "expired"


def test_a_submit_racing_the_sweep_finalises_once(seeded, learner):
    attempt_id = start(seeded, learner)
    at = START + timedelta(minutes=10, seconds=31)
    finalised = []

    def sweep() -> None:
        with seeded.session_scope(write=True) as session:
            finalised.append(service.sweep(session, at, GRACE))

    def submit() -> str:
        with seeded.session_scope(write=True) as session:
            return service.submit(session, attempt_id, learner, at, GRACE)

    results = _race(sweep, submit)
    assert results[1] == "expired"
    closed = attempt(seeded, attempt_id)
    assert closed.status == "expired" and closed.submitted_at == START + timedelta(minutes=10)
    assert finalised in ([0], [1])


def test_flags_are_kept(seeded, learner):
    attempt_id = start(seeded, learner)
    with seeded.session_scope(write=True) as session:
        answers.set_flag(session, attempt_id, learner, 3, True, START, GRACE)
    assert [i.flagged for i in items(seeded, attempt_id)] == [False, False, True] + [False] * 4


def test_a_later_edit_of_a_question_changes_no_started_attempt(seeded, learner):
    attempt_id = start(seeded, learner)
    first = items(seeded, attempt_id)[0]
    right, wrong = right_and_wrong(first)
    answer(seeded, attempt_id, learner, 1, [right], START)
    with seeded.session_scope(write=True) as session:  # an author swaps the answer key
        session.execute(update(Question).values(stem_md="Edited?"))
        session.execute(update(Choice).values(is_correct=Choice.id == wrong))
    with seeded.session_scope(write=True) as session:
        service.submit(session, attempt_id, learner, START, GRACE)
    graded = items(seeded, attempt_id)[0]
    assert graded.snapshot == first.snapshot
    assert graded.is_correct is True


def test_grading_is_all_or_nothing_unless_partial_credit():
    snapshot = {"kind": "multi", "correct_ids": [1, 2, 3]}
    assert grade_item(snapshot, [1, 2, 3], False) == (True, 1.0)
    assert grade_item(snapshot, [1, 2], False) == (False, 0.0)
    assert grade_item(snapshot, [1, 2], True) == (False, pytest.approx(0.6667))
    assert grade_item(snapshot, [1, 4], True) == (False, 0.0)
    assert grade_item(snapshot, [], True) == (False, 0.0)
    assert grade_item({"kind": "single", "correct_ids": [1]}, [2], True) == (False, 0.0)


def test_draw_gives_each_topic_its_weighted_share_without_repeats():
    spec = service.ExamSpec(
        title="t",
        question_ids=tuple(range(1, 21)),
        count=10,
        time_limit_s=None,
        pass_mark=50,
        mode="exam",
        topic_pools=((3.0, tuple(range(1, 11))), (1.0, tuple(range(11, 21)))),
    )
    for seed in range(20):
        picked = sampling.draw(spec, random.Random(seed))
        assert len(set(picked)) == 10
        assert sum(1 for q in picked if q <= 10) == 8  # 7.5 rounds up for the heavier topic


def test_draw_fills_a_short_topic_from_the_rest():
    spec = service.ExamSpec(
        title="t",
        question_ids=tuple(range(1, 11)),
        count=6,
        time_limit_s=None,
        pass_mark=50,
        mode="exam",
        shuffle_questions=False,
        topic_pools=((1.0, (1, 2)), (1.0, tuple(range(3, 11)))),
    )
    picked = sampling.draw(spec, random.Random(1))
    assert len(picked) == 6 and picked == sorted(picked) and {1, 2} <= set(picked)


def test_a_submit_grades_what_was_saved_earlier_in_the_same_transaction(seeded, learner):
    """SQLite's writer runs many requests in one session: a start, a save and a submit may
    share it, and grading must see the saved answer, not the items the start left in memory."""
    with seeded.session_scope(write=True) as session:
        drawn = service.blueprint_paper(session, EXAM, random.Random(7))
        attempt_id = service.sit(session, learner, drawn, START, GRACE).attempt_id
        first = session.scalars(
            select(AttemptItem).where(
                AttemptItem.attempt_id == attempt_id, AttemptItem.position == 1
            )
        ).one()
        right, _ = right_and_wrong(first)
        answers.save_answer(session, attempt_id, learner, 1, [right], START, GRACE)
        assert service.submit(session, attempt_id, learner, START, GRACE) == "submitted"
    graded = items(seeded, attempt_id)[0]
    assert graded.selected_ids == [right] and graded.is_correct
