"""Practising a set: a running tally on each question, and a result at the end."""

import pytest

from tests.factories import SEED_SET, choice_ids, count_queries, log_in, question_id


@pytest.fixture
def ann(client, make_user):  # type: ignore[no-untyped-def]
    make_user("ann")
    log_in(client, "ann")
    return client


def _answer(client, db, key: str, right: bool, **kwargs):  # type: ignore[no-untyped-def]
    good, bad = choice_ids(db, key)
    choice = good if right else bad[0]
    return client.post(f"/questions/{question_id(db, key)}", data={"choice": str(choice)}, **kwargs)


def test_the_question_page_shows_the_running_tally_of_the_set(ann, seeded):
    assert "0</strong> of 7 answered" in ann.get(f"/questions/{question_id(seeded, '1')}").text
    _answer(ann, seeded, "1", True)
    _answer(ann, seeded, "2", False)
    page = _answer(ann, seeded, "2", True)  # the latest answer counts
    assert (
        "Your tally in this set: <strong>2</strong> of 7 answered · <strong>2</strong> right"
        in page.text
    )


def test_the_htmx_answer_brings_the_updated_tally(ann, seeded):
    response = _answer(ann, seeded, "3", False, headers={"HX-Request": "true"})
    assert response.text.lstrip().startswith('<div id="practice"')
    assert "<strong>1</strong> of 7 answered · <strong>0</strong> right" in response.text


def test_guests_see_no_tally(client, seeded):
    assert "Your tally" not in client.get(f"/questions/{question_id(seeded, '1')}").text


def test_the_last_question_leads_a_learner_to_the_result(ann, seeded):
    page = _answer(ann, seeded, "7", True)
    assert f'href="/sets/{SEED_SET}/summary">See your result' in page.text


def test_the_result_shows_the_score_the_wrong_ones_and_the_sections_to_read(ann, seeded):
    _answer(ann, seeded, "1", True)
    _answer(ann, seeded, "3", False)
    _answer(ann, seeded, "6", False)
    _answer(ann, seeded, "7", True)
    html = ann.get(f"/sets/{SEED_SET}/summary").text
    assert "2 of 7 questions right</strong> (29%) · 3 not answered yet" in html
    wrong = html.split('id="wrong-heading"')[1].split("</section>")[0]
    assert f"/questions/{question_id(seeded, '3')}" in wrong
    assert f"/questions/{question_id(seeded, '6')}" in wrong
    assert f"/questions/{question_id(seeded, '1')}" not in wrong
    assert "/notes/tensorrt-note-2#working-with-mixed-precision" in html
    assert "/notes/tensorrt-note-2#working-with-reformat-free-network-i-o-tensors" in html
    assert "Practise the wrong ones again" in html


def test_a_result_before_any_answer_says_how_to_start(ann, seeded):
    assert "No answers yet" in ann.get(f"/sets/{SEED_SET}/summary").text


@pytest.mark.parametrize(("path", "status"), [("no-such-set", 404), ("BAD!", 404)])
def test_a_result_for_a_missing_set_is_404(ann, seeded, path, status):
    assert ann.get(f"/sets/{path}/summary").status_code == status


def test_guests_are_sent_to_log_in_for_a_result(client, seeded):
    response = client.get(f"/sets/{SEED_SET}/summary", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/login?next=")


def test_nobody_sees_another_learners_result(ann, user_client, seeded):
    _answer(ann, seeded, "1", True)
    assert "No answers yet" in user_client("bob").get(f"/sets/{SEED_SET}/summary").text


def test_result_and_tally_run_a_handful_of_queries(app, ann, seeded):
    for key in "1234567":
        _answer(ann, seeded, key, key in "135")
    for path in (f"/sets/{SEED_SET}/summary", f"/questions/{question_id(seeded, '2')}"):
        ann.get(path)
        with count_queries(app) as statements:
            assert ann.get(path).status_code == 200
        assert len(statements) <= 6, (path, statements)
