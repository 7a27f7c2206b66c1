"""Jinja2 templates, and rendering a whole page or one named block of it (for htmx)."""

from functools import lru_cache
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2.runtime import Macro
from starlette.routing import Router

from app import __version__
from app.config import PROJECT_ROOT
from app.web import zones
from app.web.static import static_url

templates = Jinja2Templates(directory=PROJECT_ROOT / "templates")


_router: list[Router] = []  # the application's, set by `bind_routes`


def bind_routes(router: Router) -> None:
    """Give url_for the route table (every app the factory builds has the same routes)."""
    _router[:] = [router]
    _path.cache_clear()
    vars(paths).clear()


def url_for(name: str, /, **params: Any) -> str:
    """Return the path (not the absolute URL) of a named route, so pages work behind any host.

    It needs no request, so macros import without context and Jinja caches them; paths are
    remembered, since the router tries each route in turn and a page asks for about twenty.
    Static files get their content-hashed name, which browsers may cache for good.
    """
    if name == "static":
        return static_url(params["path"])
    return _path(name, tuple(sorted(params.items())))


@lru_cache(maxsize=50_000)
def _path(name: str, params: tuple[tuple[str, Any], ...]) -> str:
    return str(_router[0].url_path_for(name, **dict(params)))


class _Paths:
    """The path of each route that takes no parameters, as an attribute: `paths.home`.

    A page names a dozen of them (the header's links); an attribute costs a template a
    fraction of a call. Each is asked of `url_for` once, then kept as an attribute.
    """

    def __getattr__(self, name: str) -> str:
        if name.startswith("__"):
            raise AttributeError(name)
        path = url_for(name)
        setattr(self, name, path)
        return path


class _Assets(dict[str, str]):
    """The URL of each static file, by its name: `assets['app.css']` (see `static_url`)."""

    def __missing__(self, path: str) -> str:
        url = self[path] = static_url(path)
        return url


paths, assets = _Paths(), _Assets()
templates.env.globals["url_for"] = url_for
templates.env.globals["paths"] = paths
templates.env.globals["assets"] = assets
templates.env.globals["app_name"] = "Studyhall"
# a moment in a learner's zone: `moment | local(zone)`, the zone's name as `render` gives it
templates.env.filters["local"] = lambda moment, name: moment.astimezone(zones.zone(name))
templates.env.trim_blocks = True
templates.env.lstrip_blocks = True
# Templates change only with a deploy, which restarts the process: no stat() per render.
templates.env.auto_reload = False

# The shared components (components/macros.html: breadcrumbs, pagers, fields, ...) are there
# for every template, and for every block rendered on its own (htmx), without an import:
# an import costs more than most of what a page renders, on every render.
_components = templates.env.get_template("components/macros.html").module
templates.env.globals.update(
    (name, value) for name, value in vars(_components).items() if isinstance(value, Macro)
)


# Messages shown after a redirect: the URL names one of these, so no state is kept anywhere
# and nobody can make a page show text of their choosing.
FLASH = {
    "signed-up": "Welcome! Your account is ready and you are logged in.",
    "logged-in": "You are logged in.",
    "logged-out": "You are logged out.",
    "password-changed": (
        "Your password was changed. Other devices were logged out and your API tokens were revoked."
    ),
    "account-deleted": "Your account and everything in it were deleted.",
    "token-revoked": "The token was revoked; scripts using it can no longer sign in.",
    "role-changed": "The role was changed.",
    "study-day-saved": "Your study day was saved.",
    "reported": "Thank you: your report was sent to the authors.",
    "report-resolved": "The report was resolved.",
    "report-corrected": (
        "The question was saved as a new revision and the report resolved; the person who "
        "reported it will see a notice."
    ),
    "notice-dismissed": "The notice was dismissed.",
    "erratum-shown": "The report is now shown on its content as an erratum.",
    "erratum-hidden": "The erratum is no longer shown on its content.",
    "link-confirmed": "The link was confirmed: it stays whatever the similarity scores say.",
    "link-rejected": "The link was rejected: it will not be suggested again.",
    "question-saved": "The question was saved as a new revision.",
    "question-key-changed": (
        "The question was saved as a new revision, with different right answers: below is "
        "what judging its learners' answers again would change."
    ),
    "report-corrected-key-changed": (
        "The question was saved with different right answers, the report resolved and its "
        "reporter told: below is what judging the answers again would change."
    ),
    "regraded": "The regrade is done: it heads the list of this question's regrades below.",
    "regraded-nothing": "The regrade is done: nothing needed to change.",
    "question-added": "The question was added to its set as revision 1.",
    "question-retired": "The question was retired: it left practice, its set's list and new exams.",
    "question-returned": "The question is back in practice, its set's list and new exams.",
    "question-unchanged": "Nothing had changed, so no revision was kept.",
    "revision-restored": "The revision was restored as a new revision.",
    "deck-empty": (
        "You have no missed or flagged questions yet, so there is no deck to download: "
        "practise or take an exam, then come back."
    ),
    "note-saved": "The note was saved as a new revision; every section kept its anchor.",
    "note-unchanged": "Nothing had changed, so no revision was kept.",
}


def is_htmx(request: Request) -> bool:
    """Tell whether htmx sent the request (and wants a fragment back)."""
    return request.headers.get("hx-request") == "true"


def render(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    status_code: int = 200,
    block: str | None = None,
) -> HTMLResponse:
    """Render a page template, or only one of its blocks when block is given."""
    viewer = getattr(request.state, "viewer", None)
    context = {
        "viewer": viewer,
        "viewer_known": hasattr(request.state, "viewer"),
        "zone": viewer.time_zone if viewer is not None else zones.DEFAULT,
        "flash": FLASH.get(request.query_params.get("done", "")),
        **context,
    }
    if block is None:
        return templates.TemplateResponse(request, name, context, status_code=status_code)
    template = templates.get_template(name)
    ctx = template.new_context({"request": request, **context})
    html = "".join(template.blocks[block](ctx))
    return HTMLResponse(html, status_code=status_code)


GUEST_CACHE = "private, no-cache"  # a guest's browser keeps the page and asks if it changed


def render_page(
    request: Request, name: str, context: dict[str, Any], *, version: int | None
) -> HTMLResponse:
    """Render a page made from the content; a guest's browser keeps it and asks again.

    A guest's page depends only on the release, the address and `version`, the content
    version its read models were loaded at (None when unknown: the cache is off). It carries
    that as its ETag, and a visit that sends the same tag back gets 304 without a render.
    A logged-in viewer's page shows their own header and standing: it is rendered every time.
    """
    tag = _guest_tag(request, version)
    if tag is not None and tag in _tags(request.headers.get("if-none-match", "")):
        return HTMLResponse(None, 304, headers={"ETag": tag, "Cache-Control": GUEST_CACHE})
    response = render(request, name, context)
    if tag is not None:
        response.headers["ETag"] = tag
        response.headers["Cache-Control"] = GUEST_CACHE
    return response


def _guest_tag(request: Request, version: int | None) -> str | None:
    guest = getattr(request.state, "viewer", False) is None  # False: nobody asked who it is
    if version is None or not guest or "done" in request.query_params:
        return None
    return f'W/"{__version__}-{version}"'


def _tags(header: str) -> set[str]:
    return {tag.strip() for tag in header.split(",")}
