"""Errors the exam services raise; each carries the status it maps to."""

from typing import TYPE_CHECKING

from app.errors import DomainError, NotFound

if TYPE_CHECKING:
    from app.exams.read_models import AttemptHeader

__all__ = [
    "AttemptClosed",
    "ExamError",
    "InvalidExamAnswer",
    "InvalidExamSpec",
    "NotFound",
    "QuotaReached",
    "TimeUp",
]


class ExamError(DomainError):
    status_code = 400


class InvalidExamAnswer(ExamError):
    status_code = 422


class InvalidExamSpec(ExamError):
    """A custom exam that cannot be built; `field` names the form field at fault."""

    status_code = 422

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class QuotaReached(ExamError):
    """A learner may not start another attempt now: too many open, or started today."""

    status_code = 429
    field = "quota"

    def __init__(self, message: str, retry_after_s: int | None = None) -> None:
        headers = {"retry-after": str(retry_after_s)} if retry_after_s is not None else None
        super().__init__(message, headers=headers)


class AttemptClosed(ExamError):
    """The attempt was submitted already: nothing in it may change."""

    status_code = 409

    def __init__(self, attempt_id: int, message: str | None = None, query: str = "") -> None:
        super().__init__(
            message or "This exam was already submitted, so its answers can no longer change.",
            page_redirect=f"/attempts/{attempt_id}{query}",
        )
        self.attempt_id = attempt_id


class NotSubmitted(ExamError):
    status_code = 409

    def __init__(self) -> None:
        super().__init__("This attempt is not submitted yet; its result comes after.")


class TimeUp(AttemptClosed):
    """The answer came after the deadline and its grace: refused, never saved."""

    def __init__(self, attempt_id: int) -> None:
        super().__init__(
            attempt_id,
            "Time is up: that answer arrived after the exam's deadline and was not saved. "
            "The exam was submitted with the answers saved in time.",
            query="?late=1",
        )


def refuse_if_closed(attempt: "AttemptHeader") -> None:
    """Refuse a change to a closed attempt: too late when its time ran out, else submitted."""
    if attempt.status == "expired":
        raise TimeUp(attempt.id)
    if attempt.status != "open":
        raise AttemptClosed(attempt.id)
