"""The command line's client sends a request again, once, on a new connection when the server closed the kept-alive
one while it sat idle (uvicorn does after 5 s): a command that pauses between two requests (an evaluation checking
its metrics) is not told the server "does not answer"."""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from haygate.errors import UnavailableError
from haygate.server.client import ServerClient


class ClosesAfterEachAnswer(BaseHTTPRequestHandler):
    """Answers as HTTP/1.1 (the connection looks kept alive), then closes it, as an idle timeout does."""

    protocol_version = "HTTP/1.1"
    served = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).served += 1
        body = json.dumps({"status": "ok", "served": type(self).served}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ClosesAfterEachAnswer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_connection_the_server_closed_is_opened_again_once(server: str) -> None:
    client = ServerClient(server)
    try:
        assert client.operate("health", {})["served"] == 1
        assert client.operate("health", {})["served"] == 2  # on the closed connection first, then afresh: served once
    finally:
        client.close()


def test_a_server_that_is_gone_is_still_unavailable() -> None:
    client = ServerClient("http://127.0.0.1:9")  # nothing listens on the discard port
    with pytest.raises(UnavailableError, match="does not answer"):
        client.operate("health", {})
