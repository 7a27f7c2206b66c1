"""Daily limits of the review queue, as Anki has them.

A learner's day (midnight to midnight in their time zone) serves at most `reviews` questions
and, of those, at most `new` new ones; what is due beyond that waits for the next day.

A **new** question is one whose first review is still to come: answered once (on a question
page, in a walk or in an exam) and not since. An exam of 50 questions makes 50 of them, and
the queue brings back `new` (20) a day. The second answer takes a question up; it and every
later one are reviews, wherever given (the queue, a question page, a walk, an exam). The
limits count questions: one reviewed three times today counts once.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    new: int = 20  # Anki's defaults
    reviews: int = 200


def allowance(
    limits: Limits, due_reviews: int, due_new: int, done: int, new_done: int
) -> tuple[int, int]:
    """How many due reviews and due new questions the queue serves now.

    `done` counts the questions reviewed today, `new_done` those of them taken up as new.
    Reviews come first; new questions fill what is left of the review limit, up to the
    new limit.
    """
    left = max(0, limits.reviews - done)
    reviews = min(due_reviews, left)
    new = min(due_new, max(0, limits.new - new_done), left - reviews)
    return reviews, new


def held_by(limits: Limits, due_reviews: int, done: int, new_done: int) -> str:
    """Name the limit that holds due questions back: "reviews" or "new"."""
    left = max(0, limits.reviews - done)
    if left <= due_reviews:
        return "reviews"
    return "new" if max(0, limits.new - new_done) <= left - due_reviews else "reviews"
