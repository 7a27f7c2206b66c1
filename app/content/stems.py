"""Question stems as sets of words, and the pairs of stems that share most of their words.

Two stems are near-duplicates when the Jaccard similarity of their word sets is at least
`NEAR` (4/5): they share four of every five distinct words between them. One word changed
in a ten-word stem leaves 9 of 11 words shared (0.82, a near-duplicate); two changed leave
8 of 12 (0.67, a different question). Short stems that differ in their one key term ("Which
flag enables FP16?" against "... INT8?") stay apart: 3 of 5 shared.

Comparing every pair would cost n² for n questions, so candidates come from prefix
filtering: with the words of every stem ordered rarest first, two stems that reach the
threshold must share a word among the first |x| - ceil(NEAR·|x|) + 1 of either. Only those
pairs are compared, exactly, in integers.
"""

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

NEAR = Fraction(4, 5)
_WORD = re.compile(r"[a-z0-9_]+(?:[.:+-][a-z0-9_]+)*")


def words(markdown: str) -> tuple[str, ...]:
    """Return the words of a stem: case, Markdown marks and punctuation set aside.

    Code-like terms stay whole (`kSTRICT_TYPES`, `trt.BuilderFlag.REFIT`, `2:4`).
    """
    text = unicodedata.normalize("NFKC", markdown).lower()
    found = (word.strip("_") for word in _WORD.findall(text))
    return tuple(word for word in found if word)


def similarity(a: frozenset[str], b: frozenset[str]) -> Fraction:
    """Jaccard similarity of two word sets (1 for two empty ones)."""
    union = len(a | b)
    return Fraction(len(a & b), union) if union else Fraction(1)


def similar_pairs(
    stems: Sequence[frozenset[str]], threshold: Fraction = NEAR
) -> list[tuple[int, int, Fraction]]:
    """Return (i, j, similarity) for every pair i < j of stems at or above threshold."""
    frequency = Counter(word for stem in stems for word in stem)
    rank = {word: n for n, word in enumerate(sorted(frequency, key=lambda w: (frequency[w], w)))}
    index: dict[str, list[int]] = {}
    pairs = []
    for j, stem in enumerate(stems):
        ordered = sorted(stem, key=rank.__getitem__)
        prefix = ordered[: len(ordered) - math.ceil(threshold * len(ordered)) + 1]
        candidates = {i for word in prefix for i in index.get(word, ())}
        for i in sorted(candidates):
            score = similarity(stems[i], stem)
            if score >= threshold:
                pairs.append((i, j, score))
        for word in prefix:
            index.setdefault(word, []).append(j)
    return pairs
