"""Read the question editor's form into a draft, and apply its buttons that change the form
itself (add, remove or move a choice, add a reference) without saving anything.

Choices and references are numbered rows (`choice-3-text`, `reference-2-url`); the `right`
boxes carry the numbers of the rows marked right. Every number is read by `app.web.forms`.
Linked note sections are rows too (`link-2` holds "note-slug#anchor"); the `unlink` boxes
carry the rows to remove, and a save or "Add" adds the section chosen among those a search
found (`section`), or else what was typed in the search field (`q`).
"""

from collections.abc import Callable
from dataclasses import dataclass

from app.content.bundle import ChoiceData, ReferenceData
from app.content.checks import MAX_CHOICES, MAX_REFERENCES, Problem
from app.content.editor import Draft, DraftRefused
from app.content.editor_links import MAX_LINKS
from app.web.forms import INT32_MAX, whole_number, whole_numbers

Field = Callable[[str], str]  # the text of one form field ("" when it is missing)
ROW_ACTIONS = ("remove", "up", "down")


@dataclass
class Posted:
    draft: Draft
    opened: int | None  # None: the form came without the revision it was opened at
    note: str
    action: str  # "save", "preview", "add-choice", "add-reference", "up-2", "remove-3", ...
    report: int | None = None  # the problem report the editor was opened from (0: not a number)
    resolve: bool = False  # resolve that report with the save
    q: str = ""  # the search for a note section to link
    htmx: bool = False  # sent by htmx (a preview then swaps in place)


def read_form(
    field: Field,
    rights: list[str],
    fixed: list[str] | None = None,
    unlinked: list[str] | None = None,
) -> Posted:
    """Read the editor's fields (every choice row, empty or not)."""
    count = whole_number(field("choices"), 0, MAX_CHOICES) or 0
    marked = set(whole_numbers(rights[:MAX_CHOICES], 1, MAX_CHOICES) or [])
    kept = set(whole_numbers((fixed or [])[:MAX_CHOICES], 1, MAX_CHOICES) or [])
    choices = [
        ChoiceData(field(f"choice-{n}-text"), n in marked, field(f"choice-{n}-feedback"), n in kept)
        for n in range(1, count + 1)
    ]
    references = []
    for n in range(1, (whole_number(field("references"), 0, MAX_REFERENCES + 1) or 0) + 1):
        url, title, version = (field(f"reference-{n}-{part}").strip() for part in _REF_PARTS)
        if url or title or version:
            references.append(ReferenceData(url, title or None, version or None))
    draft = Draft(
        stem=field("stem"),
        explanation=field("explanation"),
        kind="multi" if field("kind") == "multi" else "single",
        choices=choices,
        references=references,
        topic=field("topic") or None,
        # an unknown value is kept, so the shared checks refuse it by name
        difficulty=field("difficulty") or None,
        level=field("level") or None,
        versions=[line.strip() for line in field("versions").splitlines() if line.strip()],
        notes=_links(field, unlinked or []),
    )
    action = field("action") or "save"
    q = " ".join(field("q").split())
    chosen = field("section").strip()
    if action == "save" and q and not chosen and "#" not in q:
        # Enter in the search box (or Save with words typed there, no section chosen): the
        # words are a search, never a section, so search rather than refuse the save
        action = "find-link"
    added = chosen or q
    if action in ("save", "add-link") and added:
        draft.notes = list(dict.fromkeys([*(draft.notes or []), added]))
    opened = whole_number(field("opened"), 0, INT32_MAX)
    report = whole_number(field("report"), 1, INT32_MAX) or 0 if field("report") else None
    posted = Posted(draft, opened, field("note"), action, report, q=q)
    posted.resolve = report is not None and field("resolve") == "yes"
    return posted


_REF_PARTS = ("url", "title", "version")


def _links(field: Field, unlinked: list[str]) -> list[str]:
    """The linked sections' rows, less those ticked for removal."""
    count = min(whole_number(field("links"), 0, INT32_MAX) or 0, MAX_LINKS + 1)
    removed = set(whole_numbers(unlinked[: MAX_LINKS + 1], 1, MAX_LINKS + 1) or [])
    rows = (field(f"link-{n}").strip() for n in range(1, count + 1) if n not in removed)
    return list(dict.fromkeys(row for row in rows if row))


def drop_empty_rows(draft: Draft) -> None:
    """Drop the choice rows left wholly empty, before a save is checked."""
    draft.choices = [c for c in draft.choices if c.text.strip() or c.feedback.strip() or c.correct]


def apply(draft: Draft, action: str) -> bool:
    """Apply a button that changes the form itself; tell whether action was one."""
    if action == "add-choice" and len(draft.choices) < MAX_CHOICES:
        draft.choices.append(ChoiceData("", False))
        return True
    if action == "add-reference":
        return True  # the form always shows one empty row more
    name, _, number = action.partition("-")
    at = whole_number(number, 1, len(draft.choices))
    if name not in ROW_ACTIONS or at is None:
        return action == "add-choice"
    index = at - 1
    if name == "remove":
        del draft.choices[index]
    elif name == "up" and index > 0:
        draft.choices[index - 1 : index + 1] = [draft.choices[index], draft.choices[index - 1]]
    elif name == "down" and index < len(draft.choices) - 1:
        draft.choices[index : index + 2] = [draft.choices[index + 1], draft.choices[index]]
    return True


def opened_revision(opened: str) -> int:
    """The newest revision a restore form was shown at, or refuse a form that lost it."""
    at = whole_number(opened, 0, INT32_MAX)
    if at is None:
        message = "The form did not say which revision is the newest; reload the history."
        raise DraftRefused([Problem("opened", message)])
    return at
