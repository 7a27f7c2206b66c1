"""Learners answering while an author imports a large set, through a real server on SQLite.

The import holds SQLite's one write lock while it writes; an answer waits its turn (first
come, first served) and is saved. None fails, and every acknowledged answer is in the database.
"""

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar

import pytest

from app.progress.models import PracticeAnswer
from tests.conftest import PG_URL
from tests.factories import PASSWORD, choice_ids, count_rows, question_id
from tests.servers import server_env, server_process

QUESTIONS = 1_000  # about 2 s of writing under the lock on a busy two-core machine

pytestmark = pytest.mark.skipif(bool(PG_URL), reason="SQLite's single writer is what is tested")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def _logged_in(url: str, username: str) -> urllib.request.OpenerDirector:
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(CookieJar()), _NoRedirect
    )
    form = urllib.parse.urlencode({"username": username, "password": PASSWORD}).encode()
    with pytest.raises(urllib.error.HTTPError) as answer:
        opener.open(f"{url}/login", data=form, timeout=30)
    assert answer.value.code == 303
    return opener


def _large_set() -> bytes:
    questions = [
        {
            "id": f"large/{n}",
            "set": "large",
            "stem": f"Large question number {n}?",
            "choices": [{"text": "yes", "correct": True}, {"text": "no", "correct": False}],
        }
        for n in range(1, QUESTIONS + 1)
    ]
    document = {
        "format": "studyhall.content/1",
        "question_sets": [{"slug": "large", "title": "Large"}],
        "questions": questions,
    }
    return json.dumps(document).encode()


def _upload(opener: urllib.request.OpenerDirector, url: str, data: bytes) -> int:
    boundary = "studyhall-large-upload"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="document"; filename="large.json"'
            "\r\nContent-Type: application/json\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{url}/author/import",
        data=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    with opener.open(request, timeout=120) as response:
        return response.status


def test_answers_posted_during_a_large_import_all_succeed(seeded, make_user, db_url, tmp_path):
    make_user("learner")
    make_user("author", role="author")
    target, (right, _) = question_id(seeded, "1"), choice_ids(seeded, "1")
    with server_process(server_env(db_url), tmp_path / "server.log") as (url, _):
        learner, author = _logged_in(url, "learner"), _logged_in(url, "author")
        statuses: list[int] = []
        importing = threading.Event()

        def answer() -> None:
            form = urllib.parse.urlencode({"choice": right}).encode()
            importing.wait()
            while importing.is_set() or len(statuses) < 8:
                try:
                    learner.open(f"{url}/questions/{target}", data=form, timeout=60)
                except urllib.error.HTTPError as exc:
                    statuses.append(exc.code)

        tabs = [threading.Thread(target=answer) for _ in range(4)]
        for tab in tabs:
            tab.start()
        importing.set()
        try:
            imported = _upload(author, url, _large_set())
        finally:
            importing.clear()
            for tab in tabs:
                tab.join(timeout=120)
        log = (tmp_path / "server.log").read_text()
    assert imported == 200
    assert statuses and set(statuses) == {303}, (sorted(set(statuses)), log[-3_000:])
    assert count_rows(seeded, PracticeAnswer) == len(statuses)
