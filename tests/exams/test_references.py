"""An attempt copies each question's references with it and shows them with the explanation."""

from app.exams.models import AttemptItem
from tests.exams.conftest import EXAM, START
from tests.exams.helpers import items, right_and_wrong
from tests.factories import cite, question_id, tags

GUIDE = {
    "title": "TensorRT Developer Guide",
    "url": "https://docs.nvidia.com/deeplearning/tensorrt/latest/index.html",
    "version": "TensorRT 10.x",
}


class Clock:
    def __call__(self):  # type: ignore[no-untyped-def]
        return START


def sources(html: str) -> list[str | None]:
    return [a["href"] for a in tags(html, "a") if "noopener" in str(a.get("rel"))]


def start(client, path: str, data: dict | None = None) -> int:  # type: ignore[no-untyped-def]
    response = client.post(path, data=data, follow_redirects=False)
    assert response.status_code == 303
    return int(response.headers["location"].rsplit("/", 1)[1])


def test_the_review_and_its_api_show_the_sources_copied_at_the_start(seeded, user_client, app):
    app.state.exam_clock = Clock()
    ann = user_client("ann")
    cite(seeded, "3", GUIDE)
    attempt_id = start(ann, f"/exams/{EXAM}/start")
    cite(seeded, "3", {"url": "https://docs.nvidia.com/later"})  # the attempt keeps its copy
    calibration = question_id(seeded, "3")
    for item in items(seeded, attempt_id):
        assert "references" in item.snapshot
        right, _ = right_and_wrong(item)
        ann.post(f"/attempts/{attempt_id}/questions/{item.position}", data={"choice": str(right)})
    ann.post(f"/attempts/{attempt_id}/submit")
    html = ann.get(f"/attempts/{attempt_id}").text
    assert sources(html) == [GUIDE["url"]]
    assert f">{GUIDE['title']}</a> (TensorRT 10.x)</li>" in html
    result = ann.get(f"/api/v1/attempts/{attempt_id}/result").json()
    cited = {item["question_id"]: item["references"] for item in result["items"]}
    assert cited.pop(calibration) == [GUIDE]
    assert set(map(len, cited.values())) == {0}


def test_practice_mode_feedback_shows_the_sources(seeded, user_client, app):
    app.state.exam_clock = Clock()
    ann = user_client("ann")
    cite(seeded, "3", GUIDE)
    data = {"topics": "precision-int8-calibration", "count": "1", "minutes": "0"}
    attempt_id = start(ann, "/exams/custom", {**data, "mode": "practice"})
    assert sources(ann.get(f"/attempts/{attempt_id}/questions/1").text) == []
    _, wrong = right_and_wrong(items(seeded, attempt_id)[0])
    ann.post(f"/attempts/{attempt_id}/questions/1", data={"choice": str(wrong)})
    page = ann.get(f"/attempts/{attempt_id}/questions/1").text
    assert "Not quite." in page and sources(page) == [GUIDE["url"]]
    api = ann.get(f"/api/v1/attempts/{attempt_id}/questions/1").json()
    assert api["feedback"]["references"] == [GUIDE]


def test_attempts_copied_before_references_existed_still_show(seeded, user_client, app):
    app.state.exam_clock = Clock()
    ann = user_client("ann")
    attempt_id = start(ann, f"/exams/{EXAM}/start")
    ann.post(f"/attempts/{attempt_id}/submit")
    with seeded.session_scope(write=True) as session:
        for item in session.query(AttemptItem).filter_by(attempt_id=attempt_id):
            item.snapshot = {k: v for k, v in item.snapshot.items() if k != "references"}
    html = ann.get(f"/attempts/{attempt_id}").text
    assert "Not passed" in html and sources(html) == []
