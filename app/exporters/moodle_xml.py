"""Questions as Moodle XML: a `<quiz>` of category entries and `multichoice` questions.

Text is Markdown and marked `format="markdown"`, which Moodle renders itself; the
explanation is the general feedback, and a choice's feedback its answer's `<feedback>`;
`idnumber` is the question's id ("set-slug/key"), cut with a digest past Moodle's 100
characters. One right choice makes a `single` question (fraction 100 and 0); several make a
multiple-response one whose right fractions sum to 100 and wrong ones to -100. Built with
ElementTree, so every text is escaped as XML.
"""

import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable

from app.exporters.gift import category_path, weights
from app.exporters.selection import ExportedQuestion

IDNUMBER_MAX = 100  # Moodle's question.idnumber column
# Characters XML 1.0 cannot hold at all, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def write_moodle_xml(questions: Iterable[ExportedQuestion]) -> str:
    """Write the questions as a Moodle XML quiz, a category entry before each topic's run."""
    quiz = ET.Element("quiz")
    category: tuple[str, ...] | None = None
    for question in questions:
        path = question.topic_path or (question.set_title,)
        if path != category:
            entry = ET.SubElement(quiz, "question", type="category")
            _text(entry, "category", f"$course$/top/{category_path(path)}")
            category = path
        _question(quiz, question)
    ET.indent(quiz)
    return ET.tostring(quiz, encoding="unicode", xml_declaration=False).join(
        ('<?xml version="1.0" encoding="UTF-8"?>\n', "\n")
    )


def idnumber(question_id: str) -> str:
    """The question's id, or its start and a digest of it when longer than Moodle allows."""
    if len(question_id) <= IDNUMBER_MAX:
        return question_id
    digest = hashlib.sha256(question_id.encode()).hexdigest()[:12]
    return f"{question_id[: IDNUMBER_MAX - 13]}-{digest}"


def _question(quiz: ET.Element, question: ExportedQuestion) -> None:
    element = ET.SubElement(quiz, "question", type="multichoice")
    _text(element, "name", question.id)
    _text(element, "questiontext", question.stem, format="markdown")
    _text(element, "generalfeedback", question.explanation, format="markdown")
    ET.SubElement(element, "defaultgrade").text = "1"
    ET.SubElement(element, "penalty").text = "0"
    ET.SubElement(element, "hidden").text = "0"
    ET.SubElement(element, "idnumber").text = idnumber(question.id)
    single = weights(question) is None
    ET.SubElement(element, "single").text = "true" if single else "false"
    ET.SubElement(element, "shuffleanswers").text = "true"
    ET.SubElement(element, "answernumbering").text = "abc"
    for name in ("correctfeedback", "partiallycorrectfeedback", "incorrectfeedback"):
        _text(element, name, "", format="markdown")
    fractions = weights(question) or ["100" if c.correct else "0" for c in question.choices]
    for choice, fraction in zip(question.choices, fractions, strict=True):
        answer = _text(element, "answer", choice.text, format="markdown", fraction=fraction)
        _text(answer, "feedback", choice.feedback, format="markdown")


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    """Add <tag attributes><text>text</text></tag> to parent."""
    element = ET.SubElement(parent, tag, attributes)
    ET.SubElement(element, "text").text = _NOT_XML.sub("\ufffd", text)
    return element
