"""Questions as Moodle GIFT text, which the GIFT importer reads back into the same questions.

    $CATEGORY: $course$/top/Inference Optimization/Precision
    ::nca-5/3::[markdown]Which calibrator? {
    =[markdown]IInt8EntropyCalibrator2
    ~[markdown]IInt8MinMaxCalibrator#[markdown]Min-max suits activations without outliers.
    ####[markdown]Entropy calibration keeps the most information.
    }

Each question's category is its topic path, its title its id ("set-slug/key"), so importing
the file twice matches the questions. A choice's feedback follows it after `#`. Text is
Markdown, marked `[markdown]` on every part so a text starting with "[html]" stays text; line
ends are written `\\n`, so a question never holds a blank line, and `~ = # { } :` and
backslashes are escaped. One right choice is `=`; several are `~%w%`, the right weights
summing to 100 and the wrong ones to -100.
"""

from collections.abc import Iterable

from app.exporters.selection import ExportedQuestion

_ESCAPES = str.maketrans(
    {c: "\\" + c for c in "\\~=#{}:"} | {"\n": "\\n", "\r": "", "\u2028": "\\n", "\u2029": "\\n"}
)


def escape(text: str) -> str:
    """Escape GIFT's special characters, and write line ends as `\\n`."""
    return text.translate(_ESCAPES)


def write_gift(questions: Iterable[ExportedQuestion]) -> str:
    """Write the questions as GIFT, a category before each run of questions sharing a topic."""
    out = ["// Studyhall question bank (GIFT, Markdown text)", ""]
    category: tuple[str, ...] | None = None
    for question in questions:
        path = question.topic_path or (question.set_title,)
        if path != category:
            out += [f"$CATEGORY: $course$/top/{category_path(path)}", ""]
            category = path
        out += [_question(question), ""]
    return "\n".join(out)


def category_path(names: tuple[str, ...]) -> str:
    """A category path as Moodle writes it: names joined by '/', a '/' in a name as '//'."""
    return "/".join(" ".join(name.split()).replace("/", "//") for name in names)


def _question(question: ExportedQuestion) -> str:
    lines = [f"::{escape(question.id)}::[markdown]{escape(question.stem)} {{"]
    lines += [
        f"{mark}[markdown]{escape(choice.text)}{_feedback(choice.feedback)}"
        for mark, choice in zip(_marks(question), question.choices, strict=True)
    ]
    if question.explanation.strip():
        lines.append(f"####[markdown]{escape(question.explanation)}")
    lines.append("}")
    return "\n".join(lines)


def _feedback(feedback: str) -> str:
    """A choice's feedback as GIFT writes it after the choice ("" without one)."""
    return f"#[markdown]{escape(feedback)}" if feedback.strip() else ""


def _marks(question: ExportedQuestion) -> list[str]:
    """'=' for the right choice and '~' for the others, or '~%weight%' for each choice."""
    shares = weights(question)
    if shares is None:
        return ["=" if choice.correct else "~" for choice in question.choices]
    return [f"~%{share}%" for share in shares]


def weights(question: ExportedQuestion) -> list[str] | None:
    """Each choice's percentage in a multiple-response question (None for a one-answer one):
    the right ones share 100, the wrong ones -100, as Moodle scores them."""
    right = sum(c.correct for c in question.choices)
    if question.kind == "single" and right == 1:
        return None
    wrong = len(question.choices) - right
    return [_weight(100 / right if c.correct else -100 / wrong) for c in question.choices]


def _weight(value: float) -> str:
    """A percentage as Moodle writes it: at most 5 decimals, no trailing zeros."""
    return f"{value:.5f}".rstrip("0").rstrip(".")
