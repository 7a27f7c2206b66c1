"""Accounts: users, their server-side sessions, personal API tokens, and rate-limit events."""

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, utcnow

ROLES = ("learner", "author", "admin")
# What an API token may do, each scope all that the ones before it may: read (GET), practise
# (also a learner's answers and exams), author, admin. Never more than the owner's role.
SCOPES = ("read", "practise", "author", "admin")
ROLE_SCOPES = {"learner": "practise", "author": "author", "admin": "admin"}
SCOPE_ROLES = {"read": "learner", "practise": "learner", "author": "author", "admin": "admin"}


class User(Base):
    __tablename__ = "user_account"
    __table_args__ = (CheckConstraint("role IN ('learner', 'author', 'admin')", name="role"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(10), default="learner")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # the learner's study day: how many new questions and reviews the queue serves a day
    # (Anki's defaults), and the IANA time zone their days and times are in: None until
    # their browser or the account page names one (UTC meanwhile)
    new_per_day: Mapped[int] = mapped_column(Integer, default=20, server_default="20")
    reviews_per_day: Mapped[int] = mapped_column(Integer, default=200, server_default="200")
    time_zone: Mapped[str | None] = mapped_column(String(64))


class UserSession(Base):
    __tablename__ = "user_session"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ApiToken(Base):
    __tablename__ = "api_token"
    __table_args__ = (
        CheckConstraint("scope IN ('read', 'practise', 'author', 'admin')", name="scope"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user_account.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(60))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(12))
    scope: Mapped[str] = mapped_column(String(10))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class RateLimitEvent(Base):
    """One counted attempt (e.g. a failed log-in) under a key such as 'login-account:alice'."""

    __tablename__ = "rate_limit_event"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(200), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)


class RoleChange(Base):
    """Who changed whose role, from what to what, and when: the admins' audit log reads it.

    `actor_id` is None when the server's command line changed it (or the admin's account is
    gone); `user_id` is None once the account whose role changed is deleted.
    """

    __tablename__ = "role_change"

    id: Mapped[int] = mapped_column(primary_key=True)
    actor_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True
    )
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("user_account.id", ondelete="SET NULL"), index=True
    )
    old_role: Mapped[str] = mapped_column(String(10))
    new_role: Mapped[str] = mapped_column(String(10))
    changed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
