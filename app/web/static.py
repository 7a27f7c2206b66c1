"""Static files under content-hashed names, so browsers may keep them for a year.

Pages link to `app.3f2a91c0de.css` rather than `app.css`; a changed file gets a new name, so
the old one can be cached as immutable. A digest is computed once per file and process: a
deploy restarts the process, and a file edited while the server runs needs a restart too.
"""

import hashlib
import os
import re
import stat
from functools import cache
from pathlib import PurePosixPath

import anyio.to_thread
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from app.config import PROJECT_ROOT

STATIC_DIR = PROJECT_ROOT / "static"
STATIC_PREFIX = "/static"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
_DIGEST_LENGTH = 10
_HASHED_NAME = re.compile(
    rf"(?P<stem>.+)\.(?P<digest>[0-9a-f]{{{_DIGEST_LENGTH}}})(?P<suffix>\.\w+)"
)


@cache
def _digest(full_path: str) -> str:
    with open(full_path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()[:_DIGEST_LENGTH]


@cache
def hashed_name(path: str) -> str:
    """Return the content-hashed name of a file under static/ ("app.css" -> "app.<hash>.css").

    A missing file keeps its plain name (and gets the usual 404), rather than breaking the page.
    """
    name = PurePosixPath(path)
    if not name.suffix:
        return path
    try:
        digest = _digest(os.path.realpath(STATIC_DIR / name))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return path
    return str(name.with_name(f"{name.stem}.{digest}{name.suffix}"))


def static_url(path: str) -> str:
    """Return the URL path of a static file under its content-hashed name."""
    return f"{STATIC_PREFIX}/{hashed_name(path)}"


class HashedStaticFiles(StaticFiles):
    """Serve `name.<hash>.ext` as `name.ext` for a year when the hash is current.

    Plain names still work but must be revalidated (ETag); an outdated hash is a 404, so a
    cache never keeps a file under a name that promises other bytes.
    """

    async def get_response(self, path: str, scope: Scope) -> Response:
        match = _HASHED_NAME.fullmatch(path)
        if match:
            plain = match["stem"] + match["suffix"]
            if await anyio.to_thread.run_sync(self._current_digest, plain) == match["digest"]:
                response = await super().get_response(plain, scope)
                response.headers["Cache-Control"] = IMMUTABLE
                return response
        response = await super().get_response(path, scope)
        response.headers["Cache-Control"] = REVALIDATE
        return response

    def _current_digest(self, path: str) -> str | None:
        full_path, stat_result = self.lookup_path(path)
        if stat_result is None or not stat.S_ISREG(stat_result.st_mode):
            return None
        return _digest(full_path)


def mount_static(app: Starlette) -> None:
    """Serve static/ at /static, under both hashed and plain names."""
    app.mount(STATIC_PREFIX, HashedStaticFiles(directory=STATIC_DIR), name="static")
