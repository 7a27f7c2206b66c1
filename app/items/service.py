"""Item statistics: facility, discrimination, choice shares, time, and the flags they raise.

The sums come from `queries` in a fixed handful of statements; this module divides them,
flags what deserves an author's look, and filters, sorts and pages the table in memory (a
bank holds thousands of questions, not millions).
"""

import csv
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from sqlalchemy.orm import Session

from app.content.markdown import excerpt, plain_text
from app.content.read_models import PageInfo
from app.items import queries
from app.items.errors import InvalidFilter, NotFound
from app.items.queries import ChoiceRow, Picks, Sums

SOURCES = ("exam", "practice")
# How many responses a figure needs before it raises a flag: with fewer, one learner's
# guess moves it too far. A flag's figure is shown whatever the count.
MIN_FACILITY = 20  # too easy, too hard
MIN_DISCRIMINATION = 30  # negative discrimination (exams)
MIN_KEY = 20  # possibly wrong key (exams): 10 responses in the stronger half
MIN_UNPICKED = 50  # distractor nobody picks
TOO_EASY, TOO_HARD, UNPICKED = 0.95, 0.20, 0.02
PAGE_SIZE = 50


@dataclass(frozen=True)
class Flag:
    key: str
    label: str
    explanation: str


FLAGS = {
    flag.key: flag
    for flag in (
        Flag(
            "wrong-key",
            "Possibly wrong key",
            "Among the stronger half of the exam takers (by their score on the exam), a "
            "wrong choice was picked more often than the right one. Check the key.",
        ),
        Flag(
            "too-easy",
            "Too easy",
            f"More than {TOO_EASY:.0%} of the responses were right: the question tells "
            "learners apart little.",
        ),
        Flag(
            "too-hard",
            "Too hard",
            f"Fewer than {TOO_HARD:.0%} of the responses were right: check the wording and "
            "the key, or whether the notes teach it.",
        ),
        Flag(
            "negative-discrimination",
            "Negative discrimination",
            "Learners who did well on the rest of the exam got this question wrong more often "
            "than those who did poorly: it may be misleading or keyed wrong.",
        ),
        Flag(
            "unpicked-distractor",
            "Distractor nobody picks",
            f"A wrong choice was picked by fewer than {UNPICKED:.0%} of the responses: it "
            "fools nobody and could be made more plausible.",
        ),
    )
}
# the responses each flag waits for
THRESHOLDS = {
    "wrong-key": MIN_KEY,
    "too-easy": MIN_FACILITY,
    "too-hard": MIN_FACILITY,
    "negative-discrimination": MIN_DISCRIMINATION,
    "unpicked-distractor": MIN_UNPICKED,
}


@dataclass(frozen=True)
class ChoiceStat:
    id: int
    position: int
    text: str  # Markdown in the table; plain text on a question's page
    correct: bool
    picks: int
    share: float | None  # of the responses; None without any
    stronger_picks: int  # picks by the stronger half (exams)


@dataclass(frozen=True)
class SourceStat:
    """One question's figures from one source: exams or practice."""

    source: str
    responses: int
    right: int
    facility: float | None  # share right
    discrimination: float | None  # point-biserial with the rest score (exams only)
    median_seconds: float | None
    timed: bool  # whether this source records the time an answer took
    choices: tuple[ChoiceStat, ...]
    flags: tuple[str, ...]


@dataclass(frozen=True)
class ItemStat:
    question_id: int
    set_slug: str
    set_title: str
    ordinal: int
    topic_slug: str | None
    topic_title: str | None
    stem_md: str
    kind: str
    exam: SourceStat
    practice: SourceStat
    stem: str = ""  # a plain-text excerpt, filled in for the rows shown

    def of(self, source: str) -> SourceStat:
        return self.exam if source == "exam" else self.practice


def point_biserial(sums: Sums) -> float | None:
    """Correlate right (1/0) with the rest score from their sums; None when either is constant."""
    n, sx, sy = sums.responses, sums.right, sums.rest
    spread_x = n * sx - sx * sx
    spread_y = n * sums.rest_squares - sy * sy
    if n < 2 or spread_x <= 0 or spread_y <= 1e-9 * max(1.0, n * sums.rest_squares):
        return None
    return (n * sums.right_rest - sx * sy) / math.sqrt(spread_x * spread_y)


def _wrong_key(choices: Sequence[ChoiceStat]) -> bool:
    keys = [c.stronger_picks for c in choices if c.correct]
    if not keys:
        return False
    return any(c.stronger_picks > min(keys) for c in choices if not c.correct)


def flags_for(
    source: str,
    responses: int,
    facility: float | None,
    r: float | None,
    choices: Sequence[ChoiceStat],
) -> tuple[str, ...]:
    """Name the flags a question's figures raise, once each has enough responses."""
    raised = []
    if source == "exam" and responses >= MIN_KEY and _wrong_key(choices):
        raised.append("wrong-key")
    if facility is not None and responses >= MIN_FACILITY:
        if facility > TOO_EASY:
            raised.append("too-easy")
        if facility < TOO_HARD:
            raised.append("too-hard")
    if source == "exam" and responses >= MIN_DISCRIMINATION and r is not None and r < 0:
        raised.append("negative-discrimination")
    if responses >= MIN_UNPICKED and any(
        not c.correct and (c.share or 0) < UNPICKED for c in choices
    ):
        raised.append("unpicked-distractor")
    return tuple(raised)


def _source_stat(
    source: str,
    sums: Sums | None,
    choice_rows: Sequence[ChoiceRow],
    picks: dict[tuple[int, int], Picks],
) -> SourceStat:
    sums = sums or Sums(0, 0)
    n = sums.responses
    choices = tuple(
        ChoiceStat(
            c.id,
            c.position,
            c.text_md,
            c.is_correct,
            (p := picks.get((c.question_id, c.id), Picks(0))).picks,
            p.picks / n if n else None,
            p.stronger,
        )
        for c in choice_rows
    )
    facility = sums.right / n if n else None
    r = point_biserial(sums) if source == "exam" else None
    return SourceStat(
        source,
        n,
        sums.right,
        facility,
        r,
        sums.median_seconds,
        source == "practice",
        choices,
        flags_for(source, n, facility, r, choices),
    )


def statistics(session: Session, only: int | None = None) -> list[ItemStat]:
    """Compute the figures and flags of every question (or of one), from exams and practice."""
    found = queries.questions(session, only)
    if not found:
        return []
    choices = queries.choices(session, only)
    exam, practice = queries.exam_tally(session, only), queries.practice_tally(session, only)
    return [
        ItemStat(
            q.id,
            q.set_slug,
            q.set_title,
            q.ordinal,
            q.topic_slug,
            q.topic_title,
            q.stem_md,
            q.kind,
            _source_stat("exam", exam.sums.get(q.id), choices.get(q.id, []), exam.picks),
            _source_stat(
                "practice", practice.sums.get(q.id), choices.get(q.id, []), practice.picks
            ),
        )
        for q in found
    ]


def question_statistics(session: Session, question_id: int) -> ItemStat:
    """Compute one question's figures, its choices in plain text (404 when it is missing)."""
    found = statistics(session, question_id)
    if not found:
        raise NotFound("There is no question with that number.")
    item = found[0]
    return replace(
        item,
        stem=excerpt(item.stem_md, 300),
        exam=_plain_choices(item.exam),
        practice=_plain_choices(item.practice),
    )


def _plain_choices(stat: SourceStat) -> SourceStat:
    return replace(stat, choices=tuple(replace(c, text=plain_text(c.text)) for c in stat.choices))


# The table: filters, sorting, pages

SORTS = ("question", "topic", "responses", "facility", "discrimination", "time", "flags")


@dataclass(frozen=True)
class ItemQuery:
    """What the table shows: which source's figures, which questions, in what order."""

    source: str = "exam"
    set: str = ""
    topic: str = ""
    flag: str = ""  # a flag's key, "any" for any flag, "" for every question
    sort: str = "question"
    descending: bool = False
    page: int = 1


@dataclass(frozen=True)
class Option:
    slug: str
    title: str


@dataclass(frozen=True)
class ItemPage:
    rows: tuple[ItemStat, ...]
    info: PageInfo
    sets: tuple[Option, ...]  # every set and topic with a question, for the filters
    topics: tuple[Option, ...]


def _options(pairs: Iterable[tuple[str | None, str | None]]) -> tuple[Option, ...]:
    unique = {slug: title for slug, title in pairs if slug and title}
    return tuple(Option(s, t) for s, t in sorted(unique.items(), key=lambda p: p[1].lower()))


def _matches(item: ItemStat, query: ItemQuery) -> bool:
    flags = item.of(query.source).flags
    return (
        (not query.set or item.set_slug == query.set)
        and (not query.topic or item.topic_slug == query.topic)
        and (not query.flag or (query.flag == "any" and bool(flags)) or query.flag in flags)
    )


def _sort_value(item: ItemStat, query: ItemQuery) -> object:
    stat = item.of(query.source)
    return {
        "topic": (item.topic_title or "").lower() or None,
        "responses": stat.responses,
        "facility": stat.facility,
        "discrimination": stat.discrimination,
        "time": stat.median_seconds,
        "flags": len(stat.flags),
    }[query.sort]


def select_rows(items: Sequence[ItemStat], query: ItemQuery) -> list[ItemStat]:
    """Filter the items and sort them; rows without the figure go last either way."""
    chosen = [item for item in items if _matches(item, query)]
    if query.sort == "question":
        return chosen[::-1] if query.descending else chosen
    valued = [(v, item) for item in chosen if (v := _sort_value(item, query)) is not None]
    valued.sort(key=lambda pair: pair[0], reverse=query.descending)  # type: ignore[arg-type, return-value]
    missing = [item for item in chosen if _sort_value(item, query) is None]
    return [item for _, item in valued] + missing


def _check_filters(items: Sequence[ItemStat], query: ItemQuery) -> None:
    if query.set and all(item.set_slug != query.set for item in items):
        raise InvalidFilter(f"There is no question set called “{query.set}”.")
    if query.topic and all(item.topic_slug != query.topic for item in items):
        raise InvalidFilter(f"No question is filed under a topic called “{query.topic}”.")


def item_page(session: Session, query: ItemQuery) -> ItemPage:
    """One page of the item table as the query asks (404 past its last page)."""
    items = statistics(session)
    _check_filters(items, query)
    rows = select_rows(items, query)
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    if query.page > pages:
        raise NotFound(f"There is no page {query.page}: the table has {pages}.")
    start = (query.page - 1) * PAGE_SIZE
    shown = tuple(
        replace(item, stem=excerpt(item.stem_md, 120)) for item in rows[start : start + PAGE_SIZE]
    )
    return ItemPage(
        shown,
        PageInfo(query.page, pages, len(rows), PAGE_SIZE),
        _options((i.set_slug, i.set_title) for i in items),
        _options((i.topic_slug, i.topic_title) for i in items),
    )


# The same rows as a spreadsheet

CSV_HEADER = (
    "question_id",
    "set",
    "number",
    "topic",
    "question",
    "source",
    "responses",
    "facility",
    "discrimination",
    "median_seconds",
    "choice_shares",
    "flags",
)


def safe_cell(text: str) -> str:
    """Keep a spreadsheet from reading a text cell as a formula: `=`, `+`, `-`, `@` (and a
    tab or carriage return, which some read past) get a leading apostrophe."""
    return f"'{text}" if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text


def _number(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _csv_row(item: ItemStat, source: str) -> list[str]:
    stat = item.of(source)
    shares = "; ".join(
        f"{chr(64 + c.position) if c.position <= 26 else c.position}"
        f"{'*' if c.correct else ''} {_number(c.share, 3) or '-'}"
        for c in stat.choices
    )
    text = [item.set_title, item.topic_title or "", excerpt(item.stem_md, 200)]
    set_title, topic, stem = (safe_cell(t) for t in text)
    flags = "; ".join(FLAGS[f].label for f in stat.flags)
    time = _number(stat.median_seconds, 1) if stat.timed else "not recorded"
    return [
        str(item.question_id),
        set_title,
        str(item.ordinal),
        topic,
        stem,
        source,
        str(stat.responses),
        _number(stat.facility, 3),
        _number(stat.discrimination, 3),
        time,
        safe_cell(shares),
        safe_cell(flags),
    ]


def item_csv(session: Session, query: ItemQuery) -> str:
    """Every row the table would show for the query (all pages), as CSV text.

    Numbers are written by the server itself, so a negative discrimination stays a number;
    every text cell goes through `safe_cell`.
    """
    items = statistics(session)
    _check_filters(items, query)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    writer.writerows(_csv_row(item, query.source) for item in select_rows(items, query))
    return out.getvalue()
