"""Password hashing (Argon2id with OWASP's parameters) and the rules a new password must meet."""

import asyncio
import contextvars
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TypeVar

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
# A low scheduling priority for log-ins' password checks (nice 10: about a tenth of a core's
# share beside a request's thread): on a busy machine the pages and saves of learners already
# in an exam go first, and the checks are slowed, never starved (19 starved them).
CHECKING_NICENESS = 10


def _yield_to_requests() -> None:
    if sys.platform == "linux":  # there a thread has a priority of its own
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), CHECKING_NICENESS)
        except OSError:
            pass


_CHECKERS = ThreadPoolExecutor(
    HASHING_AT_ONCE, thread_name_prefix="studyhall-password", initializer=_yield_to_requests
)
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
    """Run work that checks a password in a password-checking thread once its turn comes.

    Waiting for the turn holds no thread, so a queue of log-ins leaves the database's threads
    to everything else; the checking threads run at the lowest priority.
    """
    run = contextvars.copy_context().run  # the request's id goes with it into log lines
    return await asyncio.get_running_loop().run_in_executor(_CHECKERS, run, work)


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
