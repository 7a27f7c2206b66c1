"""The exam-day check: what learners were told against what the database holds.

Hand-built cases, so a checker that finds nothing wrong has been seen to find something.
Importing the checker loads no Locust (the locustfile is a module of its own).
"""

import json
import sys

from bench.exam_check import (
    Ack,
    StoredAttempt,
    finalisation_problems,
    lost_saves,
    percentile,
    read_ledger,
)


def test_the_last_acknowledged_save_of_each_question_must_be_stored():
    acks = [
        Ack(attempt=1, position=1, choice_ids=(10,), flagged=False),
        Ack(attempt=1, position=1, choice_ids=(11,), flagged=True),  # replaces the first
        Ack(attempt=1, position=2, choice_ids=(20,), flagged=False),
        Ack(attempt=2, position=1, choice_ids=(30,), flagged=False),
    ]
    stored = {(1, 1): ((11,), True), (1, 2): ((20,), False), (2, 1): ((30,), False)}
    assert lost_saves(acks, stored) == []
    assert lost_saves(acks, {**stored, (1, 1): ((10,), False)}) == [acks[1]]  # an older answer
    assert lost_saves(acks, {**stored, (1, 1): ((11,), False)}) == [acks[1]]  # the flag lost
    missing = {key: value for key, value in stored.items() if key != (2, 1)}
    assert lost_saves(acks, missing) == [acks[3]]
    assert lost_saves([], {}) == []


def attempt(id: int, learner: str, **fields: object) -> StoredAttempt:
    values: dict = {"status": "submitted", "submitted": True, "score": 5.0, "points": 5.0}
    return StoredAttempt(id=id, learner=learner, **{**values, "ungraded": 0, **fields})


def test_every_submitted_attempt_is_closed_and_graded_once():
    submitted = {"ann": 1, "bob": 2}
    assert finalisation_problems(submitted, [attempt(1, "ann"), attempt(2, "bob")]) == []
    # a learner the run ended for before submitting may leave an open attempt
    carol = attempt(3, "carol", status="open", submitted=False, score=None)
    assert finalisation_problems(submitted, [attempt(1, "ann"), attempt(2, "bob"), carol]) == []


def test_what_a_wrong_close_looks_like_is_named():
    cases = [
        ([attempt(1, "ann", status="open", submitted=False)], "is open, not submitted"),
        ([attempt(1, "ann", status="expired")], "is expired, not submitted"),
        ([attempt(1, "ann"), attempt(4, "ann")], "has attempts [1, 4], not [1]"),
        ([], "has attempts [], not [1]"),
        ([attempt(1, "ann", ungraded=2)], "not graded once"),
        ([attempt(1, "ann", score=10.0)], "not graded once: score 10.0"),
        ([attempt(1, "ann", score=None)], "not graded once"),
    ]
    for attempts, problem in cases:
        found = finalisation_problems({"ann": 1}, attempts)
        assert len(found) == 1 and problem in found[0], (attempts, found)


def test_the_ledger_is_read_as_the_locustfile_writes_it(tmp_path):
    ledger = tmp_path / "ledger.json"
    ledger.write_text(
        json.dumps(
            {
                "saves": [
                    {
                        "attempt": 1,
                        "position": 2,
                        "choice_ids": [7],
                        "flagged": True,
                        "learner": "a",
                    }
                ],
                "started": [{"learner": "a", "attempt": 1}],
                "submitted": [{"learner": "a", "attempt": 1}],
                "gave_up": [{"learner": "b", "reason": "logging in failed"}],
                "failures": ["b: log in answered 500"],
            }
        )
    )
    told = read_ledger(ledger)
    assert told.acks == [Ack(1, 2, (7,), True)]
    assert told.submitted == {"a": 1}
    assert told.troubles == ["b: log in answered 500", "b gave up: logging in failed"]


def test_percentiles_come_from_locusts_buckets():
    times = {10.0: 90, 100.0: 9, 1000.0: 1}
    assert [percentile(times, q) for q in (0.5, 0.9, 0.95, 0.99, 1.0)] == [
        10.0,
        10.0,
        100.0,
        100.0,
        1000.0,
    ]
    assert percentile({}, 0.95) == 0.0


def test_importing_the_checker_loads_no_locust():
    assert "locust" not in sys.modules and "gevent.monkey" not in sys.modules
