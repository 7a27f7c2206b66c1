"""Prometheus metrics: the objects the application updates, the request timer and /metrics.

With several workers (`studyhall serve --workers N`) each process writes its values to files
in PROMETHEUS_MULTIPROC_DIR and /metrics adds them up; with one, the process's own registry
answers. Gauges read from the database are counted once, by the worker that is scraped.
"""

import functools
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio.to_thread
from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy.orm import Session
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.logs import request_started

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"
UNMATCHED = "unmatched"  # the route label of every address no route answers
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
log = logging.getLogger("studyhall")

REQUEST_DURATION = Histogram(
    "studyhall_http_request_duration_seconds",
    "Time to answer a request, by method, route template and status code.",
    ["method", "route", "status"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
ANSWERS_SAVED = Counter(
    "studyhall_answers_saved", "Answers committed, by where they were given.", ["source"]
)
IMPORTS = Counter(
    "studyhall_imports", "Documents imported or refused (web and command line).", ["outcome"]
)
CACHE_REQUESTS = Counter(
    "studyhall_content_cache_requests",
    "Look-ups in a worker's content cache, by cache and result.",
    ["cache", "result"],
)
DATABASE_ERRORS = Counter(
    "studyhall_database_errors",
    "Database errors answered with an error page, by exception class.",
    ["kind"],
)
LOGIN_ALARMS = Counter(
    "studyhall_login_alarms",
    "Accounts whose failed log-ins from several addresses reached the alarm (see the log).",
)
OPEN_ATTEMPTS = "studyhall_open_attempts"
# Children made up front: each series is exported from 0, so rates start at the first scrape.
PRACTICE_ANSWERS = ANSWERS_SAVED.labels(source="practice")
EXAM_ANSWERS = ANSWERS_SAVED.labels(source="exam")
IMPORTED = IMPORTS.labels(outcome="imported")
IMPORT_REFUSED = IMPORTS.labels(outcome="refused")


class RequestMetrics:
    """Time every request into the duration histogram, labelled by its route's template.

    It sits inside HeadAsGet, whose copy of the request is the one the router marks with its
    route: a HEAD request counts as the GET it is answered as.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_started.set(started)
        root_path = scope.get("root_path", "")
        status = 500  # an error that escapes is answered with a 500 page further out

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            method = scope["method"] if scope["method"] in METHODS else "other"
            labels = (method, route_template(scope, root_path), str(status))
            _duration(labels).observe(time.perf_counter() - started)


@functools.cache
def _duration(labels: tuple[str, str, str]) -> Any:
    """The histogram's series for these labels (finding one anew costs more than observing)."""
    return REQUEST_DURATION.labels(*labels)


def route_template(scope: Scope, root_path: str = "") -> str:
    """The path pattern of the route that answered (`/questions/{question_id}`), never the path.

    A mount (the static files) counts as its prefix and `/{path}`; anything else unrouted as
    `unmatched`, so the number of label values stays bounded whatever clients ask for.
    """
    template = getattr(scope.get("route"), "path_format", None)
    if isinstance(template, str):
        return template
    mounted = scope.get("root_path", "")
    if mounted != root_path and mounted.startswith(root_path):
        return mounted[len(root_path) :] + "/{path}"
    return UNMATCHED


class CountedGauge:
    """A gauge whose value was counted for this scrape (in the database, by the worker that
    answers it)."""

    def __init__(self, name: str, documentation: str, value: int) -> None:
        self.name = name
        self.documentation = documentation
        self.value = value

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(self.name, self.documentation, value=self.value)


def scrape_registry(collectors: Iterable[Collector] = ()) -> CollectorRegistry:
    """Gather what /metrics reports: every worker's values when they share a directory."""
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROC_DIR):
        MultiProcessCollector(registry)
    else:
        registry.register(REGISTRY)
    for collector in collectors:
        registry.register(collector)
    return registry


def exposition(collectors: Iterable[Collector] = ()) -> bytes:
    """Render the metrics in Prometheus' text format."""
    return generate_latest(scrape_registry(collectors))


def install_metrics(
    app: FastAPI,
    mode: str,
    *,
    admin_only: Callable[..., Any],
    open_attempts: Callable[[Session], int],
) -> None:
    """Serve /metrics to admins (`admin_only` decides), to anyone, or not at all ("off")."""
    if mode == "off":
        return
    guard = [Depends(admin_only)] if mode == "admin" else []

    # The route finds the database through the request: FastAPI keeps route functions in a
    # process-wide cache, and one holding an app's database would keep its connections open.
    @app.get("/metrics", include_in_schema=False, dependencies=guard)
    async def metrics(request: Request) -> Response:
        """Report the server's metrics in Prometheus' text format."""
        gauges = []
        try:
            count = await request.app.state.db.read(open_attempts)
        except Exception as exc:  # the other metrics are still worth answering with
            log.warning("metrics: %s could not be counted: %s", OPEN_ATTEMPTS, exc)
        else:
            gauges.append(CountedGauge(OPEN_ATTEMPTS, "Exam attempts still open.", count))
        body = await anyio.to_thread.run_sync(exposition, gauges)  # reads the workers' files
        return Response(body, media_type=CONTENT_TYPE_PLAIN_0_0_4)


@contextmanager
def shared_metrics(workers: int) -> Iterator[None]:
    """Give several workers a fresh directory to add their metrics up in; remove it after.

    Set before the workers start, so each one's metrics write there from the first. An
    operator's own PROMETHEUS_MULTIPROC_DIR is used as it is, and left alone.
    """
    if workers < 2 or os.environ.get(MULTIPROC_DIR):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="studyhall-metrics-") as path:
        os.environ[MULTIPROC_DIR] = path
        try:
            yield
        finally:
            os.environ.pop(MULTIPROC_DIR, None)
