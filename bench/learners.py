"""Learner accounts for the benchmarks, made in bulk: one Argon2 hash serves them all.

Hashing costs tens of milliseconds, so hundreds of accounts made one by one would spend
most of a benchmark's set-up on it. The learners still log in through the real form.
"""

from collections.abc import Sequence

from sqlalchemy import insert
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.passwords import check_new_password, hash_password
from app.accounts.service import normalize_username

PASSWORD = "a bench password nobody guesses"


def learner_names(prefix: str, count: int) -> list[str]:
    """Name count learners prefix-0001, prefix-0002, ..."""
    return [f"{prefix}-{n:04d}" for n in range(1, count + 1)]


def add_learners(session: Session, names: Sequence[str], password: str = PASSWORD) -> None:
    """Create a learner account for each name, all with the same password."""
    check_new_password(password)
    digest = hash_password(password)
    rows = [
        {"username": normalize_username(name), "password_hash": digest, "role": "learner"}
        for name in names
    ]
    session.execute(insert(User), rows)
