"""The database: the ORM's base and types (`base`), the engines (`engines`), and the runner
every request goes through (`runner`)."""

from app.db.base import Base, UTCDateTime, utcnow
from app.db.engines import make_engine
from app.db.runner import Database

__all__ = ["Base", "Database", "UTCDateTime", "make_engine", "utcnow"]
