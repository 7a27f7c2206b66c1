"""Jinja2 templates, and rendering a whole page or one named block of it (for htmx)."""

from collections import OrderedDict
from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from fastapi.templating import Jinja2Templates
from jinja2.runtime import Macro
from starlette.routing import PARAM_FORMAT_REGEX, Mount, NoMatchFound, Route, Router

from app.config import PROJECT_ROOT
from app.web.static import static_url

templates = Jinja2Templates(directory=PROJECT_ROOT / "templates")


_paths: dict[tuple[Any, ...], str] = {}
_routers: list[Router] = []
_by_name: dict[str, Any] = {}  # the first route of each name, asked directly
_formats: dict[str, "_PathFormat"] = {}  # the same routes' paths, filled in without the router
_PATHS_LIMIT = 50_000


class _PathFormat:
    """A route's path with its parameters filled in as the route itself would fill them.

    Asking the route costs several times as much (it checks the name and compares the
    parameters as sets): a question page names a few question ids of its own each time.
    """

    def __init__(self, path_format: str, convertors: Mapping[str, Any]) -> None:
        self.parts = PARAM_FORMAT_REGEX.split(path_format)
        self.convertors = dict(convertors)

    def fill(self, params: dict[str, Any]) -> str | None:
        """The path for exactly these parameters, or None for any other set of them."""
        if len(params) != len(self.convertors) or not all(k in self.convertors for k in params):
            return None
        parts = self.parts[:]
        for i in range(1, len(parts), 2):
            parts[i] = self.convertors[parts[i]].to_string(params[parts[i]])
        return "".join(parts)


def bind_routes(router: Router) -> None:
    """Give url_for the route table (every app the factory builds has the same routes)."""
    _routers[:] = [router]
    _paths.clear()
    vars(paths).clear()
    _by_name.clear()
    _formats.clear()
    for route in _named_routes(router.routes):
        if route.name in _by_name:
            continue
        _by_name[route.name] = route
        own = route if isinstance(route, Route) else None
        if isinstance(getattr(route, "original_route", None), APIRoute):
            own = route  # FastAPI's view of an included route: it fills its own path in
        if own is not None:
            _formats[route.name] = _PathFormat(own.path_format, own.param_convertors)


def _named_routes(routes: Iterable[Any]) -> Iterator[Any]:
    """Every named route, in the router's order, included routers' routes in their place."""
    for route in routes:
        if hasattr(route, "effective_route_contexts"):  # FastAPI's included router
            yield from _named_routes(route.effective_route_contexts())
        elif isinstance(getattr(route, "name", None), str) and not isinstance(route, Mount):
            yield route


def url_for(name: str, /, **params: Any) -> str:
    """Return the path (not the absolute URL) of a named route, so pages work behind any host.

    It needs no request, so macros import without context and Jinja caches them; and paths
    are memoised, since the router tries each route in turn and a page asks for about twenty
    (a search page for twenty new ones: the route of a name is asked first).
    Static files get their content-hashed name, which browsers may cache for good.
    """
    if name == "static":
        return static_url(params["path"])
    key = (name, *sorted(params.items()))
    path = _paths.get(key)
    if path is None:
        if len(_paths) >= _PATHS_LIMIT:
            _paths.clear()
        path = _paths[key] = str(_path_for(name, params))
    return path


def _path_for(name: str, params: dict[str, Any]) -> Any:
    path_format = _formats.get(name)
    path = path_format.fill(params) if path_format is not None else None
    if path is not None:
        return path
    route = _by_name.get(name)
    if route is not None:
        try:
            return route.url_path_for(name, **params)
        except NoMatchFound:  # another route of that name takes these parameters
            pass
    return _routers[0].url_path_for(name, **params)


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
    "reported": "Thank you: your report was sent to the authors.",
    "report-resolved": "The report was resolved.",
    "erratum-shown": "The report is now shown on its content as an erratum.",
    "erratum-hidden": "The erratum is no longer shown on its content.",
    "link-confirmed": "The link was confirmed: it stays whatever the similarity scores say.",
    "link-rejected": "The link was rejected: it will not be suggested again.",
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
    context = {
        "viewer": getattr(request.state, "viewer", None),
        "viewer_known": hasattr(request.state, "viewer"),
        "flash": FLASH.get(request.query_params.get("done", "")),
        **context,
    }
    if block is None:
        return templates.TemplateResponse(request, name, context, status_code=status_code)
    template = templates.get_template(name)
    ctx = template.new_context({"request": request, **context})
    html = "".join(template.blocks[block](ctx))
    return HTMLResponse(html, status_code=status_code)


_pages: OrderedDict[Hashable, tuple[object, bytes]] = OrderedDict()
PAGES_LIMIT = 512


def render_page(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    source: object,
    key: Hashable,
    by_query: bool = False,
) -> HTMLResponse:
    """Render a whole page made from `source` (an immutable read model), reusing the result.

    The page is kept for its key, the address and who is asking (the header differs), for as
    long as the content cache hands out the same `source` object: a new object after a
    content change renders afresh. Pages with a query string are rendered every time, unless
    `by_query` says the query is part of what the page is (a search): then it is kept by its
    query too, and only a flash message makes it render afresh. Everything else a template
    shows must be in `key`.
    """
    if request.url.query and (not by_query or "done" in request.query_params):
        return render(request, name, context)
    viewer = getattr(request.state, "viewer", None)
    path = request.url.path if not by_query else f"{request.url.path}?{request.url.query}"
    full_key = (name, key, viewer, hasattr(request.state, "viewer"), path)
    kept = _pages.get(full_key)
    if kept is not None and kept[0] is source:
        _pages.move_to_end(full_key)
        return HTMLResponse(kept[1])
    response = render(request, name, context)
    _pages[full_key] = (source, bytes(response.body))
    while len(_pages) > PAGES_LIMIT:
        _pages.popitem(last=False)
    return response
