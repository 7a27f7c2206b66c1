import json
from typing import Any

import pytest

from app.content.bundle import ChoiceData, NoteData, QuestionData, ReferenceData, TopicData
from app.importers import export_json
from app.importers.errors import ImportRefused


def a_question(key: str = "1", **fields: Any) -> dict[str, Any]:
    return {
        "id": f"basics/{key}",
        "set": "basics",
        "topic": None,
        "stem": f"Question {key}?",
        "choices": [{"text": "Yes", "correct": True}, {"text": "No", "correct": False}],
        "explanation": "Because.",
        "kind": "single",
        "source": "",
        "notes": [],
        **fields,
    }


def a_document(**fields: Any) -> dict[str, Any]:
    """Return a small valid export; keyword arguments replace its top-level fields."""
    return {
        "format": "studyhall.content/1",
        "topics": [
            {"slug": "root", "title": "Root", "parent": None, "description": ""},
            {"slug": "leaf", "title": "Leaf", "parent": "root", "description": "A leaf."},
        ],
        "question_sets": [
            {"slug": "basics", "title": "Basics", "source": "b.txt", "topic": "root"}
        ],
        "questions": [a_question("1", topic="leaf", notes=["guide#intro"]), a_question("2")],
        "notes": [
            {
                "slug": "guide",
                "title": "Guide",
                "author": "me",
                "topic": None,
                "source": "g.txt",
                "markdown": "## Intro\n\nHello.\n",
            }
        ],
        **fields,
    }


def dump(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2)


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def refusal(text: str, file: str = "export.json") -> ImportRefused:
    with pytest.raises(ImportRefused) as caught:
        export_json.parse(text, file)
    return caught.value


def test_parse_reads_topics_sets_questions_and_notes():
    text = dump(a_document())
    bundle, report = export_json.parse(text, "export.json")
    assert bundle.topics == [
        TopicData("root", "Root", None, "", line_of(text, '"slug": "root"')),
        TopicData("leaf", "Leaf", "root", "A leaf.", line_of(text, '"slug": "leaf"')),
    ]
    (qset,) = bundle.question_sets
    assert (qset.slug, qset.title, qset.source, qset.topic) == ("basics", "Basics", "b.txt", "root")
    assert qset.questions[0] == QuestionData(
        key="1",
        stem="Question 1?",
        choices=[ChoiceData("Yes", True), ChoiceData("No", False)],
        explanation="Because.",
        line=line_of(text, '"id": "basics/1"'),
        topic="leaf",
        notes=["guide#intro"],
        references=[],
    )
    assert [q.key for q in qset.questions] == ["1", "2"]
    assert bundle.notes == [
        NoteData(
            "guide", "Guide", "## Intro\n\nHello.\n", "me", "g.txt", None, line_of(text, '"guide"')
        )
    ]
    assert qset.line == line_of(text, '"slug": "basics"')
    assert report.format == "json"
    assert report.counts == {"topics": 2, "question_sets": 1, "questions": 2, "notes": 1}


def test_question_id_without_set_prefix_is_the_key():
    bundle, _ = export_json.parse(dump(a_document(questions=[a_question(id="q-7")])), "e.json")
    assert bundle.question_sets[0].questions[0].key == "q-7"


def test_optional_fields_take_defaults():
    document = {
        "format": "studyhall.content/1",
        "question_sets": [{"slug": "s", "title": "S"}],
        "questions": [
            {
                "id": "s/1",
                "set": "s",
                "stem": "Q?",
                "choices": [{"text": "a", "correct": True}, {"text": "b", "correct": False}],
            }
        ],
    }
    bundle, report = export_json.parse(json.dumps(document), "e.json")
    question = bundle.question_sets[0].questions[0]
    assert (question.explanation, question.kind, question.notes, question.topic) == (
        "",
        "single",
        [],
        None,
    )
    assert report.counts == {"topics": 0, "question_sets": 1, "questions": 1, "notes": 0}


def without_choices() -> str:
    document = a_document()
    del document["questions"][1]["choices"]
    return dump(document)


@pytest.mark.parametrize(
    ("text", "needle", "message"),
    [
        (
            '{\n  "format": "studyhall.content/1",\n  "topics": [,]\n}',
            "[,]",
            "invalid JSON: Expecting value",
        ),
        ('{"format": "studyhall.content/1"', None, "invalid JSON: Expecting ',' delimiter"),
        (
            dump(a_document(format="studyhall.content/2")),
            '"format"',
            'not a Studyhall export: "format" must be "studyhall.content/1"',
        ),
        (
            dump({"topics": []}),
            None,
            'not a Studyhall export: "format" must be "studyhall.content/1"',
        ),
        (
            dump([a_document()]),
            None,
            'not a Studyhall export: "format" must be "studyhall.content/1"',
        ),
        (without_choices(), '"id": "basics/2"', "questions.1.choices: Field required"),
        (
            dump(a_document(questions=[a_question(choices=[{"text": "Only", "correct": True}])])),
            '"id": "basics/1"',
            "questions.0.choices: List should have at least 2 items after validation, not 1",
        ),
        (
            dump(a_document(questions=[a_question(set="missing")])),
            '"id": "basics/1"',
            "question 'basics/1' names an unknown set 'missing'",
        ),
        (
            dump(a_document(questions=[a_question(), a_question("2", kind="many")])),
            '"id": "basics/2"',
            "questions.1.kind: String should match pattern '^(single|multi)$'",
        ),
        (
            dump(a_document(questions=[a_question(stem="")])),
            '"id": "basics/1"',
            "questions.0.stem: String should have at least 1 character",
        ),
        (
            dump(a_document(topics=[{"slug": "Bad Slug", "title": "T"}])),
            '"slug": "Bad Slug"',
            "topics.0.slug: String should match pattern '^[a-z0-9]+(-[a-z0-9]+)*$'",
        ),
        (dump(a_document(extra=1)), '"extra"', "extra: Extra inputs are not permitted"),
    ],
    ids=[
        "invalid-json",
        "truncated-json",
        "wrong-format",
        "no-format",
        "not-an-object",
        "question-without-choices",
        "one-choice",
        "unknown-set",
        "bad-kind",
        "empty-stem",
        "bad-topic-slug",
        "extra-field",
    ],
)
def test_bad_exports_are_refused_naming_file_and_line(text, needle, message):
    error = refusal(text, "export.json")
    expected_line = line_of(text, needle) if needle else 1
    assert (error.file, error.line) == ("export.json", expected_line)
    assert error.message.startswith(message)
    assert str(error).startswith(f"export.json:{expected_line}: {message}")


def test_looks_like_wants_a_json_object():
    assert export_json.looks_like(dump(a_document()))
    assert export_json.looks_like('\n  {"format": 1}')
    assert not export_json.looks_like('[{"format": "studyhall.content/1"}]')
    assert not export_json.looks_like('format = "studyhall.catalog/1"')


def test_lines_are_found_for_escaped_ids_in_one_pass():
    from app.importers.export_json import _key_lines

    text = '{\n  "id": "set/\\u00e9t\\u00e9",\n  "slug": "a\\"b",\n  "id": "set/\\u00e9t\\u00e9"\n}'
    assert _key_lines(text) == {("id", "set/été"): 2, ("slug", 'a"b'): 3}


REFERENCE = {
    "title": "TensorRT Developer Guide",
    "url": "https://docs.nvidia.com/deeplearning/tensorrt/latest/index.html",
    "version": "TensorRT 10.x",
}


def test_references_are_read_with_title_and_version_optional():
    references = [REFERENCE, {"url": "https://docs.nvidia.com/deeplearning/triton/"}]
    bundle, _ = export_json.parse(
        dump(a_document(questions=[a_question(references=references)])), "e"
    )
    assert bundle.question_sets[0].questions[0].references == [
        ReferenceData(REFERENCE["url"], REFERENCE["title"], REFERENCE["version"]),
        ReferenceData("https://docs.nvidia.com/deeplearning/triton/"),
    ]


def test_a_question_without_references_has_none():
    bundle, _ = export_json.parse(dump(a_document()), "e")
    assert bundle.question_sets[0].questions[0].references == []


def with_bad_reference(**fields: Any) -> str:
    """Two questions citing the same page; the second one's reference is changed by fields."""
    return dump(
        a_document(
            questions=[
                a_question("1", references=[REFERENCE]),
                a_question("2", references=[dict(REFERENCE), {**REFERENCE, **fields}]),
            ]
        )
    )


def line_after_question_2(text: str, needle: str) -> int:
    start = text.index(needle, text.index('"id": "basics/2"'))
    return text[:start].count("\n") + 1


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"url": "javascript:alert(1)"}, "the url must be an absolute address"),
        ({"url": "/deeplearning/tensorrt/"}, "the url must be an absolute address"),
        ({"url": "https://docs.nvidia.com/a b"}, "the url holds ' ' at character 26"),
        ({"url": "https://me:pw@docs.nvidia.com/"}, "user name or password"),
        ({"url": "https://docs.nvidia.com/" + "a" * 2000}, "at most 2000 characters"),
        ({"title": ""}, "String should have at least 1 character"),
        ({"title": "t" * 301}, "String should have at most 300 characters"),
        ({"version": "v" * 81}, "String should have at most 80 characters"),
        ({"version": 10}, "Input should be a valid string"),
        ({"page": "12"}, "Extra inputs are not permitted"),
    ],
    ids=[
        "script",
        "relative",
        "space",
        "credentials",
        "too-long",
        "empty-title",
        "long-title",
        "long-version",
        "number-version",
        "extra-key",
    ],
)
def test_bad_references_are_refused_naming_the_reference_line(fields, message):
    text = with_bad_reference(**fields)
    error = refusal(text)
    ((field, value),) = fields.items()
    # the line of the value at fault; one that is not a string, at the question's references
    needle = f"{json.dumps(field)}: {json.dumps(value)}" if isinstance(value, str) else '"refer'
    assert error.line == line_after_question_2(text, needle)
    assert error.message.startswith(f"questions.1.references.1.{field}: ")
    assert message in error.message


def test_a_reference_without_an_address_is_refused_at_the_question_references():
    text = dump(a_document(questions=[a_question("1", references=[{"title": "Guide"}])]))
    error = refusal(text)
    assert error.line == line_of(text, '"references"')
    assert error.message == "questions.0.references.0.url: Field required"


def test_too_many_references_are_refused():
    references = [{"url": f"https://docs.nvidia.com/{n}"} for n in range(21)]
    error = refusal(dump(a_document(questions=[a_question("1", references=references)])))
    assert error.message.startswith("questions.0.references: List should have at most 20 items")
