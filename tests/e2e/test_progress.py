"""A learner's progress in a real browser: the dashboard, reached from the home page, changes
with answers and stays accessible and phone-readable; so does the review page."""

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import (
    CALIBRATION_RIGHT,
    CALIBRATION_STEM,
    NOTE_PATH,
    TOPIC,
    Account,
    assert_accessible,
    assert_no_horizontal_scroll,
    choose,
    log_in,
    open_question,
)


@pytest.fixture
def learner(page: Page, create_account: Callable[..., object]) -> Page:
    log_in(page, create_account("learner"), "/progress")  # type: ignore[arg-type]
    return page


def test_the_dashboard_changes_after_an_answer_and_stays_accessible(learner: Page) -> None:
    page = learner
    expect(
        page.get_by_role("heading", name="Your progress starts with your first answer")
    ).to_be_visible()
    assert_accessible(page, "empty dashboard")
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    page.goto("/")
    page.get_by_role("link", name="See your progress").click()
    topic = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=TOPIC))
    expect(topic.get_by_role("meter")).to_have_attribute("value", "100")
    expect(topic).to_contain_text("latest answers right: 1 of 1 (100%)")
    expect(page.get_by_text("1 day in a row")).to_be_visible()
    assert_accessible(page, "dashboard with an answer")
    page.goto("/review")
    expect(page.get_by_role("heading", name="All caught up")).to_be_visible()
    assert_accessible(page, "review, nothing due")


@pytest.mark.parametrize("width", [390, 320])
def test_the_dashboard_fits_a_phone(learner: Page, width: int) -> None:
    page = learner
    page.set_viewport_size({"width": width, "height": 800})
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    page.goto("/progress")
    expect(page.get_by_role("heading", name="Topics, weakest first")).to_be_visible()
    assert_no_horizontal_scroll(page, f"dashboard at {width} px")


# --- exams, study next and reviews change the dashboard ------------------------------------


def _answer_shown_question(page: Page) -> None:
    page.locator("input[name=choice] + label").first.click()
    page.get_by_role("button", name="Check answer").click()
    expect(
        page.get_by_role("heading", name=re.compile(r"^(Correct!|Not quite\.)$"))
    ).to_be_visible()


def test_answers_and_an_exam_change_the_dashboard_and_a_session_is_cleared(learner: Page) -> None:
    page = learner
    expect(page.get_by_text("No finished exams yet")).to_be_visible()
    open_question(page, CALIBRATION_STEM)
    choose(page, CALIBRATION_RIGHT)
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()

    page.goto("/exams")
    page.get_by_role("button", name="Start TensorRT practice exam").click()
    page.locator("input[name=choice] + label").first.click()
    page.get_by_role("button", name="Save and next").click()
    page.get_by_role("link", name="Review and submit").click()
    page.get_by_role("button", name="Submit the exam").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"\d+%$"))

    page.goto("/progress")
    topic = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=TOPIC))
    expect(topic.get_by_role("meter")).to_have_attribute("value", re.compile(r"^\d+$"))
    chart = page.get_by_role("img", name="TensorRT practice exam: scores, oldest first")
    expect(chart).to_be_visible()
    expect(chart.locator(".chart-point")).to_have_count(1)
    expect(page.get_by_role("table").filter(has_text="TensorRT practice exam")).to_be_visible()
    expect(page.get_by_role("heading", name="Readiness")).to_be_visible()
    assert_accessible(page, "dashboard with an exam")

    page.get_by_role("link", name="Study next").click()
    expect(page.locator(".study-intro")).to_have_text("Study next")
    expect(page.locator(".eyebrow")).to_have_text(re.compile(r"^Question 1 of \d+"))
    for _ in range(12):  # a session is at most ten questions
        _answer_shown_question(page)
        step = page.get_by_role("link", name=re.compile(r"^(Next question|Finish the session)$"))
        finishing = step.inner_text() == "Finish the session"
        step.click()
        if finishing:
            break
    expect(page.get_by_role("heading", name="Session done")).to_be_visible()
    assert_accessible(page, "study session done")

    page.goto("/review")  # whatever came due meanwhile is cleared too
    for _ in range(12):
        if page.get_by_role("heading", name="All caught up").count():
            break
        _answer_shown_question(page)
        page.get_by_role("link", name=re.compile(r"^(Next review|Back to reviews)$")).click()
    expect(page.get_by_role("heading", name="All caught up")).to_be_visible()


def test_reading_a_note_to_its_end_marks_it_read(learner: Page) -> None:
    page = learner
    page.goto(NOTE_PATH)
    expect(page.get_by_role("button", name="Mark as read")).to_be_visible()
    page.mouse.wheel(0, 100_000)
    expect(page.get_by_text("you marked this note as read on")).to_be_visible()
    page.goto("/progress")
    topic = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name=TOPIC))
    expect(topic).to_contain_text("notes read: 1 of 1")


def test_without_javascript_the_button_marks_a_note_read(
    no_js_page: Page, create_account: Callable[..., object]
) -> None:
    page = no_js_page
    log_in(page, create_account("reader"), NOTE_PATH)  # type: ignore[arg-type]
    page.mouse.wheel(0, 100_000)
    expect(page.get_by_role("button", name="Mark as read")).to_be_visible()
    page.get_by_role("button", name="Mark as read").click()
    expect(page.get_by_text("you marked this note as read on")).to_be_visible()


def _realistic_history(database_url: str, username: str) -> None:
    """Three weeks of practice, exams with rising scores and a note read, in the past."""
    import random
    from datetime import timedelta

    from sqlalchemy import select

    from app.accounts.models import User
    from app.content.models import Choice, Question
    from app.db import Database, utcnow
    from app.exams import service as exams
    from app.progress import service

    rng, now, db = random.Random(3), utcnow(), Database(database_url)
    grace = timedelta(seconds=30)
    try:
        with db.session_scope() as session:
            user_id = session.scalars(select(User.id).where(User.username == username)).one()
            keys = {
                q: [
                    (c.id, c.is_correct)
                    for c in session.scalars(select(Choice).where(Choice.question_id == q))
                ]
                for q in session.scalars(select(Question.id))
            }
        for day in range(21, 0, -1):
            if rng.random() < 0.3:
                continue
            for q, choices in rng.sample(sorted(keys.items()), 4):
                right = rng.random() < 0.5 + (21 - day) / 50
                pick = next(cid for cid, ok in choices if ok == right)
                with db.session_scope(write=True) as session:
                    service.check_answer(
                        session, user_id, q, [pick], now - timedelta(days=day), rng.uniform(10, 60)
                    )
        for day, share in ((18, 0.3), (12, 0.5), (6, 0.6), (2, 0.8)):
            started = now - timedelta(days=day)
            with db.session_scope(write=True) as session:
                drawn = exams.blueprint_paper(session, "tensorrt-practice-exam", rng)
                attempt_id = exams.sit(session, user_id, drawn, started, grace).attempt_id
            from app.exams.models import AttemptItem

            with db.session_scope(write=True) as session:
                for item in session.scalars(
                    select(AttemptItem).where(AttemptItem.attempt_id == attempt_id)
                ):
                    right = rng.random() < share
                    ids = (
                        item.snapshot["correct_ids"]
                        if right
                        else [
                            c["id"]
                            for c in item.snapshot["choices"]
                            if c["id"] not in item.snapshot["correct_ids"]
                        ][:1]
                    )
                    item.selected_ids, item.answered_at = ids, started + timedelta(minutes=1)
            with db.session_scope(write=True) as session:
                exams.submit(session, attempt_id, user_id, started + timedelta(minutes=8), grace)
        with db.session_scope(write=True) as session:
            service.mark_read(session, user_id, "tensorrt-note-2", now - timedelta(days=10))
    finally:
        db.dispose()


def test_a_dashboard_with_a_realistic_history(
    page: Page,
    create_account: Callable[..., Account],
    database_url: str,
    screenshot: Callable[[Page, str], None],
) -> None:
    account = create_account("historian")
    _realistic_history(database_url, account.username)
    log_in(page, account, "/progress")
    page.set_viewport_size({"width": 1000, "height": 900})
    chart = page.get_by_role("img", name="TensorRT practice exam: scores, oldest first")
    expect(chart.locator(".chart-point")).to_have_count(4)
    expect(
        page.get_by_text(re.compile(r"\d+ days? in a row|\d+ days? studied")).first
    ).to_be_visible()
    assert_accessible(page, "dashboard with a history")
    screenshot(page, "dashboard")


def _seed_choices(database_url: str) -> list[tuple[int, int, int]]:
    """Each seed question's id with a right and a wrong choice id, in the set's order (other
    browser tests add sets of their own)."""
    from sqlalchemy import select

    from app.content.models import Choice, Question, QuestionSet
    from app.db import Database
    from tests.factories import SEED_SET

    db = Database(database_url)
    try:
        with db.session_scope() as session:
            rows = session.execute(
                select(Question.id, Choice.id, Choice.is_correct)
                .join(Choice, Choice.question_id == Question.id)
                .join(QuestionSet, QuestionSet.id == Question.set_id)
                .where(QuestionSet.slug == SEED_SET)
                .order_by(Question.position, Choice.position)
            ).all()
    finally:
        db.dispose()
    found: dict[int, dict[bool, int]] = {}
    for qid, cid, correct in rows:
        found.setdefault(qid, {}).setdefault(bool(correct), cid)
    return [(qid, ids[True], ids[False]) for qid, ids in found.items()]


def test_two_of_seven_right_is_shown_below_the_pass_mark(
    learner: Page, database_url: str, screenshot: Callable[[Page, str], None]
) -> None:
    page = learner
    questions = _seed_choices(database_url)
    assert len(questions) == 7
    for n, (qid, right, wrong) in enumerate(questions):
        page.goto(f"/questions/{qid}")
        page.locator(f"input[name=choice][value='{right if n < 2 else wrong}'] + label").click()
        page.get_by_role("button", name="Check answer").click()
        expect(
            page.get_by_role("heading", name="Correct!" if n < 2 else "Not quite.")
        ).to_be_visible()
    page.goto("/progress")
    exam = page.get_by_role("listitem").filter(
        has=page.get_by_role("heading", name="TensorRT practice exam")
    )
    expect(exam).to_contain_text("7 of 7 answered, 2 right")
    expect(exam).to_contain_text("below the pass mark")
    expect(exam).not_to_contain_text("at or above")
    topics = page.get_by_role("region", name="Topics, weakest first")
    first = topics.get_by_role("listitem").first  # weakest: all its latest answers wrong
    expect(first).to_contain_text("latest answers right: 0 of")
    expect(first).to_contain_text("recall now: 0%")
    assert_accessible(page, "dashboard of a learner with 2 of 7 right")
    page.set_viewport_size({"width": 390, "height": 844})
    assert_no_horizontal_scroll(page, "dashboard of a learner with 2 of 7 right at 390 px")
    screenshot(page, "dashboard-phone")
