"""Going on where a learner left off: the home page's open exams, the set or topic to
continue and its set cards, the walk each answer was given in, and each question's mark on
the set and topic pages."""

import re
from datetime import UTC, datetime, timedelta
from html import unescape

import pytest
from sqlalchemy import select

from app.progress import service
from app.progress.models import PracticeAnswer
from tests.exams.conftest import EXAM
from tests.factories import SEED_SET, choice_ids, count_queries, log_in, question_id

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
TOPIC = "inference-optimization-tensorrt"  # the parent of every seed question's topic
ENGINE = "engine-building-refit"  # seed questions 4 and 5


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
    the open exams, the sets' standing and the learner's notices, a set and a topic page the
    questions' marks."""
    for key in "1234":
        _answer(ann, seeded, key, key != "2")
    attempt_id = _start_exam(ann)
    _save(ann, attempt_id, 1)
    expected = {"/": 10, f"/sets/{SEED_SET}": 7, f"/topics/{TOPIC}": 8}
    for path, count in expected.items():
        with count_queries(app) as statements:
            assert ann.get(path).status_code == 200
        assert len(statements) == count, (path, [s[:70] for s in statements])


def _walk_answer(client, db, start: str, key: str, right: bool = True) -> str:  # type: ignore[no-untyped-def]
    """Answer one question of the walk that `start` begins; return the walk's address."""
    location = client.get(start, follow_redirects=False).headers["location"]
    plan_and_walk = location.split("?", 1)[1]
    address = f"/study/{question_id(db, key)}?{plan_and_walk}"
    good, bad = choice_ids(db, key)
    response = client.post(address, data={"choice": str(good if right else bad[0])})
    assert response.status_code == 200
    return address


def _walks(db) -> list[str | None]:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        query = select(PracticeAnswer.walk).order_by(PracticeAnswer.id)
        return list(session.scalars(query))


def test_each_answer_names_the_walk_it_was_given_in(ann, seeded):
    _walk_answer(ann, seeded, f"/topics/{ENGINE}/practice", "4", right=False)
    _walk_answer(ann, seeded, f"/sets/{SEED_SET}/wrong", "4")
    _answer(ann, seeded, "1", True)  # a question page
    study = ann.get("/study", follow_redirects=False).headers["location"]
    qid = int(study.split("?")[0].rsplit("/", 1)[1])
    key = next(k for k in "1234567" if question_id(seeded, k) == qid)
    good, _ = choice_ids(seeded, key)
    assert ann.post(study, data={"choice": str(good)}).status_code == 200  # "Study next"
    assert _walks(seeded) == [f"topic:{ENGINE}", f"set:{SEED_SET}", None, None]


def test_the_service_keeps_the_walk_and_a_guests_check_keeps_nothing(seeded, make_user):
    ann = make_user("ann")
    qid = question_id(seeded, "5")
    good, _ = choice_ids(seeded, "5")
    with seeded.session_scope(write=True) as session:
        service.check_answer(session, ann.id, qid, [good], T0, walk=f"topic:{ENGINE}")
        service.check_answer(session, None, qid, [good], T0, walk=f"topic:{ENGINE}")
    assert _walks(seeded) == [f"topic:{ENGINE}"]


def test_home_continues_the_topic_walked_last_at_its_first_question_not_answered(ann, seeded):
    _answer(ann, seeded, "1", True)  # a set answer first: the later walk answer wins
    _walk_answer(ann, seeded, f"/topics/{ENGINE}/practice", "4")
    section = _continue(ann.get("/").text)
    assert (
        'Continue practising <a href="/topics/engine-building-refit">Engine building &amp; refit</a>'
        in section
    )
    assert "1 of 2 answered" in section and SEED_SET not in section
    start = _button(section, "Continue (first not answered)")
    assert start == f"/topics/{ENGINE}/practice"
    walk = ann.get(start, follow_redirects=False).headers["location"]
    fifth, fourth = question_id(seeded, "5"), question_id(seeded, "4")
    assert walk == f"/study/{fifth}?plan={fifth}.{fourth}&topic={ENGINE}"


def test_a_parent_topics_walk_counts_its_subtopics_questions(ann, seeded):
    _answer(ann, seeded, "3", True)
    _walk_answer(ann, seeded, f"/topics/{TOPIC}/practice", "2", right=False)
    section = _continue(ann.get("/").text)
    assert f'href="/topics/{TOPIC}"' in section and "2 of 7 answered" in section
    assert _button(section, "Continue") == f"/topics/{TOPIC}/practice"


def test_a_later_set_answer_switches_home_back_to_the_set(ann, seeded):
    _walk_answer(ann, seeded, f"/topics/{ENGINE}/practice", "4")
    _answer(ann, seeded, "1", True)
    section = _continue(ann.get("/").text)
    assert "Engine building" not in section and "2 of 7 answered" in section
    assert (
        _button(section, "Continue (question 2 of 7)") == f"/questions/{question_id(seeded, '2')}"
    )


def test_a_wrong_ones_walk_continues_its_set(ann, seeded):
    _answer(ann, seeded, "1", False)
    _walk_answer(ann, seeded, f"/sets/{SEED_SET}/wrong", "1")
    section = _continue(ann.get("/").text)
    assert "1 of 7 answered" in section and "/topics/" not in section
    assert (
        _button(section, "Continue (question 2 of 7)") == f"/questions/{question_id(seeded, '2')}"
    )


def test_a_topic_answered_to_the_end_says_so_and_offers_it_again(ann, seeded):
    _walk_answer(ann, seeded, f"/topics/{ENGINE}/practice", "4")
    _walk_answer(ann, seeded, f"/topics/{ENGINE}/practice", "5", right=False)
    section = _continue(ann.get("/").text)
    assert "You answered every question of" in section and "2 of 2" in section
    assert "Continue practising" not in section
    again = _button(section, "Practise again")
    assert again == f"/topics/{ENGINE}/practice"
    walk = ann.get(again, follow_redirects=False).headers["location"]
    assert walk.startswith(f"/study/{question_id(seeded, '5')}?")  # the wrong one first


def test_another_learners_topic_walk_leaves_my_home_alone(ann, seeded, user_client):
    _answer(ann, seeded, "1", True)
    bob = user_client("bob")
    _walk_answer(bob, seeded, f"/topics/{ENGINE}/practice", "4")
    section = _continue(ann.get("/").text)
    assert "Engine building" not in section and "1 of 7 answered" in section
    assert "Engine building" in _continue(bob.get("/").text)


def test_home_runs_the_same_queries_when_a_topic_is_to_continue(app, ann, seeded):
    for key in "123":
        _answer(ann, seeded, key, True)
    _walk_answer(ann, seeded, f"/topics/{ENGINE}/practice", "4")
    attempt_id = _start_exam(ann)
    _save(ann, attempt_id, 1)
    with count_queries(app) as statements:
        home = ann.get("/")
    assert "Continue practising" in _continue(home.text)
    assert len(statements) == 10, [s[:70] for s in statements]
