"""Password hashing (Argon2id with OWASP's parameters) and the rules a new password must meet."""

import os
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

import anyio
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from app.accounts.errors import InvalidInput

MIN_LENGTH = 8
MAX_LENGTH = 1024
# OWASP Password Storage Cheat Sheet: Argon2id, 19 MiB of memory, 2 iterations, 1 lane.
HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1, type=Type.ID)
T = TypeVar("T")
# Hashing is slow by design: a process runs at most this many at once, so a wave of log-ins
# (an exam starting) queues here instead of taking every core from the pages being read.
HASHING_AT_ONCE = max(1, (os.cpu_count() or 2) - 1)
_HASHING = threading.BoundedSemaphore(HASHING_AT_ONCE)
_TURNS = anyio.CapacityLimiter(HASHING_AT_ONCE)
# Verified when a username is unknown, so that answer takes as long as a wrong password.
_DUMMY_HASH = HASHER.hash("not a real password, only spends time")


def _hash(password: str) -> str:
    with _HASHING:
        return HASHER.hash(password)


def _verify(password_hash: str, password: str) -> bool:
    with _HASHING:
        return HASHER.verify(password_hash, password)


@lru_cache(maxsize=1)
def _common_passwords() -> frozenset[str]:
    from zxcvbn.frequency_lists import FREQUENCY_LISTS

    return frozenset(FREQUENCY_LISTS["passwords"])


def check_new_password(password: str, username: str = "") -> None:
    """Refuse a password that is too short, too long, too common or the username itself."""
    if len(password) < MIN_LENGTH:
        raise InvalidInput("password", f"Use at least {MIN_LENGTH} characters.")
    if len(password) > MAX_LENGTH:
        raise InvalidInput("password", f"Use at most {MAX_LENGTH} characters.")
    if password.lower() in _common_passwords():
        raise InvalidInput(
            "password", "That password is one of the most common ones; pick another."
        )
    if username and password.lower() == username.lower():
        raise InvalidInput("password", "The password must not be your username.")


async def in_turn(work: Callable[[], T]) -> T:
    """Run work that checks a password in a thread once its turn comes.

    Waiting for the turn holds no thread, so a queue of log-ins leaves the thread pool to
    everything else.
    """
    return await anyio.to_thread.run_sync(work, limiter=_TURNS)


def hash_password(password: str) -> str:
    """Hash a password with Argon2id."""
    return _hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """Check a password against its hash (or against a dummy when there is no user)."""
    if len(password) > MAX_LENGTH:
        return False
    try:
        return _verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """Tell whether a hash was made with other parameters than today's."""
    return HASHER.check_needs_rehash(password_hash)
