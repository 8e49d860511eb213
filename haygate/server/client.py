"""The `haygate` command's way to a running server: its local Unix socket, or `--server URL`.

While a server holds a data dir, the CLI never opens its shards: it sends what it would have done to the
server, which does it with the same code (the collection's ingest, the tool's pipeline). The client is the
standard library's `http.client`: a command a server answers should cost a round trip, not the import of an
HTTP stack (httpx and its HTTP/2 parts take longer to import than the call takes).
"""

import http.client
import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from haygate.errors import BY_CODE, InternalError, UnavailableError
from haygate.server.endpoint import read_endpoint

TIMEOUT = 600.0  # a write waits for embedding; a starting server for its models
CONNECT_TIMEOUT = 10.0
# What a kept-alive connection the server closed while it sat idle raises on its next request (the request never
# reached the server's application, so sending it again on a new connection does it once).
STALE = (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected)


class UnixConnection(http.client.HTTPConnection):
    """HTTP over the local server's Unix socket (only its owner can open it)."""

    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("haygate.local", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(CONNECT_TIMEOUT)
        self.sock.connect(self.socket_path)
        self.sock.settimeout(self.timeout)


class ServerClient:
    def __init__(self, url: str, token: str | None = None, socket: str | None = None) -> None:
        self.where = f"unix:{socket}" if socket else url
        self._socket = socket
        self._url = urlsplit(url)
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._connection: http.client.HTTPConnection | None = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            if self._socket:
                self._connection = UnixConnection(self._socket, TIMEOUT)
            else:
                kind = http.client.HTTPSConnection if self._url.scheme == "https" else http.client.HTTPConnection
                self._connection = kind(self._url.hostname or "localhost", self._url.port, timeout=TIMEOUT)
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _request(self, method: str, path: str, body: Any = None, query: dict[str, str] | None = None) -> Any:
        headers = dict(self._headers)
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        target = self._url.path.rstrip("/") + path + (f"?{urlencode(query)}" if query else "")
        for attempt in (1, 2):
            reused = self._connection is not None
            try:
                connection = self._connect()
                connection.request(method, target, body=payload, headers=headers)
                response = connection.getresponse()
                raw = response.read()
                break
            except (OSError, http.client.HTTPException) as error:
                self.close()
                if reused and attempt == 1 and isinstance(error, STALE):
                    continue  # the server closed a kept-alive connection while it sat idle: once more, afresh
                msg = f"the haygate server at {self.where} does not answer: {error}"
                raise UnavailableError(msg, {"server": self.where}) from error
        try:
            answer = json.loads(raw)
        except ValueError:
            answer = None
        if 200 <= response.status < 300:
            return answer
        problem = answer.get("error") if isinstance(answer, dict) else None
        if not isinstance(problem, dict):
            msg = f"the haygate server at {self.where} answered {response.status}"
            raise InternalError(msg)
        error_type = BY_CODE.get(str(problem.get("code")), InternalError)
        raise error_type(str(problem.get("message")), problem.get("details") or {})

    def operate(self, name: str, request: dict[str, Any]) -> dict[str, Any]:
        """One of the gateway's operations (`haygate.gateway.operations`), run by the server: its reply, as JSON."""
        return dict(self._request("POST", f"/api/operations/{name}", body=request))


def local_server(data_dir: Path) -> ServerClient | None:
    """A client for the server that holds `data_dir` on this machine, if one runs."""
    endpoint = read_endpoint(data_dir)
    if endpoint is None:
        return None
    return ServerClient("http://haygate.local", socket=endpoint.socket)
