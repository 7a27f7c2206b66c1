"""The page before submitting: what is answered, and a check naming the blank and flagged
questions."""

import re

import pytest

from tests.exams.helpers import items, right_and_wrong, save_page, start_page


@pytest.mark.parametrize(
    ("answered", "flag", "warning"),
    [
        (5, True, "2 questions are blank and 1 is flagged. Submit anyway?"),
        (6, False, "1 question is blank. Submit anyway?"),
        (7, True, "1 question is flagged. Submit anyway?"),
    ],
)
def test_the_summary_names_blank_and_flagged_before_submitting(
    seeded, user_client, answered, flag, warning
):
    client = user_client("ann")
    attempt_id = start_page(client)
    for item in items(seeded, attempt_id):
        data = {"choice": str(right_and_wrong(item)[0])} if item.position <= answered else {}
        if flag and item.position == 6:
            data["flagged"] = "1"
        save_page(client, attempt_id, item.position, **data)
    page = client.get(f"/attempts/{attempt_id}/summary").text
    assert re.sub(r"\s+", " ", page).count(warning) == 1
    assert "Submit the exam anyway</button>" in page


def test_the_summary_of_a_finished_exam_asks_nothing(seeded, user_client):
    client = user_client("ann")
    attempt_id = start_page(client)
    for item in items(seeded, attempt_id):
        save_page(client, attempt_id, item.position, choice=str(right_and_wrong(item)[0]))
    page = client.get(f"/attempts/{attempt_id}/summary").text
    assert "Submit anyway?" not in page
    assert "Submit the exam</button>" in page
