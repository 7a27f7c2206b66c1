"""The progress dashboard: mastery per topic, activity, streak; as a page and as JSON."""

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import select

from app.accounts.service import create_api_token, viewer
from app.progress import queries, service
from app.progress.read_models import TopicMastery
from tests.factories import choice_ids, count_queries, import_long_set, log_in, question_id, tags

T0 = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)  # a Thursday


def answer(db, user_id: int, key: str, right: bool, at: datetime, set_slug: str | None = None):  # type: ignore[no-untyped-def]
    """Give a practice answer at a moment of the test's choosing."""
    args = (key,) if set_slug is None else (key, set_slug)
    good, bad = choice_ids(db, *args)
    with db.session_scope(write=True) as session:
        service.check_answer(
            session, user_id, question_id(db, *args), [good if right else bad[0]], at
        )


def test_streak_counts_days_in_a_row_up_to_today_or_yesterday():
    today = date(2026, 12, 3)
    days = [today - timedelta(days=n) for n in (1, 2, 3, 5)]
    assert service.streak(days, today) == 3  # today not studied yet keeps yesterday's streak
    assert service.streak([*days, today], today) == 4
    assert service.streak([today - timedelta(days=2)], today) == 0
    assert service.streak([], today) == 0


def test_calendar_lays_out_whole_weeks_monday_first_with_days_to_come_empty():
    today = date(2026, 12, 3)  # Thursday
    weeks = service.calendar({today: 4, date(2026, 11, 23): 2}, today, 2)
    assert [len(week) for week in weeks] == [7, 7]
    assert weeks[0][0].day == date(2026, 11, 23) and weeks[0][0].answers == 2
    assert weeks[1][3].day == today and weeks[1][3].answers == 4
    assert weeks[1][2].answers == 0 and weeks[1][4].answers is None


def test_a_learner_with_no_history_gets_an_empty_dashboard(seeded, make_user):
    user = make_user("ann")
    with seeded.session_scope() as session:
        view = queries.dashboard(session, user.id, T0)
    assert (view.answers, view.days_studied, view.streak_days) == (0, 0, 0)
    assert view.review.due_now == 0 and view.review.next_due_at is None
    assert len(view.topics) == 5 and all(t.seen == 0 and t.recall is None for t in view.topics)
    assert all(d.answers in (0, None) for week in view.weeks for d in week)


def test_mastery_uses_latest_answers_and_recall_and_lists_the_weakest_first(seeded, make_user):
    user = make_user("ann")
    answer(seeded, user.id, "4", False, T0 - timedelta(days=3))
    answer(seeded, user.id, "4", True, T0 - timedelta(days=2))  # the latest answer counts
    answer(seeded, user.id, "5", False, T0 - timedelta(days=2))
    answer(seeded, user.id, "7", True, T0 - timedelta(days=1))
    answer(seeded, user.id, "7", True, T0)
    answer(seeded, user.id, "3", False, T0)
    with seeded.session_scope() as session:
        topics = {t.slug: t for t in queries.topic_mastery(session, user.id, T0)}
        order = [t.slug for t in queries.topic_mastery(session, user.id, T0)]
    engine, latency = topics["engine-building-refit"], topics["throughput-latency"]
    assert (engine.questions, engine.seen, engine.latest_right, engine.accuracy) == (2, 2, 1, 0.5)
    assert (latency.seen, latency.latest_right) == (1, 1)
    assert latency.recall == pytest.approx(1.0)  # answered right just now
    # the wrong latest answer counts as not known; the right one two days ago has faded a little
    assert 0.4 < engine.recall < 0.5 and engine.mastery == pytest.approx(engine.recall_sum / 2)
    assert topics["sparsity"].seen == 0 and not topics["sparsity"].measured
    measured = [slug for slug in order if topics[slug].measured]
    assert measured == ["precision-int8-calibration", "engine-building-refit", "throughput-latency"]
    assert order[len(measured) :] == sorted(order[len(measured) :], key=lambda s: topics[s].title)


# (stability in days, time since the last review): whole days, hours either side of a day,
# a review later than now (an exam graded late), a long gap
HAND_MADE_CARDS = [
    (0.4, timedelta(0)),
    (2.5, timedelta(days=1)),
    (2.5, timedelta(days=2, hours=23, minutes=59)),
    (11.0, timedelta(days=3, seconds=1)),
    (30.0, timedelta(days=-1)),
    (60.0, timedelta(days=45, hours=6)),
    (150.0, timedelta(days=400)),
]


def test_recall_summed_in_sql_matches_fsrs_card_by_card(seeded, make_user):
    """Each cell's recall is the sum of what fsrs itself predicts for the cards in it."""
    from fsrs import Card, State

    from app.content.models import Question, QuestionSet
    from app.progress.models import ReviewCard

    ann, bob = make_user("ann"), make_user("bob")
    with seeded.session_scope(write=True) as session:
        questions = session.execute(
            select(Question.id, QuestionSet.slug, Question.topic_id)
            .join(QuestionSet)
            .order_by(Question.id)
        ).all()
        expected: dict[tuple[str, int | None], float] = {}
        for (qid, slug, topic_id), (stability, ago) in zip(questions, HAND_MADE_CARDS, strict=True):
            last = T0 - ago
            card = Card(qid, State.Review, stability=stability, difficulty=5.0, last_review=last)
            key = (slug, topic_id)
            expected[key] = expected.get(key, 0.0) + service.SCHEDULER.get_card_retrievability(
                card, T0
            )
            for user, right in ((ann, True), (bob, False)):
                session.add(
                    ReviewCard(
                        user_id=user.id,
                        question_id=qid,
                        state=2,
                        stability=stability * (1 if user is ann else 3),
                        difficulty=5.0,
                        due_at=last + timedelta(days=1),
                        last_review_at=last,
                        reviews=1,
                        lapses=0,
                        last_correct=right,
                    )
                )
    with seeded.session_scope() as session:
        cells = queries.cells(session, ann.id, T0)
    assert {key: cell.recall_sum for key, cell in cells.items()} == pytest.approx(expected, 1e-9)
    assert sum(cell.seen for cell in cells.values()) == len(HAND_MADE_CARDS)
    assert sum(cell.right for cell in cells.values()) == len(HAND_MADE_CARDS)  # not bob's


def test_mastery_properties_handle_empty_topics():
    empty = TopicMastery("t", "T", 0, 0, 0, 0.0, None, 0)
    assert (empty.accuracy, empty.recall, empty.mastery) == (None, None, 0.0)


def test_activity_counts_days_and_the_streak(seeded, make_user):
    user = make_user("ann")
    for days_ago in (0, 1, 2, 4):
        answer(seeded, user.id, "1", True, T0 - timedelta(days=days_ago))
    answer(seeded, user.id, "2", True, T0 - timedelta(days=1, hours=1))
    with seeded.session_scope() as session:
        view = queries.dashboard(session, user.id, T0, weeks=2)
        per_day, _ = queries.activity(session, user.id)
    assert per_day[date(2026, 12, 2)] == 2 and len(per_day) == 4
    assert (view.answers, view.days_studied, view.streak_days) == (5, 4, 3)


@pytest.fixture
def ann(client, make_user, app):  # type: ignore[no-untyped-def]
    app.state.clock = lambda: T0
    make_user("ann")
    log_in(client, "ann")
    return client


def _learner_id(db, name: str = "ann") -> int:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from app.accounts.models import User

    with db.session_scope() as session:
        return session.scalars(select(User.id).where(User.username == name)).one()


def test_the_dashboard_shows_an_empty_state_before_any_answer(ann, seeded):
    page = ann.get("/progress")
    assert page.status_code == 200
    assert "Your progress starts with your first answer" in page.text
    assert page.headers["cache-control"] == "no-store"


def test_the_dashboard_shows_mastery_weakest_first_with_links(ann, seeded):
    user_id = _learner_id(seeded)
    answer(seeded, user_id, "7", True, T0 - timedelta(hours=1))
    answer(seeded, user_id, "3", False, T0 - timedelta(hours=1))
    html = ann.get("/progress").text
    assert "1 day</strong> in a row" in html and "2 answers</strong> in all" in html
    meters = tags(html, "meter")  # the two measured topics; the others have too few answers
    assert [m["aria-labelledby"] for m in meters] == [
        "mastery-precision-int8-calibration",
        "mastery-throughput-latency",
    ]
    assert [int(m["value"] or 0) for m in meters] == [0, 100]
    assert "latest answers right: 0 of 1 (0%)" in html and "recall now: 0%" in html
    assert html.count("Not enough answers yet") == 2  # the three other topics, and the exam
    assert '/topics/precision-int8-calibration#notes-heading">1 note' in html
    assert 'href="/topics/precision-int8-calibration/practice"' in html  # practise the topic


def test_guests_are_sent_to_log_in_and_the_api_wants_a_login(client, seeded):
    response = client.get("/progress", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/login?next=%2Fprogress"
    api = client.get("/api/v1/progress")
    assert api.status_code == 401 and api.json()["detail"]


def test_the_api_reports_progress_with_an_api_token(client, seeded, make_user, app):
    app.state.clock = lambda: T0
    user = make_user("ann")
    answer(seeded, user.id, "7", True, T0 - timedelta(minutes=30))
    with seeded.session_scope(write=True) as session:
        _, token = create_api_token(session, viewer(user), "script")
    response = client.get("/api/v1/progress?weeks=1", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    body = response.json()
    assert body["review"] == {
        "due_now": 1,
        "due_today": 1,
        "next_due_at": None,
        "waiting": 0,
        "done_today": 0,
        "time_zone": "UTC",
    }
    assert body["activity"]["streak_days"] == 1 and body["activity"]["answers"] == 1
    assert body["activity"]["days"][-1] == {"date": "2026-12-03", "answers": 1}
    assert len(body["activity"]["days"]) == 4  # Monday to today
    (latency,) = [t for t in body["topics"] if t["measured"]]
    assert latency["slug"] == "throughput-latency" and latency["seen"] == 1
    assert latency["topic_url"] == "/topics/throughput-latency"
    assert latency["practice_url"] == f"/questions/{question_id(seeded, '7')}"
    assert 0.9 < latency["recall"] <= 1


@pytest.mark.parametrize("weeks", ["0", "54", "x", "-1", "1e3"])
def test_bad_api_parameters_are_refused_with_422(ann, seeded, weeks):
    response = ann.get(f"/api/v1/progress?weeks={weeks}")
    assert response.status_code == 422 and response.json()["detail"]


def test_the_api_is_documented(client):
    operation = client.get("/openapi.json").json()["paths"]["/api/v1/progress"]["get"]
    assert {"200", "401", "422"} <= set(operation["responses"])
    assert operation["parameters"][0]["name"] == "weeks"


def test_nobody_sees_another_learners_progress(ann, user_client, seeded):
    answer(seeded, _learner_id(seeded), "7", True, T0)
    _sit_exam(seeded, _learner_id(seeded), T0 - timedelta(days=1), right=4)
    ann.post("/notes/tensorrt-note-2/read")
    bob = user_client("bob")
    page = bob.get("/progress").text
    assert "Your progress starts with your first answer" in page and "No finished exams" in page
    body = bob.get("/api/v1/progress").json()
    assert body["activity"]["answers"] == 0 and body["exams"]["attempts"] == 0
    assert all(t["notes_read"] == 0 for t in body["topics"])
    assert body["readiness"][0]["seen"] == 0


def _sit_exam(db, user_id: int, at: datetime, right: int) -> None:  # type: ignore[no-untyped-def]
    """Sit the seed exam at a moment, answering the first `right` questions right, then submit."""
    from app.exams import service as exams
    from tests.exams.conftest import GRACE
    from tests.exams.helpers import answer as save
    from tests.exams.helpers import items, right_and_wrong, start

    attempt_id = start(db, user_id, at)
    for item in items(db, attempt_id):
        good, bad = right_and_wrong(item)
        save(db, attempt_id, user_id, item.position, [good if item.position <= right else bad], at)
    with db.session_scope(write=True) as session:
        exams.submit(session, attempt_id, user_id, at + timedelta(minutes=5), GRACE)


def test_the_dashboard_draws_the_exam_scores_with_a_table_and_the_readiness(ann, seeded):
    user_id = _learner_id(seeded)
    _sit_exam(seeded, user_id, T0 - timedelta(days=2), right=3)
    _sit_exam(seeded, user_id, T0 - timedelta(days=1), right=6)
    html = ann.get("/progress").text
    (svg,) = [t for t in tags(html, "svg") if t.get("role") == "img"]
    assert svg["aria-labelledby"] == "chart-title-1 chart-desc-1"
    marks = [
        t["class"] for t in tags(html, "rect") + tags(html, "circle") if "chart-point" in str(t)
    ]
    assert marks == ["chart-point chart-failed", "chart-point chart-passed"]  # by shape too
    assert "43%" in html and "86%" in html and "pass mark" in html
    assert "Not passed" in html and "Passed" in html  # the table says it in words
    assert "10 minutes</strong> studied" in html
    assert "TensorRT practice exam: scores, oldest first" in html and "Expected <strong>" in html
    body = ann.get("/api/v1/progress").json()
    assert [s["percent"] for s in body["exams"]["scores"]] == [42.9, 85.7]
    assert body["exams"]["attempts"] == 2 and body["activity"]["seconds_studied"] == 600.0
    (ready,) = body["readiness"]
    assert ready["slug"] == "tensorrt-practice-exam" and ready["pass_mark"] == 70
    # the latest answers were 6 of 7 right, one day ago
    assert (ready["seen"], ready["right"]) == (7, 6) and 25 < ready["expected_percent"] <= 85


def test_an_empty_dashboard_explains_each_part(ann, seeded):
    html = ann.get("/progress").text
    assert "No finished exams yet" in html and 'href="/exams"' in html
    assert "as a guess among four choices" in html and "Not enough answers yet" in html
    body = ann.get("/api/v1/progress").json()
    assert body["exams"] == {"attempts": 0, "scores": []}
    assert body["readiness"][0]["expected_percent"] is None


@pytest.mark.parametrize("history", [1, 12])
def test_dashboard_and_home_queries_do_not_grow_with_the_history(app, ann, seeded, history):
    """The same statements for a short history as for a long one: answers, exams, notes read."""
    user_id = _learner_id(seeded)
    for n in range(history * 5):
        answer(seeded, user_id, str(n % 7 + 1), n % 3 == 0, T0 - timedelta(days=n))
    for n in range(history):
        _sit_exam(seeded, user_id, T0 - timedelta(days=n, hours=3), right=n % 7)
    ann.post("/notes/tensorrt-note-2/read")
    import_long_set(seeded, "bulk", 40)
    # The pages read the catalogue too, since tests keep no content cache: the home page, and
    # three statements of the dashboard's (question counts, topics, exams), and the home page's
    # reviews due, open exams and where the learner is in its sets; both pages their notices, the dashboard also the learner's exams a regrade changed lately.
    # Each request looks up who is asking.
    for path, expected in (("/progress", 12), ("/api/v1/progress", 10), ("/", 10)):
        with count_queries(app) as statements:
            assert ann.get(path).status_code == 200
        assert len(statements) == expected, (path, statements)


def test_the_dashboard_is_read_afresh_with_the_content_cache_on(settings, seeded, make_user):
    """With the library cached, a dashboard reads the learner's rows only, and every time."""
    from fastapi.testclient import TestClient

    from app.main import create_app

    app = create_app(settings.model_copy(update={"content_cache_seconds": 60}))
    app.state.clock = lambda: T0
    for name in ("ann", "bob"):
        make_user(name)

    def load(client: TestClient) -> tuple[str, int]:
        with count_queries(app) as statements:
            page = client.get("/progress")
        assert page.status_code == 200
        return page.text, len(statements)

    with TestClient(app) as ann, TestClient(app) as bob:
        log_in(ann, "ann")
        log_in(bob, "bob")
        answer(seeded, _learner_id(seeded), "7", True, T0 - timedelta(hours=1))
        first, _ = load(ann)
        again, statements = load(ann)
        assert again == first and "1 answer</strong> in all" in again
        answer(seeded, _learner_id(seeded), "3", False, T0 - timedelta(minutes=5))
        moved_on, later = load(ann)
        assert "2 answers</strong> in all" in moved_on and later == statements
        # who is asking, then answers per day, cards, notes read, exams (2), reviews due and
        # the learner's notices and the exams a regrade changed lately
        assert statements == 9
        page, _ = load(bob)
        assert "Your progress starts with your first answer" in page and ">bob</a>" in page


LEARNER_TABLES = ("review_card", "practice_answer", "exam_attempt", "note_read")


def test_the_dashboard_reads_one_learners_rows_through_indexes(app, ann, seeded):
    """No dashboard statement scans a learners' table; cards and answers read indexes alone."""
    from sqlalchemy import event

    if seeded.engine.dialect.name != "sqlite":
        pytest.skip("reads SQLite's query plans")
    user_id = _learner_id(seeded)
    answer(seeded, user_id, "7", True, T0 - timedelta(days=2))
    _sit_exam(seeded, user_id, T0 - timedelta(days=1), right=4)
    ann.post("/notes/tensorrt-note-2/read")
    ann.get("/progress")
    ran: list[tuple[str, object]] = []

    def record(_conn, _cursor, statement, parameters, *_args) -> None:  # type: ignore[no-untyped-def]
        if statement.startswith("SELECT"):
            ran.append((statement, parameters))

    db = app.state.db
    engines = [db.engine]
    for engine in engines:
        event.listen(engine, "before_cursor_execute", record)
    try:
        assert ann.get("/progress").status_code == 200
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", record)
    plans = []
    with seeded.engine.connect() as conn:
        for statement, parameters in ran:
            rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
            plans.extend(str(row[-1]) for row in rows)
    mine = [line for line in plans if any(f" {table} " in f"{line} " for table in LEARNER_TABLES)]
    assert {table for table in LEARNER_TABLES if any(table in line for line in mine)} == set(
        LEARNER_TABLES
    )
    assert all(line.startswith("SEARCH") and "(user_id=?" in line for line in mine), mine
    assert all("COVERING INDEX" in line for line in mine if "review_card" in line), mine
    assert all("COVERING INDEX" in line for line in mine if "practice_answer" in line), mine


def test_deleting_the_account_deletes_its_answers_and_cards(seeded, make_user):
    from app.accounts.service import delete_account
    from app.progress.models import PracticeAnswer, ReviewCard
    from tests.factories import PASSWORD, count_rows

    user = make_user("ann")
    answer(seeded, user.id, "1", True, T0)
    assert count_rows(seeded, ReviewCard) == 1
    with seeded.session_scope(write=True) as session:
        delete_account(session, viewer(user), PASSWORD)
    assert count_rows(seeded, ReviewCard) == count_rows(seeded, PracticeAnswer) == 0
