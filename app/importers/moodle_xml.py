"""Moodle XML: a `<quiz>` of `<question type="...">` elements, as Moodle exports a bank.

    <quiz>
      <question type="category"><category><text>$course$/top/Networking</text></category>
      </question>
      <question type="multichoice">
        <name><text>OSPF</text></name>
        <questiontext format="html"><text><![CDATA[Which is <b>link-state</b>?]]></text>
        </questiontext>
        <generalfeedback format="markdown"><text>OSPF floods link states.</text>
        </generalfeedback>
        <idnumber>net-ospf</idnumber>
        <single>true</single>
        <answer fraction="100" format="plain_text"><text>OSPF</text>
          <feedback><text>Yes.</text></feedback></answer>
        <answer fraction="0"><text>RIP</text></answer>
      </question>
    </quiz>

Parsed with defusedxml: a DOCTYPE, and so any entity, is refused, never expanded or fetched.
Categories become topics and a question set each, as GIFT categories do (gift_categories);
a question goes to the set of the category entry before it. `multichoice` questions (one
answer with `<single>true</single>`, else several) and `truefalse` ones are imported: a
positive `fraction` marks a right choice. Each text is converted from its `format` (html,
moodle_auto_format, markdown, plain_text) to Markdown. The general feedback is the
explanation, and each answer's feedback is its choice's own, as in GIFT. A question is
matched by its `idnumber`, else by its name within its category, else by its text. Other
question types are skipped and reported with their line. An image a text shows
(`@@PLUGINFILE@@/name.png`) whose bytes the text carries (`<file name="name.png"
encoding="base64">`) goes to the media store and is shown from there; one without its
bytes is replaced by its alt text or file name, with a warning.
"""

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html import escape, unescape
from urllib.parse import unquote

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from app.config import get_settings
from app.content.bundle import Bundle, ChoiceData, MediaData, QuestionData, Report
from app.importers.errors import ImportRefused
from app.importers.gift_categories import Catalogue
from app.importers.images import media_url, read_image
from app.importers.markup import to_markdown

FORMAT = "moodle-xml"
MAX_CHOICES = 26  # a learner's answer names at most 26 choices (app/content/dependencies.py)
# Moodle's text formats, as the names markup.to_markdown reads
_FORMATS = {
    "html": "html",
    "moodle_auto_format": "moodle",
    "markdown": "markdown",
    "plain_text": "plain",
}
_PROLOGUE = re.compile(
    r"\A\ufeff?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--(?:[^-]|-(?!->))*-->\s*)*<(?:quiz|!DOCTYPE\s+quiz)[\s>/\[]",
    re.DOTALL,
)
_IMAGE_HTML = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_IMAGE_MARKDOWN = re.compile(r"!\[([^\]]*)\]\(\s*@@PLUGINFILE@@/([^)\s]*)[^)]*\)")
_ATTRIBUTE = re.compile(r"""\b(src|alt)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
_TRUE = ("true", "1")


def looks_like(text: str) -> bool:
    """Tell whether text is a Moodle XML quiz: `<quiz` first, after a BOM, the XML
    declaration and comments (or a quiz's DOCTYPE, which parse refuses)."""
    return bool(_PROLOGUE.match(text))


class _Tree(ET.TreeBuilder):
    """Builds the tree and notes the line each element starts on."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: dict[ET.Element, int] = {}
        self.parser: DefusedXMLParser | None = None

    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        element = super().start(tag, attrs)
        assert self.parser is not None
        self.lines[element] = self.parser.parser.CurrentLineNumber
        return element


@dataclass
class _Skip(Exception):
    """A question of a type Studyhall does not have."""

    reason: str
    what: str  # the kind of question, in a word or two


def parse(
    text: str, file: str, skip_bad: bool = False, max_image: int | None = None
) -> tuple[Bundle, Report]:
    """Parse a Moodle XML quiz into topics and a question set per category; with skip_bad, a
    question that cannot be read is reported and left out rather than refusing the file.
    An image larger than max_image bytes (by default the setting) is refused."""
    report = Report(file=file, format=FORMAT)
    root, lines = _tree(text, file)
    reader = _Reader(file, report, lines, max_image or get_settings().max_image_bytes)
    catalogue = Catalogue(file)
    if root.tag != "quiz":
        raise ImportRefused(file, lines[root], f"the document is a <{root.tag}>, not a <quiz>")
    for element in root:
        line = lines[element]
        if element.tag != "question":
            report.warn(line, f"skipped: <{element.tag}> is not a <question>")
            continue
        kind = element.get("type", "")
        if kind == "category":
            catalogue.category(reader.text(element.find("category")), line)
            continue
        media = dict(reader.media)
        try:
            name, key, data = reader.question(element, kind)
        except _Skip as skip:
            report.skip(line, skip.reason, skip.what)
            reader.media = media  # the images of a question left out are not stored
            continue
        except ImportRefused as exc:
            if not skip_bad:
                raise
            report.refuse(exc.line, exc.message)
            reader.media = media
            continue
        catalogue.add(key or name, data)
    bundle = catalogue.bundle()
    bundle.media = list(reader.media.values())
    if not bundle.question_sets and not report.warnings:
        raise ImportRefused(file, 1, "the file holds no Moodle XML question")
    report.count("topics", len(bundle.topics))
    report.count("questions", sum(len(s.questions) for s in bundle.question_sets))
    return bundle, report


def _tree(text: str, file: str) -> tuple[ET.Element, dict[ET.Element, int]]:
    """Parse text without a DTD or entities, noting each element's line; or refuse it."""
    tree = _Tree()
    parser = DefusedXMLParser(
        target=tree, forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    tree.parser = parser
    try:
        parser.feed(text)
        root = parser.close()
    except ET.ParseError as error:
        line = error.position[0] if error.position else 1
        reason = str(error).split(":")[0]
        raise ImportRefused(file, max(line, 1), f"not well-formed XML: {reason}") from None
    except DefusedXmlException:
        raise ImportRefused(
            file,
            max(parser.parser.CurrentLineNumber, 1),
            "a DOCTYPE or entity declaration is not allowed: Moodle XML needs none, and "
            "Studyhall never expands entities or fetches external ones",
        ) from None
    return root, tree.lines


@dataclass
class _Choice:
    text: str  # Markdown
    fraction: float
    feedback: str  # Markdown
    line: int


class _Reader:
    """Reads questions' texts, choices and settings, warning in the report as it goes."""

    def __init__(
        self, file: str, report: Report, lines: dict[ET.Element, int], max_image: int
    ) -> None:
        self.file = file
        self.report = report
        self.lines = lines
        self.max_image = max_image
        self.media: dict[str, MediaData] = {}  # by SHA-256

    def text(self, element: ET.Element | None) -> str:
        """The raw text of element's <text> child ("" without one)."""
        if element is None:
            return ""
        child = element.find("text")
        return "".join(child.itertext()) if child is not None else ""

    def markdown(self, element: ET.Element | None, default: str = "html") -> str:
        """The text of element's <text> child, from its format to Markdown."""
        if element is None:
            return ""
        raw = self.text(element)
        line = self.lines[element]
        given = element.get("format", default)
        format = _FORMATS.get(given)
        if format is None:
            self.report.warn(line, f"unknown text format {given!r}, read as html")
            format = "html"
        if element.find("file") is not None or "@@PLUGINFILE@@" in raw:
            raw = _with_images(raw, format, self._images(element, _sources(raw, format)))
        return to_markdown(raw, format)

    def _images(self, element: ET.Element, shown: set[str]) -> dict[str, str]:
        """Read the images element's text shows from its <file> children: each file name's
        address in the media store. The others are named in a warning."""
        urls: dict[str, str] = {}
        left: list[str] = []
        for child in element.findall("file"):
            name = child.get("name", "").strip()[:200]
            if name not in shown or child.get("encoding", "base64") != "base64":
                left.append(name)
                continue
            image = read_image(child.text or "", name, self.file, self.lines[child], self.max_image)
            image = self.media.setdefault(image.sha256, image)
            urls[name] = media_url(image)
        missing = sorted(shown - urls.keys())
        notes = []
        if left:
            notes.append(f"files not shown as images are not imported ({', '.join(left)})")
        if missing:
            notes.append(
                'images whose bytes (<file encoding="base64">) are not there are replaced '
                f"by their alt text or file name ({', '.join(missing)})"
            )
        if notes:
            self.report.warn(self.lines[element], f"<{element.tag}>: {'; '.join(notes)}")
        return urls

    def question(
        self, element: ET.Element, kind: str
    ) -> tuple[str | None, str | None, QuestionData]:
        """Read one question: its name, its idnumber and its data; or raise _Skip."""
        line = self.lines[element]
        if kind not in ("multichoice", "truefalse"):
            described = f"a question of type {kind!r}" if kind else "a question without a type"
            raise _Skip(f"{described}, which Studyhall does not have", kind[:40] or "no type")
        name = " ".join(self.text(element.find("name")).split()) or None
        idnumber = " ".join((element.findtext("idnumber") or "").split()) or None
        stem = self.markdown(element.find("questiontext"))
        if not stem.strip():
            raise ImportRefused(self.file, line, "the question has no text (<questiontext>)")
        choices = [self._choice(answer) for answer in element.findall("answer")]
        if len(choices) > MAX_CHOICES:
            raise ImportRefused(
                self.file,
                choices[MAX_CHOICES].line,
                f"the question has {len(choices)} answers; Studyhall takes at most {MAX_CHOICES}",
            )
        if kind == "truefalse":
            single = True
            for choice in choices:
                if choice.text.lower() in ("true", "false"):
                    choice.text = choice.text.capitalize()
            if len(choices) != 2:
                raise ImportRefused(
                    self.file, line, f"a true/false question has 2 answers, not {len(choices)}"
                )
        else:
            single = (element.findtext("single") or "true").strip().lower() in _TRUE
        for number, choice in enumerate(choices, start=1):
            if not choice.text.strip():
                raise ImportRefused(self.file, choice.line, f"answer {number} has no text")
        if len(choices) < 2:
            raise ImportRefused(self.file, line, "a multiple-choice question needs two answers")
        right = self._right(choices, single, line)
        self._note_settings(element)
        general = self.markdown(element.find("generalfeedback"))
        data = QuestionData(
            key="",
            stem=stem,
            choices=[
                ChoiceData(c.text, r, c.feedback) for c, r in zip(choices, right, strict=True)
            ],
            explanation=general,
            line=line,
            kind="single" if single else "multi",
            source=f"{self.file}:{line}",
        )
        return name, idnumber, data

    def _choice(self, answer: ET.Element) -> _Choice:
        line = self.lines[answer]
        raw = answer.get("fraction", "0").strip()
        try:
            fraction = float(raw)
        except ValueError:
            raise ImportRefused(
                self.file, line, f"the answer's fraction {raw[:40]!r} is not a number"
            ) from None
        if fraction != fraction or abs(fraction) > 100:  # NaN or past ±100%
            raise ImportRefused(
                self.file, line, f"the answer's fraction {raw[:40]!r} is not within -100 and 100"
            )
        text = self.markdown(answer, default="moodle_auto_format")
        return _Choice(text, fraction, self.markdown(answer.find("feedback")), line)

    def _right(self, choices: list[_Choice], single: bool, line: int) -> list[bool]:
        """Which choices are right: a positive fraction; in a one-answer question the best."""
        best = max(choice.fraction for choice in choices)
        if best <= 0:
            raise ImportRefused(
                self.file, line, "none of the answers is right: give one a positive fraction"
            )
        if not single:
            total = sum(choice.fraction for choice in choices if choice.fraction > 0)
            if abs(total - 100) > 0.01:
                self.report.warn(
                    line,
                    f"the right answers' fractions add up to {total:g}%, not 100%; each is "
                    "imported as right",
                )
            return [choice.fraction > 0 for choice in choices]
        if sum(choice.fraction == best for choice in choices) > 1:
            raise _Skip(
                "a one-answer question with several best answers, any of which scores, which "
                "Studyhall does not have (use <single>false</single> for a multiple-response one)",
                "several right answers",
            )
        for choice in choices:
            if 0 < choice.fraction < best:
                self.report.warn(
                    choice.line,
                    f"a partly right answer ({choice.fraction:g}%) in a one-answer question is "
                    "imported as wrong",
                )
        return [choice.fraction == best for choice in choices]

    def _note_settings(self, element: ET.Element) -> None:
        """Warn about what Moodle keeps and Studyhall does not."""
        shuffle = element.find("shuffleanswers")
        if shuffle is not None and (shuffle.text or "").strip().lower() in ("false", "0"):
            self.report.warn(
                self.lines[shuffle],
                "the answers' order is not kept: Studyhall shuffles choices for each learner "
                "when an exam says so",
            )
        tags = element.find("tags")
        names = [] if tags is None else [" ".join(self.text(t).split()) for t in tags.iter("tag")]
        if tags is not None and any(names):
            self.report.warn(
                self.lines[tags],
                f"tags are not imported (topics come from categories): {', '.join(names)[:200]}",
            )


def _sources(text: str, format: str) -> set[str]:
    """The file names of the embedded images (`@@PLUGINFILE@@/...`) text shows."""
    if format == "markdown":
        return {_file_name(m.group(2)) for m in _IMAGE_MARKDOWN.finditer(text)}
    sources = (_attributes(m.group(0)).get("src", "") for m in _IMAGE_HTML.finditer(text))
    return {_file_name(src) for src in sources if "@@PLUGINFILE@@" in src}


def _with_images(text: str, format: str, urls: dict[str, str]) -> str:
    """Point each embedded image at its address in urls, or replace it with its alt text
    (else its file name) when its bytes are not there."""
    if format == "markdown":

        def markdown(match: re.Match[str]) -> str:
            alt, name = match.group(1), _file_name(match.group(2))
            return f"![{alt}]({urls[name]})" if name in urls else alt or name

        return _IMAGE_MARKDOWN.sub(markdown, text)

    def html(match: re.Match[str]) -> str:
        attributes = _attributes(match.group(0))
        src = attributes.get("src", "")
        if "@@PLUGINFILE@@" not in src:
            return match.group(0)
        name, alt = _file_name(src), attributes.get("alt", "").strip()
        if name in urls and format in ("html", "moodle"):
            return f'<img src="{escape(urls[name])}" alt="{escape(alt or name)}">'
        return escape(alt or name) if format in ("html", "moodle") else alt or name

    return _IMAGE_HTML.sub(html, text)


def _attributes(tag: str) -> dict[str, str]:
    return {
        m.group(1).lower(): unescape(m.group(2) or m.group(3) or "")
        for m in _ATTRIBUTE.finditer(tag)
    }


def _file_name(src: str) -> str:
    """The file name at the end of an address ("@@PLUGINFILE@@/a%20b.png": "a b.png")."""
    name = unquote(src.rsplit("/", 1)[-1].split("?")[0]).strip()
    return name[:200] or "image"
