"""Refuse, before any route runs, what no page or API call accepts.

- Control characters (C0, except tab, line feed and carriage return) in the address or in a
  form: PostgreSQL cannot store NUL, and no name, title or answer needs them. An address
  holding them points to nothing (404); a form gets 422.
- Headers over 64 KB: 431. The server has read them by then (uvicorn's parser has no
  limit); this keeps them from going further, and a proxy in front caps what is read.
- Bodies over the limit: 413 from `Content-Length` before anything is read, or as soon as a
  chunked body passes the limit. Only forms are read here (to look for control characters);
  other bodies stream through to the route, so an upload is read only after its sender is
  known. Uploads (multipart) may be as large as
  STUDYHALL_MAX_UPLOAD_BYTES allows, in base64 (an import carried from its preview); every
  other body 1 MB.

Each of these answers closes the connection (`Connection: close`): the server then stops
reading, where it would otherwise read the rest of the body, however large its sender says
it is, to keep the connection open for another request.
"""

import re
from typing import Annotated
from urllib.parse import unquote_plus, unquote_to_bytes

from pydantic import AfterValidator
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

API_BODY_BYTES = 1_000_000
HEADER_BYTES = 64_000  # the request line's address and all headers together
MULTIPART_OVERHEAD = 64_000  # boundaries and part headers around an uploaded file
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
CLOSE = {"connection": "close"}  # what is left of the request is not read
_BAD_INPUT = (
    "Some of that input holds control characters (such as NUL), which nothing here accepts."
)


def _address_has_controls(path: bytes, query: bytes) -> bool:
    """Tell whether the path or query string holds a control character, raw or %-encoded."""
    for part in (path, query):
        if part and (b"%" in part or _CONTROL_BYTES.search(part)):
            if _CONTROL_BYTES.search(unquote_to_bytes(part)):
                return True
    return False


def _header_bytes(scope: Scope) -> int:
    size = len(scope.get("raw_path") or b"") + len(scope.get("query_string", b""))
    return size + sum(len(name) + len(value) for name, value in scope["headers"])


def has_control_characters(text: str) -> bool:
    """Tell whether text holds a control character no input may carry."""
    return _CONTROL.search(text) is not None


def no_control_characters(text: str) -> str:
    """Validate a form field: forms sent as multipart are not looked at before the route."""
    if has_control_characters(text):
        raise ValueError(_BAD_INPUT)
    return text


# A form field's text: multipart forms reach the route unread, so the field checks itself.
FieldText = Annotated[str, AfterValidator(no_control_characters)]


def without_control_characters(text: str) -> str:
    """Drop control characters (and line ends) from a name the sender chose, e.g. a file's."""
    return re.sub(r"[\x00-\x1f\x7f]", "", text)


class InputGuard:
    def __init__(self, app: ASGIApp, max_upload_bytes: int) -> None:
        self.app = app
        self.max_upload_bytes = max_upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _header_bytes(scope) > HEADER_BYTES:
            message = f"The request's headers are too large: at most {HEADER_BYTES:,} bytes."
            await _refuse(scope, receive, send, 431, message)
            return
        if _address_has_controls(scope.get("raw_path") or b"", scope.get("query_string", b"")):
            await _refuse(scope, receive, send, 404, "We could not find that page.")
            return
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        content_type = headers.get("content-type", "")
        limit = self._limit(content_type)
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _refuse(scope, receive, send, 413, _too_large(limit))
            return
        if not content_type.startswith("application/x-www-form-urlencoded"):
            # read by the route, if at all (an upload only once its sender is known)
            await self.app(scope, _limited(receive, limit), send)
            return
        body = await _read(receive, limit)
        if body is None:
            await _refuse(scope, receive, send, 413, _too_large(limit))
            return
        if has_control_characters(unquote_plus(body.decode("latin-1"))):
            await _refuse(scope, receive, send, 422, _BAD_INPUT)
            return
        await self.app(scope, _replay(body, receive), send)

    def _limit(self, content_type: str) -> int:
        if content_type.startswith("multipart/form-data"):
            # an import preview sends the document back in base64: 4 bytes for each 3
            return (self.max_upload_bytes + 2) // 3 * 4 + MULTIPART_OVERHEAD
        return API_BODY_BYTES


async def _read(receive: Receive, limit: int) -> bytes | None:
    """Read the whole body, or None as soon as it passes limit."""
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def _limited(receive: Receive, limit: int) -> Receive:
    """Pass the body on as it is read; past limit, answer 413 (the error handlers send it)."""
    size = 0

    async def limited() -> Message:
        nonlocal size
        message = await receive()
        if message["type"] == "http.request":
            size += len(message.get("body", b""))
            if size > limit:
                raise HTTPException(413, _too_large(limit), headers=CLOSE)
        return message

    return limited


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()  # e.g. a disconnect while the app streams its answer
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


def _too_large(limit: int) -> str:
    return f"That is too large: at most {limit:,} bytes are accepted here."


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, message: str) -> None:
    from app.web.errors import error_response

    response = await error_response(Request(scope), status, message)
    response.headers.update(CLOSE)
    await response(scope, receive, send)
