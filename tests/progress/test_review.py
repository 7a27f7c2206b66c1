"""Spaced review: every practice answer schedules the question with FSRS, under a test clock."""

from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Card, Rating, Scheduler, State

from app.progress import queries, service
from app.progress.models import ReviewCard
from tests.factories import choice_ids, cite, count_queries, log_in, question_id

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(app):  # type: ignore[no-untyped-def]
    app.state.clock = Clock(T0)
    return app.state.clock


@pytest.fixture
def ann(client, make_user):  # type: ignore[no-untyped-def]
    make_user("ann")
    log_in(client, "ann")
    return client


def _card(db, user_id: int, qid: int) -> ReviewCard:  # type: ignore[no-untyped-def]
    with db.session_scope() as session:
        return session.query(ReviewCard).filter_by(user_id=user_id, question_id=qid).one()


def _answer(client, db, key: str, right: bool, url: str = "/questions/{}"):  # type: ignore[no-untyped-def]
    qid = question_id(db, key)
    good, bad = choice_ids(db, key)
    choice = good if right else bad[0]
    return client.post(url.format(qid), data={"choice": str(choice)}, follow_redirects=False)


def test_a_wrong_answer_comes_back_sooner_than_a_right_one(seeded, make_user):
    user = make_user("ann")
    q1, q2 = question_id(seeded, "1"), question_id(seeded, "2")
    with seeded.session_scope(write=True) as session:
        wrong = service.review(session, user.id, q1, False, T0)
        right = service.review(session, user.id, q2, True, T0)
    assert T0 < wrong.due_at < right.due_at


def test_a_review_updates_the_card_as_fsrs_computes(seeded, make_user):
    user = make_user("ann")
    qid = question_id(seeded, "1")
    scheduler = Scheduler(enable_fuzzing=False)
    expected = Card(card_id=1, due=T0)
    moments = [(T0, True), (T0 + timedelta(hours=1), True), (T0 + timedelta(days=5), False)]
    for moment, correct in moments:
        with seeded.session_scope(write=True) as session:
            outcome = service.review(session, user.id, qid, correct, moment)
        rating = Rating.Good if correct else Rating.Again
        expected, _ = scheduler.review_card(expected, rating, review_datetime=moment)
        card = _card(seeded, user.id, qid)
        assert card.due_at == expected.due == outcome.due_at
        assert card.state == expected.state
        assert card.stability == pytest.approx(expected.stability)
        assert card.difficulty == pytest.approx(expected.difficulty)
        assert card.last_review_at == moment
    assert card.state == State.Relearning and card.reviews == 3 and card.lapses == 1


def test_review_status_counts_due_now_today_and_finds_the_next(seeded, make_user):
    ann, bob = make_user("ann"), make_user("bob")
    q1, q2, q3 = (question_id(seeded, key) for key in ("1", "2", "3"))
    with seeded.session_scope(write=True) as session:
        service.review(session, ann.id, q1, False, T0)  # due in a minute
        service.review(session, ann.id, q2, True, T0)  # due in ten minutes
        service.review(session, bob.id, q3, False, T0)  # someone else's
    with seeded.session_scope() as session:
        empty = queries.review_status(session, ann.id, T0, "UTC")
        later = queries.review_status(session, ann.id, T0 + timedelta(minutes=5), "UTC")
        _, first = queries.review_page(session, ann.id, T0 + timedelta(hours=1), "UTC")
    assert (empty.due_now, empty.due_today) == (0, 2)
    assert empty.next_due_at == T0 + timedelta(minutes=1)
    assert (later.due_now, later.due_today) == (1, 2)
    assert later.next_due_at == T0 + timedelta(minutes=10)
    assert first == q1


def test_practice_answers_make_cards_and_wrong_ones_are_due_first(ann, seeded, clock):
    _answer(ann, seeded, "1", right=True)
    _answer(ann, seeded, "2", right=False)
    clock.advance(minutes=2)
    page = ann.get("/review")
    assert "1 question due for review now" in page.text
    assert f'action="/review/{question_id(seeded, "2")}#result-heading"' in page.text
    clock.advance(minutes=10)
    assert "2 questions due for review now" in ann.get("/review").text


def test_the_due_count_on_home_and_review_agree(ann, seeded, clock):
    for key, right in (("1", True), ("2", False), ("3", False), ("4", True)):
        _answer(ann, seeded, key, right)
    for minutes in (0, 2, 15):
        clock.now = T0 + timedelta(minutes=minutes)
        home, review = ann.get("/").text, ann.get("/review").text
        due = {0: "0 questions", 2: "2 questions", 15: "4 questions"}[minutes]
        assert f"{due} due for review now" in home
        assert f"{due} due for review now" in review


def test_guests_see_no_review_panel_and_are_sent_to_log_in(client, seeded):
    assert "due for review" not in client.get("/").text
    response = client.get("/review", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/login?next=%2Freview"
    qid = question_id(seeded, "1")
    assert client.post(f"/review/{qid}", data={}, follow_redirects=False).status_code == 303


def test_answering_a_review_reschedules_it_and_leads_to_the_next(ann, seeded, clock):
    _answer(ann, seeded, "1", right=False)
    _answer(ann, seeded, "2", right=False)
    clock.advance(minutes=5)
    qid = question_id(seeded, "1")
    response = _answer(ann, seeded, "1", right=True, url="/review/{}")
    assert response.status_code == 303
    assert response.headers["location"].startswith(f"/review/{qid}?choice=")
    page = ann.get(response.headers["location"])
    assert "Correct!" in page.text and "Next review" in page.text
    assert "1 question due for review now" in page.text
    response = _answer(ann, seeded, "2", right=True, url="/review/{}")
    page = ann.get(response.headers["location"])
    assert "Back to reviews" in page.text and "0 questions due for review now" in page.text
    assert "All caught up" in ann.get("/review").text


def test_an_htmx_review_answer_returns_the_block_with_the_next_step(ann, seeded, clock):
    _answer(ann, seeded, "1", right=False)
    clock.advance(minutes=5)
    qid = question_id(seeded, "1")
    right, _ = choice_ids(seeded, "1")
    response = ann.post(
        f"/review/{qid}", data={"choice": str(right)}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200 and response.text.lstrip().startswith('<div id="practice"')
    assert "Back to reviews" in response.text


def test_a_review_answer_shows_the_sources_under_the_explanation(ann, seeded, clock):
    url = "https://docs.nvidia.com/deeplearning/tensorrt/latest/index.html"
    cite(seeded, "1", {"title": "Sparsity", "url": url, "version": "TensorRT 10.x"})
    _answer(ann, seeded, "1", right=False)
    clock.advance(minutes=5)
    response = _answer(ann, seeded, "1", right=True, url="/review/{}")
    page = ann.get(response.headers["location"]).text
    assert "Correct!" in page
    assert f'Source: <a href="{url}" rel="external noopener noreferrer">Sparsity</a>' in page


@pytest.mark.parametrize(
    ("method", "path", "data", "status"),
    [
        ("GET", "/review/999999", None, 404),
        ("GET", "/review/abc", None, 404),
        ("GET", "/review/0", None, 404),
        ("GET", "/review/{qid}?choice=x", None, 422),
        ("POST", "/review/999999", {"choice": "1"}, 404),
        ("POST", "/review/{qid}", {"choice": "abc"}, 422),
        ("POST", "/review/{qid}", {}, 422),
        ("POST", "/review/{qid}", {"choice": "999999"}, 422),
    ],
)
def test_bad_review_input_gets_a_clear_refusal(ann, seeded, method, path, data, status):
    url = path.format(qid=question_id(seeded, "1"))
    response = ann.request(method, url, data=data, follow_redirects=False)
    assert response.status_code == status
    assert "Traceback" not in response.text


def test_nobody_sees_another_learners_reviews(ann, user_client, seeded, clock):
    _answer(ann, seeded, "1", right=False)
    clock.advance(minutes=5)
    bob = user_client("bob")
    assert "0 questions due for review now" in bob.get("/").text
    assert "Nothing to review yet" in bob.get("/review").text


def test_review_pages_run_a_handful_of_queries(app, ann, seeded, clock):
    for key in ("1", "2", "3", "4", "5"):
        _answer(ann, seeded, key, right=False)
    clock.advance(minutes=5)
    for path in ("/", "/review"):
        with count_queries(app) as statements:
            assert ann.get(path).status_code == 200
        # who is asking, then the page (the home page's open exams, sets and notices among it)
        assert len(statements) <= 10, (path, statements)
