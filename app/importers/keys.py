"""Stable question keys and file-named sets for formats that number nothing (GIFT, Aiken)."""

import hashlib
from pathlib import PurePath

from app.content.bundle import QuestionSetData
from app.content.checks import KEY
from app.content.markdown import slugify


def text_key(text: str) -> str:
    """Key a question by its text: a few words of it and a digest of all of it.

    The same text (ignoring case and runs of spaces) gives the same key on every import, so
    an unchanged question is found again; an edited text is a new question.
    """
    digest = hashlib.sha256(" ".join(text.split()).casefold().encode()).hexdigest()[:10]
    words = slugify(text)[:40].strip("-")
    return f"{words}-{digest}" if words != "untitled" else f"q-{digest}"


def title_key(title: str) -> str:
    """Key a question by its title: the title's slug, or the text key when the slug would be
    too long or say nothing (a title in a script without Latin letters)."""
    slug = slugify(title)
    return slug if slug != "untitled" and len(slug) <= KEY else text_key(title)


def file_set(file: str, line: int = 1) -> QuestionSetData:
    """A question set named after the file it came from ("aws-quiz.txt": "aws-quiz")."""
    name = PurePath(file.replace("\\", "/")).stem.strip() or "questions"
    return QuestionSetData(slug=slugify(name)[:120], title=name[:200], source=file, line=line)
