"""Content is never trusted: HTML in imported text shows as text on every page."""

from tests.factories import import_file, question_id, tags

EVIL = "<script>alert(1)</script> and <img src=x onerror=alert(2)>"
QA = (
    "Evil Set — Questions and Answers\n"
    f"Question 1: Which is safe? {EVIL}\n"
    f"- plain text {EVIL} (Correct answer)\n"
    "- other\n"
    f"Correct answer: plain text {EVIL}\n"
    f"Because {EVIL} is shown as text.\n"
)
NOTE = (
    "someone\n\nEvil Note\n\nWritten in\n\nby\n\nsomeone\n\n, ,\n"
    f"  1. Section {EVIL}\n    1. Item {EVIL}\n    2. Link javascript:alert(3)\n"
)


def test_html_in_questions_and_notes_renders_as_text(client, db):
    import_file(db, QA.encode(), "evil.txt", 0.01)
    import_file(db, NOTE.encode(), "evil-note.txt", 0.01)
    qid = question_id(db, "1", "evil-set")
    pages = [
        client.get(f"/questions/{qid}").text,
        client.post(f"/questions/{qid}", data={"choice": "1"}).text,
        client.get("/notes/evil-note").text,
        client.get("/sets/evil-set").text,
        client.get("/").text,
    ]
    for html in pages:
        assert all(script.get("src") for script in tags(html, "script"))
        assert not [img for img in tags(html, "img") if img.get("src") == "x"]
        assert "onerror=" not in html.replace("onerror=alert(2)&gt;", "")
        assert 'href="javascript:' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[0]
    assert "&lt;img src=x onerror=alert(2)&gt;" in pages[2]


def test_api_returns_the_escaped_html_too(client, db):
    import_file(db, QA.encode(), "evil.txt", 0.01)
    qid = question_id(db, "1", "evil-set")
    body = client.get(f"/api/v1/questions/{qid}").json()
    assert "<script>" not in body["stem_html"] and "&lt;script&gt;" in body["stem_html"]
    assert "<script>" in body["stem"].replace("\\", "")  # the source keeps what was written
