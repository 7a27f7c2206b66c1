"""Practice choices show in an order of each person's own, stable across reloads."""

import re

from app.content.read_models import ChoiceView
from app.content.service import is_fixed_choice, shuffle_choices
from tests.factories import import_file, log_in, question_id

CHOICES = tuple(ChoiceView(n, n, f"choice {n}") for n in range(1, 6)) + (
    ChoiceView(6, 6, "All of the above", fixed=True),
)


def test_one_seed_gives_one_order_and_fixed_choices_keep_their_place():
    orders = {tuple(c.id for c in shuffle_choices(CHOICES, f"user:{n}:7")) for n in range(30)}
    assert len(orders) > 10  # people see different orders
    assert all(order[-1] == 6 for order in orders)  # "All of the above" stays last
    assert shuffle_choices(CHOICES, "user:1:7") == shuffle_choices(CHOICES, "user:1:7")


def test_fixed_choices_are_recognised():
    fixed = ["All of the above", "None of the above.", "Both of these", "neither of the above"]
    assert all(is_fixed_choice(text) for text in fixed)
    assert not any(is_fixed_choice(t) for t in ["All layers run in FP16", "None", "Above all"])


def _order(html: str) -> list[str]:
    return re.findall(r'name="choice" id="choice-(\d+)"', html)


def test_a_learner_sees_the_same_order_on_every_reload(user_client, seeded):
    qid = question_id(seeded, "3")
    ann = user_client("ann")
    first = _order(ann.get(f"/questions/{qid}").text)
    assert len(first) == 4
    assert all(_order(ann.get(f"/questions/{qid}").text) == first for _ in range(3))


def test_the_right_answer_is_not_always_first(user_client, seeded):
    """In the seed every right answer is written first; shown orders must not give it away."""
    from tests.factories import choice_ids

    firsts = set()
    for n in range(6):
        client = user_client(f"learner{n}")
        for key in "1234567":
            right, _ = choice_ids(seeded, key)
            order = _order(client.get(f"/questions/{question_id(seeded, key)}").text)
            firsts.add(order[0] == str(right))
    assert firsts == {True, False}


def test_a_guest_keeps_an_order_through_a_cookie(client, seeded):
    qid = question_id(seeded, "3")
    first = client.get(f"/questions/{qid}")
    assert "studyhall_guest" in first.cookies
    assert all(_order(client.get(f"/questions/{qid}").text) == _order(first.text) for _ in range(3))


def test_fixed_choices_keep_their_place_on_the_page(client, db):
    page = """Fixed — Questions and Answers
Question 1: Which apply?
- one
- two
- three
- All of the above (Correct answer)
Correct answer: All of the above
Because.
"""
    import_file(db, page.encode(), "fixed.txt")
    qid = question_id(db, "1", "fixed")
    for n in range(8):
        client.cookies.set("studyhall_guest", f"guest-{n}")
        html = client.get(f"/questions/{qid}").text
        assert html.rindex("All of the above") > max(
            html.index(w) for w in ("one<", "two<", "three<")
        )


def test_log_in_keeps_no_guest_order(client, make_user, seeded):
    make_user("ann")
    log_in(client, "ann")
    response = client.get(f"/questions/{question_id(seeded, '3')}")
    assert "studyhall_guest" not in response.cookies
