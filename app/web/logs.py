"""The server's log: text lines or JSON objects, each naming the request it was written for.

`log_config` builds the logging configuration that `studyhall serve` hands to uvicorn, so
uvicorn's loggers (`uvicorn.error`, `uvicorn.access`) and Studyhall's own write alike. The
request id comes from the `X-Request-ID` middleware through a context variable, which the
log filter reads while the request is being handled.
"""

import json
import logging
import time
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from asgi_correlation_id import CorrelationIdFilter
from uvicorn.logging import AccessFormatter, DefaultFormatter

REQUEST_ID_HEADER = "X-Request-ID"
# When the request being handled began (time.perf_counter), set by the metrics middleware.
request_started: ContextVar[float | None] = ContextVar("request_started", default=None)

TEXT_FORMAT = "%(levelprefix)s [%(correlation_id)s] %(message)s"
TEXT_ACCESS_FORMAT = (
    '%(levelprefix)s [%(correlation_id)s] %(client_addr)s - "%(request_line)s" %(status_code)s'
)
# uvicorn's access lines are logged with these arguments (uvicorn/protocols/http/*_impl.py).
ACCESS_ARGUMENTS = ("client", "method", "path", "http_version", "status")


class RequestDuration(logging.Filter):
    """Give a record the milliseconds since its request began (None outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        started = request_started.get()
        elapsed = None if started is None else (time.perf_counter() - started) * 1000
        record.duration_ms = None if elapsed is None else round(elapsed, 2)
        return True


class JsonFormatter(logging.Formatter):
    """Write a record as one JSON object on one line; a traceback is one of its fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _utc(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage().rstrip(),
            "request_id": getattr(record, "correlation_id", None),
        }
        entry.update(_access_fields(record))
        if record.exc_info and record.exc_info[0] is not None:
            entry["traceback"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        # ASCII only: a line separator inside a message must not split the line.
        return json.dumps(entry, default=str)


def _utc(created: float) -> str:
    """ISO 8601 in UTC, to the millisecond: 2025-03-01T09:30:00.123Z."""
    moment = datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
    return moment.replace("+00:00", "Z")


def _access_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The request's method, path, status, client and duration, on a uvicorn access line."""
    args = record.args
    if record.name != "uvicorn.access" or not isinstance(args, tuple) or len(args) != 5:
        return {}
    fields = dict(zip(ACCESS_ARGUMENTS, args, strict=True))
    del fields["http_version"]
    return {**fields, "duration_ms": getattr(record, "duration_ms", None)}


def log_config(log_format: str, level: str) -> dict[str, Any]:
    """Build the logging configuration of the server: uvicorn's loggers and Studyhall's."""
    json_lines = log_format == "json"
    formatters: dict[str, dict[str, Any]] = {
        "default": {"()": DefaultFormatter, "fmt": TEXT_FORMAT, "use_colors": None},
        "access": {"()": AccessFormatter, "fmt": TEXT_ACCESS_FORMAT, "use_colors": None},
    }
    if json_lines:
        formatters = {name: {"()": JsonFormatter} for name in formatters}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "request_id": {"()": CorrelationIdFilter, "default_value": None if json_lines else "-"},
            "duration": {"()": RequestDuration},
        },
        "formatters": formatters,
        "handlers": {
            "default": _handler("default", ["request_id"], "ext://sys.stderr"),
            "access": _handler("access", ["request_id", "duration"], "ext://sys.stdout"),
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
            "studyhall": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            # A client's malformed X-Request-ID is replaced; that is no news for the operator.
            "asgi_correlation_id": {"level": "ERROR"},
        },
        "root": {"handlers": ["default"], "level": "WARNING"},
    }


def _handler(formatter: str, filters: list[str], stream: str) -> dict[str, Any]:
    return {
        "class": "logging.StreamHandler",
        "formatter": formatter,
        "filters": filters,
        "stream": stream,
    }
