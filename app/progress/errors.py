"""Errors the progress services raise."""

from app.errors import DomainError


class InOpenExam(DomainError):
    """The learner's open exam holds the question: its answer waits for the exam's result."""

    status_code = 409

    def __init__(self) -> None:
        super().__init__(
            "You have an exam open that includes this question; its answer shows when you "
            "submit the exam."
        )


class UnknownWalk(DomainError):
    """A walk's address names a topic or set that does not exist: the address is not valid."""

    status_code = 422
