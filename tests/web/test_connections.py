"""What a connection goes through, served by uvicorn for real: a server error and a refused
body close it honestly (`Connection: close`), and a body over the limit is not read on."""

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI

from app.web.limits import API_BODY_BYTES
from tests.servers import free_port

CHUNK = b"x" * 65_536
# What a refused sender may still push into the connection: the kernel's socket buffers
# (a few MB on loopback), never the rest of a body of gigabytes.
READ_ON_AT_MOST = 16_000_000
STARTUP_TIMEOUT = 30.0


@pytest.fixture
def served(app: FastAPI, seeded) -> Iterator[tuple[str, int]]:  # type: ignore[no-untyped-def]
    """The app served by uvicorn in this process (so a test may add a failing route)."""

    @app.get("/test-failure", include_in_schema=False)
    async def failure() -> None:
        raise RuntimeError("a bug")

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, loop="asyncio", log_level="critical")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield "127.0.0.1", port
    server.should_exit = True
    thread.join(timeout=STARTUP_TIMEOUT)


def _read_all(sock: socket.socket) -> bytes:
    """Read until the server closes the connection."""
    answer = b""
    while True:
        try:
            chunk = sock.recv(65_536)
        except ConnectionResetError:
            return answer
        if not chunk:
            return answer
        answer += chunk


def _head(answer: bytes) -> bytes:
    return answer.split(b"\r\n\r\n", 1)[0].lower()


def test_a_server_error_closes_the_connection_with_its_answer(served):
    """A pipelined request behind a failing one is not left waiting for an answer that
    never comes: the 500 says the connection closes, and it does."""
    with socket.create_connection(served, timeout=10) as sock:
        sock.sendall(
            b"GET /test-failure HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        answer = _read_all(sock)
    head = _head(answer)
    assert head.startswith(b"http/1.1 500") and b"\r\nconnection: close" in head
    assert answer.count(b"HTTP/1.1 ") == 1  # the second request was not answered: retry it


def _refused_then_count(
    sock: socket.socket, request: bytes, first_chunk: bytes
) -> tuple[bytes, int]:
    """Send a request's head and a first chunk, read the answer, then keep sending the body:
    return the answer and how many more bytes the server took before it closed."""
    sock.sendall(request + first_chunk)
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(65_536)
        assert chunk, "the server closed without an answer"
        answer += chunk
    sent = 0
    try:
        while sent < READ_ON_AT_MOST:
            sock.sendall(CHUNK if b"chunked" not in request else b"10000\r\n" + CHUNK + b"\r\n")
            sent += len(CHUNK)
    except OSError:  # reset or broken pipe: the server stopped reading
        pass
    return answer, sent


@pytest.mark.parametrize("chunked", [False, True], ids=["declared-length", "chunked"])
def test_a_body_over_the_limit_is_answered_and_not_read_on(served, chunked):
    if chunked:
        length = b"Transfer-Encoding: chunked\r\n"
        first = (b"10000\r\n" + CHUNK + b"\r\n") * (API_BODY_BYTES // len(CHUNK) + 2)
    else:
        length = b"Content-Length: 40000000000\r\n"
        first = CHUNK
    request = (
        b"POST /api/v1/questions/1/check HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\n" + length + b"\r\n"
    )
    with socket.create_connection(served, timeout=10) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65_536)
        answer, sent = _refused_then_count(sock, request, first)
    head = _head(answer)
    assert head.startswith(b"http/1.1 413") and b"\r\nconnection: close" in head
    assert sent < READ_ON_AT_MOST
