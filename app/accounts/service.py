"""Account rules: sign-up, log-in with rate limits, sessions, passwords, roles and API tokens.

Services add and flush; the caller commits. Tokens are random; only their SHA-256 is stored.
"""

import hashlib
import logging
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from sqlalchemy import bindparam, delete, distinct, func, or_, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.errors import (
    AccountError,
    InvalidCredentials,
    InvalidInput,
    PermissionDenied,
    RateLimited,
    SignupClosed,
    UserNotFound,
)
from app.accounts.models import (
    ROLE_SCOPES,
    ROLES,
    SCOPE_ROLES,
    SCOPES,
    ApiToken,
    RateLimitEvent,
    RoleChange,
    User,
    UserSession,
)
from app.accounts.passwords import check_new_password, hash_password, needs_rehash, verify_password
from app.db import utcnow
from app.web import zones
from app.web.forms import whole_number
from app.web.metrics import LOGIN_ALARMS

USERNAME = re.compile(r"^[a-z0-9][a-z0-9._-]{2,31}$")
TOKEN_PREFIX = "shpat_"
TOKEN_LIFETIMES = (30, 90, 365)  # days a new API token may live
DAILY_LIMIT_MAX = 9999  # the most new questions or reviews a day a learner may ask for
# Visits are written at most once a minute per session or token, in a short transaction of
# their own: a write on every page would queue every reader behind SQLite's write lock.
SEEN_REFRESH = timedelta(minutes=1)
T = TypeVar("T")
log = logging.getLogger("studyhall")


@dataclass(frozen=True)
class Viewer:
    """The logged-in person as pages and services see them."""

    id: int
    username: str
    role: str
    scope: str | None = None  # an API token's; None for a browser session
    time_zone: str = zones.DEFAULT  # where the person's days and times are

    @property
    def acting_role(self) -> str:
        """The role this request acts with: an API token's scope caps its owner's role."""
        if self.scope is None:
            return self.role
        return min(self.role, SCOPE_ROLES[self.scope], key=ROLES.index)

    def may(self, *roles: str) -> bool:
        return self.acting_role == "admin" or self.acting_role in roles


@dataclass(frozen=True)
class Policy:
    """Limits and lifetimes taken from the settings."""

    signup_open: bool = True
    idle: timedelta = timedelta(hours=12)
    lifetime: timedelta = timedelta(days=30)
    per_account: int = 5
    per_address: int = 20
    window: timedelta = timedelta(minutes=15)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def viewer(user: User) -> Viewer:
    return Viewer(user.id, user.username, user.role, time_zone=user.time_zone or zones.DEFAULT)


def normalize_username(username: str) -> str:
    """Check a username's form and return it in lower case."""
    name = username.strip().lower()
    if not USERNAME.match(name):
        raise InvalidInput(
            "username",
            "Use 3 to 32 characters: letters, digits, dots, dashes or underscores, "
            "starting with a letter or digit.",
        )
    return name


def _find_user(session: Session, username: str) -> User | None:
    return session.scalars(select(User).where(User.username == username.strip().lower())).first()


def create_user(
    session: Session,
    username: str,
    password: str,
    role: str = "learner",
    password_hash: str | None = None,
) -> User:
    """Create an account after checking the username, password and role (every problem).

    `password_hash`: the password's, hashed beforehand (`new_password_hash`); None hashes here.
    """
    name = _check_new_account(session, username, password, role)
    user = User(username=name, password_hash=password_hash or hash_password(password), role=role)
    try:
        with session.begin_nested():  # a twin request may have taken the name meanwhile
            session.add(user)
            session.flush()
    except IntegrityError:
        raise InvalidInput("username", "That username is taken; choose another.") from None
    return user


def _check_new_account(session: Session, username: str, password: str, role: str) -> str:
    """Return the normalised username, or refuse with every field's problem at once."""
    errors: dict[str, str] = {}
    name = username.strip().lower()
    for check in (
        lambda: normalize_username(username),
        lambda: check_new_password(password, name),
        lambda: _known_role(role),
    ):
        try:
            check()
        except InvalidInput as exc:
            errors.update(exc.errors)
    if "username" not in errors and _find_user(session, name) is not None:
        errors["username"] = "That username is taken; choose another."
    if errors:
        raise InvalidInput.of(errors)
    return name


def _known_role(role: str) -> None:
    if role not in ROLES:
        raise InvalidInput("role", f"Unknown role {role!r}; choose one of {', '.join(ROLES)}.")


def sign_up(
    session: Session,
    username: str,
    password: str,
    address: str,
    policy: Policy,
    password_hash: str | None = None,
) -> User:
    """Create a learner account, counting the attempt against the client address."""
    sign_up_allowed(session, address, policy)
    count_signup_attempt(session, address)
    return create_user(session, username, password, password_hash=password_hash)


def sign_up_allowed(session: Session, address: str, policy: Policy) -> None:
    """Refuse a sign-up while sign-up is closed or the address is past its limit: checked
    in a read before the password is hashed, so a refused attempt costs no hash."""
    if not policy.signup_open:
        raise SignupClosed()
    _check_limit(session, _signup_key(address), policy.per_address, policy.window, utcnow())


def new_password_hash(password: str, username: str) -> str | None:
    """Hash a new password that the rules allow (None for one they refuse, which the write
    then refuses with its reason). Hashing takes tens of milliseconds: done apart, it never
    holds SQLite's write lock."""
    try:
        check_new_password(password, username.strip().lower())
    except InvalidInput:
        return None
    return hash_password(password)


def _signup_key(address: str) -> str:
    return f"signup-address:{address}"


def count_signup_attempt(session: Session, address: str) -> None:
    """Count a sign-up attempt from address, successful or not (so names cannot be probed)."""
    session.add(RateLimitEvent(key=_signup_key(address), created_at=utcnow()))
    session.flush()


def sign_up_and_start(
    session: Session,
    username: str,
    password: str,
    address: str,
    policy: Policy,
    replacing: str | None,
    time_zone: str = "",
    password_hash: str | None = None,
) -> str | AccountError:
    """Sign up and open a session (its token); a refusal is returned, rolled back but counted.

    `time_zone` is the one the browser reports, kept when known.
    """
    try:
        with session.begin_nested():
            user = sign_up(session, username, password, address, policy, password_hash)
    except AccountError as exc:
        if isinstance(exc, InvalidInput):  # a refused attempt still counts against the limit
            count_signup_attempt(session, address)
        return exc
    adopt_time_zone(session, user.id, time_zone)
    return start_session(session, user, policy, replacing=replacing)


@dataclass(frozen=True)
class Verified:
    """A password found right for an account (which hash it matched), checked before any lock."""

    user_id: int
    password_hash: str


@dataclass(frozen=True)
class Candidate:
    """The account a log-in names and its hash, found after the limits let the attempt in."""

    user_id: int
    password_hash: str


def log_in_candidate(
    session: Session, username: str, address: str, policy: Policy
) -> Candidate | None:
    """Check the limits in a read transaction (so a limited guess costs no hash), find the account."""
    now = utcnow()
    for key, limit in _log_in_keys(username, address, policy).items():
        _count_limit(session, key, limit, policy.window, now)
    user = _find_user(session, username)
    return Candidate(user.id, user.password_hash) if user is not None else None


def verify_candidate(candidate: Candidate | None, password: str) -> Verified | None:
    """Check the password (against a dummy hash when no account matched).

    Hashing takes tens of milliseconds: done apart, it never holds SQLite's write lock.
    """
    found = verify_password(candidate.password_hash if candidate else None, password)
    return Verified(candidate.user_id, candidate.password_hash) if found and candidate else None


def log_in(session: Session, username: str, password: str, address: str, policy: Policy) -> User:
    """Log in under the limits, checking the password here (in the write transaction)."""
    return _log_in(session, username, password, address, policy, None)


def log_in_and_start(
    session: Session,
    username: str,
    password: str,
    address: str,
    policy: Policy,
    verified: Verified | None,
    replacing: str | None,
    time_zone: str = "",
) -> str | InvalidCredentials:
    """Log in with a password `verify_candidate` checked beforehand, and open a fresh session
    (its token); a refusal is returned, its failure kept. `time_zone` is the one the browser
    reports: an account without a zone takes it."""
    try:
        user = _log_in(session, username, password, address, policy, verified or False)
    except InvalidCredentials as exc:
        return exc
    adopt_time_zone(session, user.id, time_zone)
    return start_session(session, user, policy, replacing=replacing)


def _log_in(
    session: Session,
    username: str,
    password: str,
    address: str,
    policy: Policy,
    verified: Verified | bool | None,
) -> User:
    """Log in, counting failures; the limits are checked again under the lock.

    An address that fails `per_account` times on one account waits out the window, and one
    that fails `per_address` times on any accounts too. Nothing is limited per account
    alone: failures from other addresses never keep the owner out (they raise an alarm for
    admins instead). `verified` None means: check the password here.
    """
    now = utcnow()
    keys = _log_in_keys(username, address, policy)
    ordered = sorted(keys)  # one order everywhere, so locks cannot deadlock
    _lock(session, *ordered, _account_key(username))
    for key in ordered:
        _count_limit(session, key, keys[key], policy.window, now)
    user = _find_user(session, username)
    if not _password_right(user, password, verified) or user is None:
        for key in (*keys, _account_key(username)):
            session.add(RateLimitEvent(key=key, created_at=now))
        session.flush()
        _sound_alarm(session, username, policy, now)
        raise InvalidCredentials()
    if needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
    return user


def _password_right(user: User | None, password: str, verified: Verified | bool | None) -> bool:
    if verified is None:  # an unknown user costs a hash too, so answers take the same time
        return verify_password(user.password_hash if user else None, password)
    if not isinstance(verified, Verified) or user is None:
        return False
    if verified.user_id != user.id:
        return False
    # The hash changed since the check (a rehash by a log-in beside this one, or a new
    # password): the password must match the stored hash, so a changed password does not count.
    return verified.password_hash == user.password_hash or verify_password(
        user.password_hash, password
    )


def _account_key(username: str) -> str:
    return f"login-account:{username.strip().lower()[:64]}"


def _pair_key(username: str, address: str) -> str:
    return f"login-account-address:{username.strip().lower()[:64]}:{address}"


def _log_in_keys(username: str, address: str, policy: Policy) -> dict[str, int]:
    return {
        _pair_key(username, address): policy.per_account,
        f"login-address:{address}": policy.per_address,
    }


def _sound_alarm(session: Session, username: str, policy: Policy, now: datetime) -> None:
    """Warn admins each time an account's failures in the window reach another `per_address`.

    One address can add at most `per_account` of them, so with the default limits the alarm
    means at least four addresses are guessing one account's password.
    """
    since = now - policy.window
    in_window = RateLimitEvent.created_at > since
    account = _account_key(username)
    failures = session.scalar(select(func.count()).where(RateLimitEvent.key == account, in_window))
    if not failures or failures % policy.per_address:
        return
    pairs = _pair_key(username, "")
    addresses = session.scalar(
        select(func.count(distinct(RateLimitEvent.key))).where(
            RateLimitEvent.key.startswith(pairs, autoescape=True), in_window
        )
    )
    LOGIN_ALARMS.inc()
    log.warning(
        "log-in alarm: %d failed log-ins on account %r from %d addresses in the last %d minutes",
        failures,
        account.removeprefix("login-account:"),
        addresses,
        policy.window.total_seconds() // 60,
    )


def _check_limit(session: Session, key: str, limit: int, window: timedelta, now: datetime) -> None:
    _lock(session, key)
    _count_limit(session, key, limit, window, now)


def _count_limit(session: Session, key: str, limit: int, window: timedelta, now: datetime) -> None:
    times = session.scalars(
        select(RateLimitEvent.created_at)
        .where(RateLimitEvent.key == key, RateLimitEvent.created_at > now - window)
        .order_by(RateLimitEvent.created_at.desc())
        .limit(limit)
    ).all()
    if len(times) >= limit:
        raise RateLimited(int((times[-1] + window - now).total_seconds()) + 1)


def _lock(session: Session, *keys: str) -> None:
    """Serialise attempts under each key until the transaction ends, so parallel guesses
    cannot all pass the count before any is recorded (SQLite's BEGIN IMMEDIATE already does).

    The keys are locked in the order given, in one statement (a log-in holds its address's
    lock meanwhile, so every round trip here is one more wait for the next log-in).
    """
    if session.get_bind().dialect.name == "postgresql":
        calls = ", ".join(f"pg_advisory_xact_lock(hashtext(:key{n}))" for n in range(len(keys)))
        session.execute(text(f"SELECT {calls}"), {f"key{n}": key for n, key in enumerate(keys)})


def start_session(
    session: Session, user: User, policy: Policy, replacing: str | None = None
) -> str:
    """Open a new session for user (a fresh id on every log-in) and return its token.

    `replacing` is the token this browser had, which ends (no fixation of an old id).
    """
    if replacing:
        end_session(session, replacing)
    now = utcnow()
    session.execute(
        delete(UserSession).where(
            UserSession.user_id == user.id,
            or_(UserSession.expires_at <= now, UserSession.last_seen_at <= now - policy.idle),
        )
    )
    session.execute(delete(RateLimitEvent).where(RateLimitEvent.created_at <= now - policy.window))
    token = secrets.token_urlsafe(32)
    session.add(
        UserSession(
            token_hash=hash_token(token),
            user_id=user.id,
            created_at=now,
            last_seen_at=now,
            expires_at=now + policy.lifetime,
        )
    )
    session.flush()
    return token


# Built once, plain columns: every logged-in request that the worker has not seen for a
# moment runs it.
_SESSION_VIEWER = (
    select(
        UserSession.expires_at,
        UserSession.last_seen_at,
        User.id,
        User.username,
        User.role,
        User.time_zone,
    )
    .join(User, UserSession.user_id == User.id)
    .where(UserSession.token_hash == bindparam("token_hash"))
)


def session_viewer(session: Session, token: str, policy: Policy) -> tuple[Viewer | None, bool]:
    """Return the session's user (None when unknown or expired) and whether to bump it."""
    params = {"token_hash": hash_token(token)}
    row = session.connection().execute(_SESSION_VIEWER, params).first()
    if row is None:
        return None, False
    now = utcnow()
    if row.expires_at <= now or row.last_seen_at <= now - policy.idle:
        return None, False
    fresh = Viewer(row.id, row.username, row.role, time_zone=row.time_zone or zones.DEFAULT)
    return fresh, row.last_seen_at <= now - SEEN_REFRESH


def touch_session(session: Session, token: str) -> None:
    """Record a visit, so the idle expiry starts again."""
    session.execute(
        update(UserSession)
        .where(UserSession.token_hash == hash_token(token))
        .values(last_seen_at=utcnow())
    )


def end_session(session: Session, token: str) -> None:
    """Log out one session."""
    session.execute(delete(UserSession).where(UserSession.token_hash == hash_token(token)))


def by_session(actor: Viewer) -> None:
    """Refuse an API token: what guards the account itself needs a browser session."""
    if actor.scope is not None:
        raise PermissionDenied("An API token cannot do that; log in with your browser.")


def scopes_for(role: str) -> tuple[str, ...]:
    """The scopes a token of someone with role may have: up to the role's own."""
    return SCOPES[: SCOPES.index(ROLE_SCOPES[role]) + 1]


def get_user(session: Session, user_id: int) -> User:
    user = session.get(User, user_id)
    if user is None:
        raise UserNotFound(str(user_id))
    return user


@dataclass(frozen=True)
class PasswordChange:
    """A password change checked before any lock: the hash the current password matched,
    and the new password's hash."""

    old_hash: str
    new_hash: str


def password_hash_of(session: Session, actor: Viewer) -> str:
    """The stored hash of the person asking (by their session: a token may not see it)."""
    by_session(actor)
    return get_user(session, actor.id).password_hash


def check_password_change(stored: str, current: str, new: str, username: str) -> PasswordChange:
    """Check the current password against the stored hash and hash the new one, or refuse."""
    if not verify_password(stored, current):
        raise InvalidInput("current_password", "Your current password is not right.")
    check_new_password(new, username)
    return PasswordChange(stored, hash_password(new))


def change_password(
    session: Session,
    actor: Viewer,
    current: str,
    new: str,
    checked: PasswordChange | None = None,
) -> User:
    """Replace the password, end every session and revoke every API token of the user.

    A stolen password or token stops working; the caller opens a fresh session. `checked`:
    the change `check_password_change` made beforehand (None checks and hashes here); it
    holds only while the stored hash is still the one it matched.
    """
    by_session(actor)
    user = get_user(session, actor.id)
    if checked is None:
        checked = check_password_change(user.password_hash, current, new, user.username)
    elif checked.old_hash != user.password_hash:
        raise InvalidInput(
            "current_password", "Your password was changed meanwhile; log in again with it."
        )
    user.password_hash = checked.new_hash
    session.execute(delete(UserSession).where(UserSession.user_id == user.id))
    session.execute(
        update(ApiToken)
        .where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    return user


def change_password_and_start(
    session: Session, actor: Viewer, checked: PasswordChange, policy: Policy, replacing: str | None
) -> str:
    """Change the password (ending every session) and open a fresh session here (its token)."""
    user = change_password(session, actor, "", "", checked)
    return start_session(session, user, policy, replacing=replacing)


def delete_account(
    session: Session, actor: Viewer, password: str, checked_hash: str | None = None
) -> None:
    """Delete the user and, through cascades, everything that is theirs.

    `checked_hash`: the stored hash the password was found right for beforehand (None checks
    here); it holds only while it is still the stored one.
    """
    by_session(actor)
    user = get_user(session, actor.id)
    right = (
        verify_password(user.password_hash, password)
        if checked_hash is None
        else checked_hash == user.password_hash
    )
    if not right:
        raise InvalidInput("password", "That password is not right; your account was not deleted.")
    session.delete(user)
    session.flush()


def list_users(session: Session) -> list[User]:
    """List every account, oldest first."""
    return list(session.scalars(select(User).order_by(User.id)))


def set_role(session: Session, actor: Viewer | None, username: str, role: str) -> User:
    """Change a user's role; only admins may (actor None is the server's own command line)."""
    if actor is not None:
        by_session(actor)
        if not actor.may("admin"):
            raise PermissionDenied()
    _known_role(role)
    user = _find_user(session, username)
    if user is None:
        raise UserNotFound(username)
    if user.role == "admin" and role != "admin" and _admin_count(session) == 1:
        raise InvalidInput("role", "This is the last admin; make someone else admin first.")
    if user.role != role:
        actor_id = actor.id if actor is not None else None
        session.add(
            RoleChange(actor_id=actor_id, user_id=user.id, old_role=user.role, new_role=role)
        )
        user.role = role
    return user


def _admin_count(session: Session) -> int:
    # Lock the admin rows, so two admins demoting each other at once cannot both pass.
    return len(session.scalars(select(User.id).where(User.role == "admin").with_for_update()).all())


def create_api_token(
    session: Session, actor: Viewer, name: str, days: int = 90, scope: str = "read"
) -> tuple[ApiToken, str]:
    """Create a personal API token with a scope, expiring after days (the actor's session
    only); the token is returned only once."""
    by_session(actor)
    label = " ".join(name.split())
    errors = {}
    if not 1 <= len(label) <= 60:
        errors["name"] = "Give the token a name of 1 to 60 characters."
    if days not in TOKEN_LIFETIMES:
        errors["days"] = f"Choose a lifetime of {', '.join(map(str, TOKEN_LIFETIMES))} days."
    if scope not in scopes_for(actor.role):
        errors["scope"] = f"Choose a scope your role allows: {', '.join(scopes_for(actor.role))}."
    if errors:
        raise InvalidInput.of(errors)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    expires = utcnow() + timedelta(days=days)
    row = ApiToken(
        user_id=actor.id,
        name=label,
        token_hash=hash_token(token),
        hint=token[-4:],
        scope=scope,
        expires_at=expires,
    )
    session.add(row)
    session.flush()
    return row, token


def fresh_api_token(tokens: list[ApiToken], token: str) -> ApiToken | None:
    """Return the live token of tokens matching token (just created, to show it once), or None."""
    if not token.startswith(TOKEN_PREFIX):
        return None
    digest = hash_token(token)
    return next((t for t in tokens if t.token_hash == digest and t.revoked_at is None), None)


def list_api_tokens(session: Session, actor: Viewer) -> list[ApiToken]:
    """List the user's tokens, newest first."""
    return list(
        session.scalars(
            select(ApiToken).where(ApiToken.user_id == actor.id).order_by(ApiToken.id.desc())
        )
    )


def revoke_api_token(session: Session, token_id: int) -> None:
    """Revoke a token (the caller has checked it is the actor's)."""
    session.execute(
        update(ApiToken)
        .where(ApiToken.id == token_id, ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )


def find_owned(session: Session, model: type[T], item_id: int, user_id: int) -> T | None:
    """Return the model's row item_id when it belongs to user_id, else None."""
    obj = session.get(model, item_id)
    return obj if obj is not None and getattr(obj, "user_id", None) == user_id else None


_TOKEN_VIEWER = (
    select(ApiToken.last_used_at, ApiToken.scope, User.id, User.username, User.role, User.time_zone)
    .join(User, ApiToken.user_id == User.id)
    .where(
        ApiToken.token_hash == bindparam("token_hash"),
        ApiToken.revoked_at.is_(None),
        ApiToken.expires_at > bindparam("now"),
    )
)


def token_viewer(session: Session, token: str) -> tuple[Viewer | None, bool]:
    """Return the owner of a live API token (or None) and whether to record its use."""
    now = utcnow()
    params = {"token_hash": hash_token(token), "now": now}
    row = session.connection().execute(_TOKEN_VIEWER, params).first()
    if row is None:
        return None, False
    last_used = row.last_used_at
    stale = last_used is None or last_used <= now - SEEN_REFRESH
    return Viewer(row.id, row.username, row.role, row.scope, row.time_zone or zones.DEFAULT), stale


def touch_token(session: Session, token: str) -> None:
    """Record that a token was used (shown on the account page)."""
    session.execute(
        update(ApiToken)
        .where(ApiToken.token_hash == hash_token(token))
        .values(last_used_at=utcnow())
    )


@dataclass(frozen=True)
class StudyDay:
    """A learner's study day: daily limits of new questions and reviews, and time zone."""

    new_per_day: int
    reviews_per_day: int
    time_zone: str | None  # None until chosen (or sent by the browser): UTC meanwhile


def account_page(session: Session, actor: Viewer) -> tuple[list[ApiToken], StudyDay]:
    """Read what the account page shows: the API tokens and the study day."""
    user = get_user(session, actor.id)
    day = StudyDay(user.new_per_day, user.reviews_per_day, user.time_zone)
    return list_api_tokens(session, actor), day


def _limit(text: str, what: str) -> tuple[int | None, str]:
    number = whole_number(text, 0, DAILY_LIMIT_MAX)
    return number, f"Enter {what} as a whole number from 0 to {DAILY_LIMIT_MAX}."


def set_study_day(
    session: Session, actor: Viewer, new_per_day: str, reviews_per_day: str, time_zone: str
) -> None:
    """Change the learner's daily limits and time zone; any bad value changes nothing."""
    by_session(actor)
    new, new_error = _limit(new_per_day, "the new questions a day")
    reviews, reviews_error = _limit(reviews_per_day, "the reviews a day")
    zone = time_zone.strip()
    errors = {}
    if new is None:
        errors["new_per_day"] = new_error
    if reviews is None:
        errors["reviews_per_day"] = reviews_error
    if not zones.known(zone):
        errors["time_zone"] = _unknown_zone(zone)
    if errors or new is None or reviews is None:
        raise InvalidInput.of(errors)
    user = get_user(session, actor.id)
    user.new_per_day, user.reviews_per_day, user.time_zone = new, reviews, zone


def _unknown_zone(zone: str) -> str:
    shown = f"“{zone[:64]}”" if zone else "An empty name"
    return f"{shown} is not a time zone we know: choose one from the list, such as Europe/Paris."


def adopt_time_zone(session: Session, user_id: int, zone: str) -> None:
    """Take the zone a learner's browser reports, unless they have one or it is unknown."""
    if zones.known(zone):
        session.execute(
            update(User).where(User.id == user_id, User.time_zone.is_(None)).values(time_zone=zone)
        )
