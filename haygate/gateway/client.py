"""The `haygate` command's way to a running server: its local Unix socket, or `--server URL`.

While a server holds a data dir, the CLI never opens its shards: it sends what it would have done to the
server, which does it with the same code (the collection's ingest, the tool's pipeline).
"""

from pathlib import Path
from typing import Any

import httpx

from haygate.errors import BY_CODE, InternalError, UnavailableError
from haygate.gateway.endpoint import read_endpoint

TIMEOUT = httpx.Timeout(600.0, connect=10.0)  # a write waits for embedding; a starting server for its models


class ServerClient:
    def __init__(self, url: str, token: str | None = None, socket: str | None = None) -> None:
        transport = httpx.HTTPTransport(uds=socket) if socket else None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.where = f"unix:{socket}" if socket else url
        self._http = httpx.Client(base_url=url, transport=transport, headers=headers, timeout=TIMEOUT)

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as error:
            msg = f"the haygate server at {self.where} does not answer: {error}"
            raise UnavailableError(msg, {"server": self.where}) from error
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.is_success:
            return body
        problem = (body or {}).get("error") if isinstance(body, dict) else None
        if not isinstance(problem, dict):
            msg = f"the haygate server at {self.where} answered {response.status_code}"
            raise InternalError(msg)
        error_type = BY_CODE.get(str(problem.get("code")), InternalError)
        raise error_type(str(problem.get("message")), problem.get("details") or {})

    def health(self, verbose: bool = False) -> dict[str, Any]:
        return dict(self._request("GET", "/health", params={"verbose": "1"} if verbose else None))

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        return dict(self._request("POST", f"/api/tools/{tool}", json=arguments))

    def upsert(self, collection: str, records: list[Any]) -> dict[str, Any]:
        return dict(self._request("PUT", f"/api/collections/{collection}/records", json=records))

    def delete(self, collection: str, ids: list[str]) -> dict[str, Any]:
        return dict(self._request("DELETE", f"/api/collections/{collection}/records", json={"ids": ids}))


def local_server(data_dir: Path) -> ServerClient | None:
    """A client for the server that holds `data_dir` on this machine, if one runs."""
    endpoint = read_endpoint(data_dir)
    if endpoint is None:
        return None
    return ServerClient("http://haygate.local", socket=endpoint.socket)
