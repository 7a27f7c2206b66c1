"""Extra time on timed exams: an admin gives a learner a multiplier (as Moodle's overrides do)."""

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.errors import PermissionDenied
from app.accounts.models import User
from app.accounts.service import Viewer
from app.exams.errors import InvalidExamSpec
from app.exams.models import TimeAllowance

ALLOWANCES = (1.0, 1.25, 1.5, 2.0)  # extra time an admin may give: none, a quarter, half, double


def time_multiplier(session: Session, user_id: int) -> float:
    """How much longer this learner's timed attempts last (1.0 without an allowance)."""
    found = session.get(TimeAllowance, user_id)
    return found.multiplier if found is not None else 1.0


def set_allowance(
    session: Session, actor: Viewer, username: str, multiplier: float, now: datetime
) -> None:
    """Give a learner extra time on every timed attempt they start from now on (admins only)."""
    if not actor.may("admin"):
        raise PermissionDenied("Only admins can give extra time.")
    if multiplier not in ALLOWANCES:
        raise InvalidExamSpec("multiplier", "Choose 1, 1.25, 1.5 or 2 times the time.")
    user = session.scalars(
        select(User).where(User.username == username.strip().lower())
    ).one_or_none()
    if user is None:
        raise InvalidExamSpec("username", f"There is no user called “{username}”.")
    allowance = session.get(TimeAllowance, user.id)
    if multiplier == 1.0:
        if allowance is not None:
            session.delete(allowance)
    elif allowance is None:
        session.add(TimeAllowance(user_id=user.id, multiplier=multiplier, updated_at=now))
    else:
        allowance.multiplier, allowance.updated_at = multiplier, now
    session.flush()


def list_allowances(session: Session) -> list[tuple[str, float]]:
    """List who has extra time, by username."""
    rows = session.execute(
        select(User.username, TimeAllowance.multiplier)
        .join(TimeAllowance, TimeAllowance.user_id == User.id)
        .order_by(User.username)
    ).all()
    return [(name, multiplier) for name, multiplier in rows]
