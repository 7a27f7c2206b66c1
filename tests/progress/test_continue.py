"""Going on where a learner left off: the home page's open exams, the set to continue and
its set cards, and each question's mark on the set and topic pages."""

import re
from datetime import UTC, datetime, timedelta
from html import unescape

import pytest

from tests.exams.conftest import EXAM
from tests.factories import SEED_SET, choice_ids, count_queries, log_in, question_id

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
TOPIC = "inference-optimization-tensorrt"  # the parent of every seed question's topic


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(app):  # type: ignore[no-untyped-def]
    app.state.clock = app.state.exam_clock = Clock(T0)
    return app.state.clock


@pytest.fixture
def ann(client, make_user, clock):  # type: ignore[no-untyped-def]
    make_user("ann")
    log_in(client, "ann")
    return client


def _answer(client, db, key: str, right: bool) -> None:  # type: ignore[no-untyped-def]
    good, bad = choice_ids(db, key)
    choice = good if right else bad[0]
    response = client.post(f"/questions/{question_id(db, key)}", data={"choice": str(choice)})
    assert response.status_code == 200


def _start_exam(client) -> int:  # type: ignore[no-untyped-def]
    response = client.post(f"/exams/{EXAM}/start", follow_redirects=False)
    assert response.status_code == 303
    return int(response.headers["location"].rsplit("/", 1)[1])


def _save(client, attempt_id: int, position: int) -> None:  # type: ignore[no-untyped-def]
    page = client.get(f"/attempts/{attempt_id}/questions/{position}").text
    choice = re.search(r'name="choice" id="choice-\d+" value="(\d+)"', page)
    assert choice
    saved = client.post(
        f"/attempts/{attempt_id}/questions/{position}", data={"choice": choice.group(1)}
    )
    assert saved.status_code == 200


def _continue(html: str) -> str:
    """The home page's "Continue" section ("" when there is none)."""
    if 'id="continue-heading"' not in html:
        return ""
    return html.split('id="continue-heading"')[1].split("</section>")[0]


def _button(html: str, text: str) -> str:
    """The address of the button whose words (without the hidden ones) start with text."""
    for href, words in re.findall(r'<a class="button[^"]*" href="([^"]+)">(.*?)</a>', html):
        if re.sub(r'<span class="visually-hidden">.*?</span>', "", words).startswith(text):
            return unescape(href)
    raise AssertionError(f"no “{text}” button")


def _set_card(html: str) -> str:
    section = html.split('id="sets-heading"')[1].split("</section>")[0]
    return next(li for li in section.split("<li>") if f'href="/sets/{SEED_SET}"' in li)


def _marks(html: str) -> dict[int, str]:
    """Each listed question's mark: its sign and the words a screen reader hears."""
    rows = re.findall(
        r'<span class="question-mark is-[a-z-]+" aria-hidden="true">(.)</span> '
        r'<a href="/questions/(\d+)">.*?<span class="visually-hidden"> — ([a-z ]+)</span></a>',
        html,
    )
    return {int(qid): f"{sign} {words}" for sign, qid, words in rows}


def test_a_guest_sees_todays_pages(client, seeded):
    home = client.get("/").text
    assert not _continue(home)
    assert _button(_set_card(home), "Practise") == f"/questions/{question_id(seeded, '1')}"
    for path in (f"/sets/{SEED_SET}", f"/topics/{TOPIC}"):
        page = client.get(path).text
        assert "question-mark" not in page and "Your latest answer" not in page


def test_a_learner_with_nothing_begun_has_nothing_to_continue(ann, seeded):
    home = ann.get("/").text
    assert not _continue(home)
    assert _button(_set_card(home), "Practise") == f"/questions/{question_id(seeded, '1')}"


def test_home_continues_the_set_practised_last_at_its_first_question_not_answered(ann, seeded):
    _answer(ann, seeded, "1", True)
    _answer(ann, seeded, "2", False)
    home = ann.get("/").text
    third = f"/questions/{question_id(seeded, '3')}"
    section = _continue(home)
    assert "Continue practising" in section and "2 of 7 answered" in section
    assert _button(section, "Continue (question 3 of 7)") == third
    card = _set_card(home)
    assert "7 questions · 2 answered" in card
    assert _button(card, "Continue (question 3)") == third


def test_a_set_answered_to_the_end_has_nothing_left_to_continue(ann, seeded):
    for key in "1234567":
        _answer(ann, seeded, key, key != "4")
    home = ann.get("/").text
    assert not _continue(home)
    assert _button(_set_card(home), "Practise") == f"/questions/{question_id(seeded, '1')}"


def test_home_lists_an_open_exam_with_its_answers_time_left_and_where_to_resume(ann, seeded, clock):
    attempt_id = _start_exam(ann)
    _save(ann, attempt_id, 1)
    _save(ann, attempt_id, 3)
    clock.advance(minutes=3)
    section = _continue(ann.get("/").text)
    assert "TensorRT practice exam" in section
    assert "2 of 7 questions answered · 7 min left" in section
    assert _button(section, "Resume") == f"/attempts/{attempt_id}/questions/2"
    assert "Continue practising" not in section  # exam answers are no practice


@pytest.mark.parametrize("close", ["submit", "time"])
def test_a_closed_or_timed_out_exam_is_not_listed(ann, seeded, clock, close):
    attempt_id = _start_exam(ann)
    if close == "submit":
        assert ann.post(f"/attempts/{attempt_id}/submit").status_code == 200
    else:
        clock.advance(minutes=11)  # past the ten minutes and the grace
    assert not _continue(ann.get("/").text)


def test_set_and_topic_pages_mark_each_question_by_the_latest_answer(ann, seeded):
    _answer(ann, seeded, "1", True)
    _answer(ann, seeded, "2", True)
    _answer(ann, seeded, "2", False)  # the latest answer counts
    ids = [question_id(seeded, key) for key in "123"]
    for path in (f"/sets/{SEED_SET}", f"/topics/{TOPIC}"):
        page = ann.get(path).text
        marks = _marks(page)
        assert len(marks) == 7, path
        assert [marks[qid] for qid in ids] == ["✓ right", "✗ wrong", "– not answered"], path
        assert "Your latest answer: ✓ right · ✗ wrong · – not answered" in page


def test_another_learners_answers_leave_my_marks_and_home_alone(ann, seeded, user_client):
    _answer(ann, seeded, "1", False)
    ann.post(f"/exams/{EXAM}/start")
    bob = user_client("bob")
    assert not _continue(bob.get("/").text)
    marks = _marks(bob.get(f"/sets/{SEED_SET}").text)
    assert set(marks.values()) == {"– not answered"}


def test_home_set_and_topic_pages_run_a_fixed_number_of_queries(app, ann, seeded):
    """Each part is one statement however many exams, sets and answers there are: home adds
    the open exams and the sets' standing, a set and a topic page the questions' marks."""
    for key in "1234":
        _answer(ann, seeded, key, key != "2")
    attempt_id = _start_exam(ann)
    _save(ann, attempt_id, 1)
    expected = {"/": 9, f"/sets/{SEED_SET}": 7, f"/topics/{TOPIC}": 8}
    for path, count in expected.items():
        with count_queries(app) as statements:
            assert ann.get(path).status_code == 200
        assert len(statements) == count, (path, [s[:70] for s in statements])
