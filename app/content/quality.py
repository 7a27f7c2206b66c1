"""Checks over the content in the database that a bank must pass before learners trust it.

Every question needs an explanation, a source (a reference with an https address and the
product version it holds for) and a note section an author linked it to (suggested links
are guesses, so they do not count). Stems must not repeat, nor nearly repeat (see
`app.content.stems`). A choice "All/None of the above" gives the game away.

A test-wise candidate answers some questions without knowing the subject, from cues in the
writing; each cue is a finding:

- Length: "pick the longest choice", "the second-longest", "the third-longest" or "the
  shortest" should each score about a quarter over four-choice questions. Each rule's blind
  score is judged over the single-answer questions of each set, and of all the sets checked
  together, once there are at least `RANK_SAMPLE` (12) of them; above `RANK_LIMIT` (30%) is a
  finding. Choices of the same length are a tie that a candidate breaks at random, so a rule
  landing on a tie of k choices holding the right one scores 1/k (ties are split).
- Absolute words (`ABSOLUTES`: always, never, only, all, none, cannot, must, every) in a
  question's distractors while none of its right choices uses any: "avoid the absolute
  claims" then finds the key. Words in code spans are code, not claims.
- An explanation naming a choice by its position ("the first option", "answer (B)", "choice
  3"): choices are shuffled for each learner, so the position means nothing to them.
- The stem repeating the key: see `_stem_echoes`.

The right choice sitting in one position shows only across a set, so it is judged per set over
its single-answer questions of four choices, once there are at least `MIN_SAMPLE` (20) of
them. Any one place holds it a quarter of the time by chance; more than `SHARE_LIMIT` (40%)
of 20 questions happens by chance in about one set in 25 (binomial; for any one of the four
places, one in 6 if places were drawn at random, which authors spreading them on purpose do
not do), so past it the set is most likely written with a habit.

Every leaf topic that holds questions needs at least `TOPIC_MIN` of them, enough for a
practice exam to draw from, and a note to study from.
"""

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.orm import Session

from app.content.markdown import excerpt
from app.content.models import (
    Choice,
    Note,
    Question,
    QuestionNoteLink,
    QuestionReference,
    QuestionSet,
    Topic,
)
from app.content.stems import similar_pairs, words

MIN_SAMPLE = 20
SHARE_LIMIT = 0.40
TOPIC_MIN = 20
RANK_SAMPLE = 12
RANK_LIMIT = 0.30
LENGTH_RULES = ("the longest", "the second-longest", "the third-longest", "the shortest")
ABSOLUTES = frozenset({"always", "never", "only", "all", "none", "cannot", "must", "every"})
RARE = 3  # a word in at most this many questions of a set is specific to them
STOP_WORDS = frozenset(
    """about above after again against along among another because before being below
    between could doing during either every further having might other others rather shall
    should since still their there these those through under until using where which while
    whose within without would""".split()
)
_GIVEAWAY = re.compile(r"^\W*(all|none)\s+of\s+(the\s+)?(above|these|those)\b", re.IGNORECASE)
_CHOICE = r"(?:option|choice|answer|alternative)s?"
_POSITION = re.compile(
    rf"""\b(?:(?:first|second|third|fourth|fifth|last|final|above|below|former|latter)\s+{_CHOICE}\b
    |{_CHOICE}\s+\(?(?-i:[A-E]|[1-5])\)?(?![\w-])
    |{_CHOICE}\s+(?:one|two|three|four|five)\b
    |(?:options|choices|answers)\s+(?:above|below)\b)""",
    re.IGNORECASE | re.VERBOSE,
)
_CODE = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class QuestionRef:
    id: int
    ref: str  # "set-slug/key"
    stem: str  # the start of the stem, as plain text


@dataclass(frozen=True)
class Finding:
    kind: str
    subject: str  # the question, set or topic at fault
    message: str
    questions: tuple[QuestionRef, ...] = ()


@dataclass(frozen=True)
class SetStats:
    slug: str
    questions: int
    single: int  # single-answer questions
    four_choice: int  # single-answer questions with four choices
    positions: tuple[int, ...]  # of the right choice in those, at 1, 2, 3 and 4
    by_length: tuple[float, ...]  # blind score of each of `LENGTH_RULES`, ties split


@dataclass(frozen=True)
class TopicStats:
    slug: str
    title: str
    depth: int
    questions: int  # filed under the topic itself
    notes: int
    leaf: bool


@dataclass(frozen=True)
class ContentReport:
    questions: int
    sets: tuple[SetStats, ...]
    topics: tuple[TopicStats, ...]
    findings: tuple[Finding, ...]
    accepted: tuple[Finding, ...] = ()  # findings an author accepted on a question kept as is


@dataclass
class _Question:
    id: int
    set_slug: str
    key: str
    topic_id: int | None
    stem_md: str
    explanation_md: str
    kind: str
    choices: list[tuple[str, bool]] = field(default_factory=list)
    references: list[tuple[str, str | None]] = field(default_factory=list)  # (url, version)
    linked: bool = False  # to a note section, by an author
    versions: list[str] = field(default_factory=list)
    difficulty: str | None = None
    level: str | None = None
    accepted: list[str] = field(default_factory=list)

    @property
    def ref(self) -> QuestionRef:
        return QuestionRef(self.id, f"{self.set_slug}/{self.key}", excerpt(self.stem_md, 80))


def check_content(session: Session, set_prefixes: Sequence[str] = ()) -> ContentReport:
    """Report distributions and findings over the questions of the sets whose slugs start with
    one of the prefixes (all sets when none is given)."""
    prefixes = [QuestionSet.slug.startswith(p, autoescape=True) for p in set_prefixes]
    questions = _questions(session, [or_(*prefixes)] if prefixes else [])
    sets = _set_stats(questions)
    topics = _topic_stats(session, questions)
    single = [q for q in questions if _single(q)]
    found = [
        *(finding for q in questions for finding in _question_findings(q)),
        *_stem_echoes(questions),
        *_duplicates(questions),
        *(finding for s in sets for finding in _set_findings(s, questions)),
        *(_length_findings("all sets", single) if len(sets) > 1 else []),
        *(finding for t in topics for finding in _topic_findings(t)),
    ]
    kept_as_written = {q.ref.ref: set(q.accepted) for q in questions if q.accepted}
    accepted = tuple(f for f in found if f.kind in kept_as_written.get(f.subject, ()))
    findings = tuple(f for f in found if f not in accepted)
    return ContentReport(len(questions), tuple(sets), tuple(topics), findings, accepted)


def _questions(session: Session, scope: list[ColumnElement[bool]]) -> list[_Question]:
    """Every question in scope with its choices, references and whether an author linked it."""
    in_scope = select(Question.id).join(QuestionSet).where(*scope)
    rows = session.execute(
        select(
            Question.id,
            QuestionSet.slug,
            Question.key,
            Question.topic_id,
            Question.stem_md,
            Question.explanation_md,
            Question.kind,
        )
        .add_columns(Question.versions, Question.difficulty, Question.level, Question.accepted)
        .join(QuestionSet)
        .where(*scope)
        .order_by(QuestionSet.slug, Question.position)
    ).all()
    found = {}
    for *named, versions, difficulty, level, accepted in rows:
        question = _Question(*named)
        question.versions, question.difficulty, question.level = versions, difficulty, level
        question.accepted = accepted
        found[question.id] = question
    for qid, text, correct in session.execute(
        select(Choice.question_id, Choice.text_md, Choice.is_correct)
        .where(Choice.question_id.in_(in_scope))
        .order_by(Choice.question_id, Choice.position)
    ):
        found[qid].choices.append((text, correct))
    for qid, url, version in session.execute(
        select(QuestionReference.question_id, QuestionReference.url, QuestionReference.version)
        .where(QuestionReference.question_id.in_(in_scope))
        .order_by(QuestionReference.question_id, QuestionReference.position)
    ):
        found[qid].references.append((url, version))
    for qid in session.scalars(
        select(QuestionNoteLink.question_id).where(
            QuestionNoteLink.origin == "explicit", QuestionNoteLink.question_id.in_(in_scope)
        )
    ):
        found[qid].linked = True
    return list(found.values())


def _question_findings(question: _Question) -> list[Finding]:
    """What one question lacks: an explanation, a sound source, a note; and giveaway choices."""
    found = []

    def add(kind: str, message: str) -> None:
        found.append(Finding(kind, question.ref.ref, message, (question.ref,)))

    if not question.explanation_md.strip():
        add("no-explanation", "has no explanation")
    if not question.references:
        add("no-reference", "cites no source")
    for number, (url, version) in enumerate(question.references, start=1):
        if not url.lower().startswith("https://"):
            add("weak-reference", f"reference {number} is not an https:// address: {url}")
        if not (version or "").strip():
            add("weak-reference", f"reference {number} does not say which version it holds for")
        if "/latest/" in url:
            add(
                "weak-reference",
                f"reference {number} points at /latest/, which moves to each new release: "
                "cite the page of a version",
            )
    if not question.versions:
        add("no-version", "says no product version it holds for")
    if question.difficulty is None or question.level is None:
        add("no-difficulty", "has no difficulty or no level (recall, apply, analyse)")
    if not question.linked:
        add("no-note-link", "is linked to no note section by an author")
    for text, _ in question.choices:
        if _GIVEAWAY.match(text):
            add("giveaway-choice", f"offers {text.strip()!r} as a choice")
    said = set().union(*(_absolutes(text) for text, ok in question.choices if not ok))
    if said and not any(_absolutes(text) for text, ok in question.choices if ok):
        add("absolute-distractor", f"only its distractors say {', '.join(sorted(said))}")
    places = [match.group(0) for match in _POSITION.finditer(question.explanation_md)]
    if places:
        add(
            "position-in-explanation",
            f"its explanation names choices by their place ({', '.join(map(repr, places))}); "
            "choices are shuffled for each learner",
        )
    return found


def _absolutes(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", _CODE.sub(" ", text).lower())) & ABSOLUTES


def _content_words(text: str) -> set[str]:
    """Words of at least five letters outside code spans, lower case, without a plural s;
    hyphenated words count as their parts."""
    found = set()
    for word in re.findall(r"[a-z][a-z0-9]*", _CODE.sub(" ", text).lower()):
        if len(word) >= 5 and word not in STOP_WORDS:
            found.add(word[:-1] if word.endswith("s") and not word.endswith("ss") else word)
    return found


def _stem_echoes(questions: list[_Question]) -> list[Finding]:
    """A word of the stem that only the right choice repeats points to it ("sparsity ... first
    introduced" asked, "structured sparsity ..., first supported on Ampere" the key).

    The word must be distinctive: at least five letters, not a stop word, in no distractor, and
    rare in the question's set (in at most `RARE` of its questions, stem and choices). Words
    the set uses throughout (engine, layer, input, weight, model) are the subject's vocabulary:
    a stem and a key sharing them is no cue. Code spans are left out, as names of flags and
    tensors have to be repeated.
    """
    used: dict[str, Counter[str]] = {}
    texts = {}
    for q in questions:
        texts[q.id] = _content_words(" ".join([q.stem_md, *(text for text, _ in q.choices)]))
        used.setdefault(q.set_slug, Counter()).update(texts[q.id])
    found = []
    for q in questions:
        wrong = set().union(*(_content_words(text) for text, ok in q.choices if not ok))
        right = set().union(*(_content_words(text) for text, ok in q.choices if ok))
        echoed = sorted(
            word
            for word in (right - wrong) & _content_words(q.stem_md)
            if used[q.set_slug][word] <= RARE
        )
        if echoed:
            found.append(
                Finding(
                    "stem-echoes-key",
                    q.ref.ref,
                    f"its stem and only its right choice say {', '.join(echoed)}",
                    (q.ref,),
                )
            )
    return found


def _duplicates(questions: list[_Question]) -> list[Finding]:
    """Stems with the same words in the same order, then stems sharing most of their words."""
    texts = [words(q.stem_md) for q in questions]
    same: dict[tuple[str, ...], list[_Question]] = {}
    for question, text in zip(questions, texts, strict=True):
        same.setdefault(text, []).append(question)
    found = [
        Finding(
            "duplicate-stem",
            group[0].ref.ref,
            f"{len(group)} questions ask the same stem",
            tuple(q.ref for q in group),
        )
        for group in same.values()
        if len(group) > 1
    ]
    sets = [frozenset(text) for text in texts]
    for i, j, score in similar_pairs(sets):
        if texts[i] != texts[j]:
            a, b = questions[i], questions[j]
            found.append(
                Finding(
                    "near-duplicate-stem",
                    a.ref.ref,
                    f"shares {float(score):.0%} of its stem's words with {b.ref.ref}",
                    (a.ref, b.ref),
                )
            )
    return found


def _single(question: _Question) -> bool:
    return question.kind == "single" and sum(ok for _, ok in question.choices) == 1


def _length(text: str) -> int:
    """The length a reader sees: spacing and code marks aside."""
    return len(" ".join(text.replace("`", "").split()))


def _length_hits(question: _Question) -> tuple[float, ...]:
    """How often each of `LENGTH_RULES` picks the right choice of a single-answer question:
    1 when the choice at that rank by length is the right one, 1/k when the rank falls on k
    choices of the same length, one of them right, and 0 otherwise."""
    lengths = sorted((_length(text) for text, _ in question.choices), reverse=True)
    right = next(_length(text) for text, ok in question.choices if ok)
    ranks = (0, 1, 2, len(lengths) - 1)
    tied = lengths.count(right)
    return tuple(
        1 / tied if rank < len(lengths) and lengths[rank] == right else 0.0 for rank in ranks
    )


def _set_stats(questions: list[_Question]) -> list[SetStats]:
    by_set: dict[str, list[_Question]] = {}
    for question in questions:
        by_set.setdefault(question.set_slug, []).append(question)
    stats = []
    for slug, members in by_set.items():
        single = [q for q in members if _single(q)]
        four = [q for q in single if len(q.choices) == 4]
        at = Counter(next(n for n, (_, ok) in enumerate(q.choices, 1) if ok) for q in four)
        stats.append(
            SetStats(
                slug=slug,
                questions=len(members),
                single=len(single),
                four_choice=len(four),
                positions=tuple(at[n] for n in range(1, 5)),
                by_length=tuple(map(sum, zip(*map(_length_hits, single), strict=True)))
                if single
                else (0.0,) * len(LENGTH_RULES),
            )
        )
    return stats


def _set_findings(stats: SetStats, questions: list[_Question]) -> list[Finding]:
    """Giveaways across a set: the right choice found by its length, or too often in one place."""
    found = _length_findings(
        stats.slug, [q for q in questions if q.set_slug == stats.slug and _single(q)]
    )
    if stats.four_choice >= MIN_SAMPLE:
        for position, count in enumerate(stats.positions, start=1):
            if count > SHARE_LIMIT * stats.four_choice:
                found.append(
                    Finding(
                        "position-bias",
                        stats.slug,
                        f"the right choice is number {position} in {count} of "
                        f"{stats.four_choice} four-choice questions ({count / stats.four_choice:.0%}"
                        f"; at most {SHARE_LIMIT:.0%})",
                    )
                )
    return found


def _length_findings(subject: str, single: list[_Question]) -> list[Finding]:
    """Each rule of `LENGTH_RULES` scoring above `RANK_LIMIT` over at least `RANK_SAMPLE`
    single-answer questions, with the questions where it finds the right choice."""
    if len(single) < RANK_SAMPLE:
        return []
    hits = [_length_hits(q) for q in single]
    found = []
    for n, rule in enumerate(LENGTH_RULES):
        score = sum(h[n] for h in hits)
        if score > RANK_LIMIT * len(single):
            found.append(
                Finding(
                    "length-cue",
                    subject,
                    f"picking {rule} choice finds the right one in {round(score, 1):g} of "
                    f"{len(single)} "
                    f"single-answer questions ({score / len(single):.0%}; at most "
                    f"{RANK_LIMIT:.0%}, ties split)",
                    tuple(q.ref for q, h in zip(single, hits, strict=True) if h[n]),
                )
            )
    return found


def _topic_stats(session: Session, questions: list[_Question]) -> list[TopicStats]:
    """Every topic in tree order with the questions in scope and the notes filed under it."""
    topics = session.execute(
        select(Topic.id, Topic.slug, Topic.title, Topic.parent_id).order_by(
            Topic.position, Topic.id
        )
    ).all()
    notes = Counter(session.scalars(select(Note.topic_id)))
    counts = Counter(q.topic_id for q in questions)
    children: dict[int | None, list[tuple[int, str, str]]] = {}
    for topic_id, slug, title, parent_id in topics:
        children.setdefault(parent_id, []).append((topic_id, slug, title))
    stats: list[TopicStats] = []
    stack = [(topic, 0) for topic in reversed(children.get(None, []))]
    while stack:
        (topic_id, slug, title), depth = stack.pop()
        below = children.get(topic_id, [])
        stats.append(TopicStats(slug, title, depth, counts[topic_id], notes[topic_id], not below))
        stack.extend((child, depth + 1) for child in reversed(below))
    return stats


def _topic_findings(topic: TopicStats) -> list[Finding]:
    """A leaf topic holding questions needs enough of them and a note to learn from."""
    if not topic.leaf or not topic.questions:
        return []
    found = []
    if topic.questions < TOPIC_MIN:
        found.append(
            Finding(
                "thin-topic",
                topic.slug,
                f"holds {topic.questions} question(s); a leaf topic needs at least {TOPIC_MIN}",
            )
        )
    if not topic.notes:
        found.append(Finding("topic-without-note", topic.slug, "holds questions but no note"))
    return found
