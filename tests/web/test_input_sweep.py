"""Every route's inputs (address, query and form), swept with what people and scripts send
instead of a number: refused with a 4xx, never a server error, on both databases.

The routes and their inputs are read from the application, so a new route is swept too; a
path parameter the sweep cannot fill makes it fail until a real value is named here.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi import FastAPI, params
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts.models import ApiToken
from app.content.blueprints import ExamBlueprint
from app.content.errata import ProblemReport
from app.content.models import Note, QuestionNoteLink, QuestionSet, Topic
from app.content.notices import Notice, tell_corrected
from app.db import Database
from app.web.forms import INT32_MAX
from tests.factories import log_in

NOT_NUMBERS = ["²", "①", "٣", str(INT32_MAX + 1), str(10**30), "-1", "", " ", " 7 x"]
NOT_REACHED = (401, 403, 404, 405)
# valid values for form fields, so that a field checked after them is reached
FORM_VALUES = {"count": "3", "minutes": "10", "mode": "exam", "name": "sweep", "multiplier": "1.5"}


@dataclass(frozen=True)
class Input:
    method: str
    path: str
    kind: str  # "path", "query" or "form"
    name: str
    number: bool = False  # declared as an int: only a number in its bounds is taken


def inputs(app: FastAPI) -> list[Input]:
    """Every path, query and form input of every route the application serves, including
    those a route reads itself and documents (`openapi_extra`)."""
    found: dict[Input, None] = {}
    for route in iter_route_contexts(app.routes):
        dependant = getattr(route, "dependant", None)
        if dependant is None:  # static files, the OpenAPI document
            continue
        documented = (getattr(route, "openapi_extra", None) or {}).get("parameters", [])
        found_here = _params(dependant) + [(p["in"], p["name"], False) for p in documented]
        for method in sorted(route.methods - {"HEAD"}):
            for kind, name, number in found_here:
                found[Input(method, route.path, kind, name, number)] = None
    return list(found)


def _params(dependant: Any) -> list[tuple[str, str, bool]]:
    forms = [p for p in dependant.body_params if isinstance(p.field_info, params.Form)]
    out = [
        (kind, p.alias, p.field_info.annotation in (int, int | None))
        for kind, found in (("path", dependant.path_params), ("query", dependant.query_params))
        for p in found
    ]
    out += [("form", p.alias, p.field_info.annotation in (int, int | None)) for p in forms]
    for sub in dependant.dependencies:
        out += _params(sub)
    return out


@pytest.fixture
def site(app, seeded: Database, make_user) -> Iterator[tuple[TestClient, dict[str, str]]]:  # type: ignore[no-untyped-def]
    """An admin (every role's routes reach their parsing) with an open attempt and a token, and
    a real value for every path parameter."""
    boss = make_user("boss", role="admin")
    admin = TestClient(app, raise_server_exceptions=False)
    log_in(admin, "boss")
    with seeded.session_scope() as session:
        link = session.execute(select(QuestionNoteLink)).scalars().first()
        assert link is not None
        exam = session.scalars(select(ExamBlueprint.slug).order_by(ExamBlueprint.id)).first()
        slugs = {
            "notes": session.scalars(select(Note.slug)).first(),
            "topics": session.scalars(select(Topic.slug)).first(),
            "sets": session.scalars(select(QuestionSet.slug)).first(),
            "question-sets": session.scalars(select(QuestionSet.slug)).first(),
            "exams": exam,
        }
    started = admin.post(f"/exams/{exam}/start", follow_redirects=False)
    attempt = re.search(r"/attempts/(\d+)", started.headers["location"])
    assert attempt is not None
    admin.post("/account/tokens", data={"name": "sweep", "days": "90"})
    with seeded.session_scope() as session:
        token = session.scalars(select(ApiToken.id)).one()
        report_id = session.scalars(select(ProblemReport.id)).first()  # the seed's errata
    with seeded.session_scope(write=True) as session:
        tell_corrected(session, boss.id, link.question_id)
        notice = session.scalars(select(Notice.id)).one()
    values = {
        "question_id": str(link.question_id),
        "section_id": str(link.section_id),
        "attempt_id": attempt.group(1),
        "position": "1",
        "number": "1",  # a question's revision
        "item_id": str(token),
        "report_id": str(report_id),
        "notice_id": str(notice),
        "username": "boss",
        "sha256": "0" * 64,  # no such image: a 404, whatever the name
        "name": "image.png",
        "plan": str(link.question_id),
        **{f"slug@{segment}": str(slug) for segment, slug in slugs.items()},
        **{f"form@{name}": value for name, value in FORM_VALUES.items()},
        "form@topics": str(slugs["topics"]),
        "form@username": "boss",
    }
    with admin:
        yield admin, values


def _path(path: str, values: dict[str, str], swept: str | None, value: str) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match.group(1).split(":")[0]
        if name == swept:
            return value
        key = name if name != "slug" else f"slug@{_segment(path)}"
        assert key in values, f"name a real value for {{{name}}} in {path}"
        return values[key]

    return re.sub(r"\{([^}]+)\}", fill, path)


def _segment(path: str) -> str:
    return path.removeprefix("/api/v1").removeprefix("/author").split("/")[1]


def _send(
    client: TestClient, target: Input, values: dict[str, str], value: str, multipart: bool = False
):  # type: ignore[no-untyped-def]
    """Send value as the target input, the others with real values (so a form is checked
    past its first field)."""
    swept = target.name if target.kind == "path" else None
    path = _path(target.path, values, swept, value)
    query = {"plan": values["plan"]} if target.path.startswith("/study/") else {}
    if target.kind == "query":
        query[target.name] = value
    form: dict[str, Any] = {}
    if target.kind == "form":
        fields = {k[5:]: v for k, v in values.items() if k.startswith("form@")}
        fields[target.name] = value
        if multipart:
            form["files"] = {name: (None, text) for name, text in fields.items()}
        else:
            form["data"] = fields
    return client.request(target.method, path, params=query, follow_redirects=False, **form)


def test_the_sweep_finds_the_number_inputs(app):
    """The sweep reaches the inputs that once answered 500 for a Unicode digit."""
    found = {(i.method, i.path, i.name) for i in inputs(app)}
    assert ("GET", "/api/v1/questions", "limit", True) in {
        (i.method, i.path, i.name, i.number) for i in inputs(app)
    }
    for expected in [
        ("GET", "/questions/{question_id}", "choice"),
        ("GET", "/review/{question_id}", "choice"),
        ("GET", "/study/{question_id:int}", "choice"),
        ("POST", "/questions/{question_id}", "shown"),
        ("POST", "/account/tokens", "days"),
        ("POST", "/exams/custom", "count"),
        ("POST", "/exams/custom", "minutes"),
        ("POST", "/exams/extra-time", "multiplier"),
        ("POST", "/attempts/{attempt_id}/questions/{position}", "choice"),
        ("GET", "/study/done", "plan"),
        ("GET", "/api/v1/progress", "weeks"),
    ]:
        assert expected in found, expected


def test_no_input_answers_a_server_error(app, site):
    admin, values = site
    failures = []
    for target in inputs(app):
        for value in NOT_NUMBERS:
            if target.kind == "path" and not value:
                continue  # an empty segment makes another address (`/review/` is `/review`)
            status = _send(admin, target, values, value).status_code
            reached = target.kind == "path" or status not in NOT_REACHED
            refused = 400 <= status < 500 or not target.number
            if status >= 500 or not reached or not refused:
                failures.append((target, value, status))
    assert not failures, "\n".join(map(str, failures))


def test_a_control_character_in_any_form_field_is_refused_as_multipart(app, site):
    """Multipart forms reach the route unread: each text field refuses control characters."""
    admin, values = site
    failures = []
    for target in inputs(app):
        if target.kind != "form":
            continue
        response = _send(admin, target, values, "1\x00", multipart=True)
        if response.status_code != 422:
            failures.append((target, response.status_code))
    assert not failures, "\n".join(map(str, failures))


def test_ids_past_the_columns_range_are_refused_before_any_query(site):
    """PostgreSQL refuses an integer past 32 bits (a server error); SQLite looked it up."""
    admin, values = site
    question = values["question_id"]
    assert admin.get("/study/done", params={"plan": f"{question}.2147483648"}).status_code == 422
    check = admin.post(f"/api/v1/questions/{question}/check", json={"choice_ids": [2**31]})
    assert check.status_code == 422
    assert admin.get("/study/done", params={"plan": question}).status_code == 200
