"""Deployment checks behind `studyhall check` (like Django's `check --deploy`)."""

from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.config import Settings


def deployment_warnings(settings: Settings, session: Session) -> list[str]:
    """List what is unsafe or unready in this setup; empty when all is well."""
    warnings = []
    if not settings.secure_cookies:
        warnings.append(
            "Session cookies are not marked Secure. Serve over HTTPS and set "
            "STUDYHALL_SECURE_COOKIES=true."
        )
    if settings.signup_open:
        warnings.append(
            "Anyone who can reach the site can sign up. Set STUDYHALL_SIGNUP_OPEN=false "
            "for a private site."
        )
    if settings.log_level.lower() == "debug":
        warnings.append("Debug logging is on (STUDYHALL_LOG_LEVEL=debug); it is verbose.")
    warnings.extend(_database_warnings(settings.database_url, session))
    return warnings


def _database_warnings(url: str, session: Session) -> list[str]:
    try:
        admins = session.scalar(select(func.count(User.id)).where(User.role == "admin"))
    except Exception as exc:  # any failure here is the finding itself
        return [f"The database cannot be used ({type(exc).__name__}). Run `studyhall migrate`?"]
    warnings = []
    if not admins:
        warnings.append(
            "There is no admin account. Create one: studyhall users create NAME --role admin"
        )
    if make_url(url).get_backend_name() == "sqlite":
        warnings.append(
            "The database is SQLite: right for one server process; use PostgreSQL "
            "(STUDYHALL_DATABASE_URL=postgresql+psycopg://...) for several workers or hosts."
        )
    return warnings
