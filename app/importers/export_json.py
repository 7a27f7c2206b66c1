"""The JSON export format ("studyhall.content/1"), read back as a bundle."""

import json
import re
from typing import Annotated, Any, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)

from app.content.bundle import (
    BlueprintData,
    Bundle,
    ChoiceData,
    NoteData,
    QuestionData,
    QuestionSetData,
    ReferenceData,
    Report,
    Scope,
    TopicData,
)
from app.content.checks import MAX_REFERENCES, REFERENCE_TITLE, URL, VERSION, url_problem
from app.content.export import FORMAT
from app.importers.errors import ImportRefused
from app.importers.text import (
    deepest_line,
    first_line_with,
    line_at,
    numbered,
    refuse_control_characters,
)

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=120)]
Text = Annotated[str, StringConstraints(min_length=1, max_length=20_000)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


M = TypeVar("M", bound=_Model)


class _Topic(_Model):
    slug: Slug
    title: Text
    parent: Slug | None = None
    description: str = ""


class _Set(_Model):
    slug: Slug
    title: Text
    source: str = ""
    topic: Slug | None = None


class _Choice(_Model):
    text: Text
    correct: bool
    feedback: Annotated[str, StringConstraints(max_length=20_000)] = ""
    fixed: bool = False


def _web_address(url: str) -> str:
    problem = url_problem(url)
    if problem is not None:
        raise ValueError(f"the url {problem}")
    return url


class _Reference(_Model):
    title: Annotated[str, StringConstraints(min_length=1, max_length=REFERENCE_TITLE)] | None = None
    url: Annotated[str, StringConstraints(max_length=URL), AfterValidator(_web_address)]
    version: Annotated[str, StringConstraints(min_length=1, max_length=VERSION)] | None = None


class _Question(_Model):
    id: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    set: Slug
    topic: Slug | None = None
    stem: Text
    choices: list[_Choice] = Field(min_length=2, max_length=26)
    explanation: str = ""
    kind: str = Field(default="single", pattern="^(single|multi)$")
    source: str = ""
    notes: list[str] = []
    # checked one at a time (see _references), so a refusal names the reference's own line
    references: list[Any] = Field(default=[], max_length=MAX_REFERENCES)
    versions: list[str] | None = None
    difficulty: str | None = None
    level: str | None = None
    accepted: list[str] | None = None


class _Note(_Model):
    slug: Slug
    title: Text
    author: str = ""
    topic: Slug | None = None
    source: str = ""
    markdown: Text


class _Exam(_Model):
    slug: Slug
    title: Text
    description: str = ""
    question_count: int = Field(ge=1, le=1000)
    time_limit_s: int | None = Field(default=None, ge=60, le=86_400)
    pass_mark: int = Field(default=70, ge=0, le=100)
    mode: str = Field(default="exam", pattern="^(exam|practice)$")
    shuffle_questions: bool = True
    shuffle_choices: bool = True
    partial_credit: bool = False
    sets: list[Slug] = []
    topics: dict[Slug, float] = {}
    reasoning: int = Field(default=0, ge=0, le=100)


class _Export(_Model):
    format: str
    topics: list[_Topic] = []
    question_sets: list[_Set] = []
    questions: list[Any] = []  # checked one at a time (see _bundle), so memory stays flat
    notes: list[_Note] = []
    exams: list[_Exam] = []


def looks_like(text: str) -> bool:
    """Tell whether text is a JSON document."""
    return text.lstrip().startswith("{")


def parse(text: str, file: str) -> tuple[Bundle, Report]:
    """Parse a JSON export into a bundle."""
    refuse_control_characters(text, file)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportRefused(file, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        line = deepest_line(text)
        raise ImportRefused(file, line, "the JSON is nested too deeply to read") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        line = first_line_with(text, '"format"') if isinstance(raw, dict) else 1
        raise ImportRefused(file, line, f'not a Studyhall export: "format" must be "{FORMAT}"')
    doc = _validated(_Export, raw, (), text, raw, file)
    report = Report(file=file, format="json")
    bundle = _bundle(doc, raw, text, file)
    for name in ("topics", "question_sets", "questions", "notes"):
        report.count(name, len(getattr(doc, name)))
    if doc.exams:
        report.count("exams", len(doc.exams))
    return bundle, report


def _validated(
    model: type[M], value: object, loc: tuple[int | str, ...], text: str, raw: object, file: str
) -> M:
    """Validate value (found at loc in raw) or refuse it, naming the line it is on."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = (*loc, *error["loc"])
        raise ImportRefused(
            file,
            _line_for(text, raw, where),
            f"{'.'.join(str(p) for p in where)}: {_message(error['msg'])}",
        ) from None


def _bundle(doc: _Export, raw: dict[str, Any], text: str, file: str) -> Bundle:
    lines = _key_lines(text)
    sets = {
        s.slug: QuestionSetData(
            s.slug, s.title, s.source, s.topic, line=lines.get(("slug", s.slug), 1)
        )
        for s in doc.question_sets
    }
    for index, item in enumerate(doc.questions):
        question = _validated(_Question, item, ("questions", index), text, raw, file)
        # the parsed JSON of a question goes as soon as its bundle entry exists
        doc.questions[index] = raw["questions"][index] = None
        line = lines.get(("id", question.id), 1)
        if question.set not in sets:
            raise ImportRefused(
                file, line, f"question {question.id!r} names an unknown set {question.set!r}"
            )
        key = question.id.removeprefix(f"{question.set}/")
        if "/" in key or not key:
            raise ImportRefused(
                file,
                line,
                f"question id {question.id!r} must be {question.set!r}, a '/' and a key "
                "without '/'",
            )
        sets[question.set].questions.append(
            QuestionData(
                key=key,
                stem=question.stem,
                choices=[
                    ChoiceData(c.text, c.correct, c.feedback, c.fixed) for c in question.choices
                ],
                explanation=question.explanation,
                line=line,
                kind=question.kind,
                source=question.source,
                topic=question.topic,
                notes=question.notes,
                references=_references(question.references, (index, line), text, file),
                scope=_scope(question),
            )
        )
    return Bundle(
        topics=[
            TopicData(t.slug, t.title, t.parent, t.description, lines.get(("slug", t.slug), 1))
            for t in doc.topics
        ],
        question_sets=list(sets.values()),
        notes=[
            NoteData(
                n.slug,
                n.title,
                n.markdown,
                n.author,
                n.source,
                n.topic,
                line=lines.get(("slug", n.slug), 1),
            )
            for n in doc.notes
        ],
        blueprints=[_blueprint(exam, lines.get(("slug", exam.slug), 1)) for exam in doc.exams],
    )


def _scope(question: _Question) -> Scope | None:
    if not question.model_fields_set & {"versions", "difficulty", "level", "accepted"}:
        return None  # an older file: the stored scope stays
    return Scope(
        tuple(question.versions or ()),
        question.difficulty,
        question.level,
        tuple(question.accepted or ()),
    )


def _references(items: list[Any], at: tuple[int, int], text: str, file: str) -> list[ReferenceData]:
    """Validate a question's references; a refusal names the line of the reference at fault."""
    references = []
    for number, item in enumerate(items):
        try:
            reference = _Reference.model_validate(item)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = error["loc"][0] if error["loc"] else None
            value = item.get(field) if isinstance(item, dict) and field is not None else None
            line = _line_after(text, at[1], str(field), value) if isinstance(value, str) else 0
            where = ".".join(
                str(p) for p in ("questions", at[0], "references", number, *error["loc"])
            )
            raise ImportRefused(
                file,
                line or _line_after(text, at[1], "references") or at[1],
                f"{where}: {_message(error['msg'])}",
            ) from None
        references.append(ReferenceData(reference.url, reference.title, reference.version))
    return references


def _message(msg: str) -> str:
    return msg.removeprefix("Value error, ")


def _blueprint(exam: _Exam, line: int) -> BlueprintData:
    return BlueprintData(**exam.model_dump(), line=line)


def _line_for(text: str, raw: object, loc: tuple[int | str, ...]) -> int:
    """Find the line of the object a validation error points into (best effort)."""
    node = raw
    for part in loc:
        try:
            node = node[part]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and value and (line := _line_of_key(text, key, value)):
                    return line
    names = [part for part in loc if isinstance(part, str)]
    return first_line_with(text, json.dumps(names[-1])) if names else 1


_KEYED = re.compile(r'"(id|slug)"\s*:\s*("(?:[^"\\\n]|\\.)*")')


def _key_lines(text: str) -> dict[tuple[str, str], int]:
    """Map each `"id"` and `"slug"` value to the line it first appears on, in one pass."""
    found: dict[tuple[str, str], int] = {}
    for line, match in numbered(_KEYED, text):
        try:
            value = json.loads(match.group(2))
        except json.JSONDecodeError:
            continue
        found.setdefault((match.group(1), value), line)
    return found


def _line_after(text: str, line: int, key: str, value: str | None = None) -> int:
    """Return the line of the first `"key"` (with that string value) at or after line, or 0."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    pattern = re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:"
    if value is not None:
        pattern += r"\s*" + re.escape(json.dumps(value, ensure_ascii=False))
    match = re.compile(pattern).search(text, start)
    return line_at(text, match.start()) if match else 0


def _line_of_key(text: str, key: str, value: str) -> int:
    """Return the line of the first `"key": "value"` pair (0 when there is none)."""
    quoted = (json.dumps(key, ensure_ascii=False), json.dumps(value, ensure_ascii=False))
    match = re.search(rf"{re.escape(quoted[0])}\s*:\s*{re.escape(quoted[1])}", text)
    return line_at(text, match.start()) if match else 0
