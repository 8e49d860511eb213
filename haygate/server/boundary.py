"""The HTTP server's trust boundary: the names it answers to, the pages that may call it, what a write carries.

A web page the user merely visits can reach a server on localhost in two ways. DNS rebinding: the page's own
host name is made to resolve to 127.0.0.1, and the browser, seeing one origin, sends the server the page's
`Host` and `Origin`. And "simple" cross-site requests: a form or `text/plain` POST, which a browser sends
without asking the server first. So every request on the public HTTP app (MCP, REST, the API page, health
and metrics alike) is checked here before any route sees it:

- `Host` must name this server: `localhost`, `127.0.0.1` or `[::1]` with any port, the address it is bound
  to, or a name in `HAYGATE_ALLOWED_HOSTS`;
- `Origin`, which browsers send and other clients do not, must be a loopback origin or one in
  `HAYGATE_ALLOWED_ORIGINS` (whose pages also get CORS headers; with none configured, CORS stays closed);
- a request that changes state (POST, PUT, PATCH, DELETE) carries a JSON body, JSONL for record writes, or
  none at all.

`*` in either setting turns that check off, and only that turns it off. The MCP transport specification asks
exactly this of local servers (validate `Origin`, bind to localhost); FastMCP's own guard is left off, so MCP
and REST share this one mechanism and its error envelope.
"""

import fnmatch
import ipaddress
import logging
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from haygate.errors import ForbiddenError, HaygateError, UnsupportedMediaTypeError, envelope

logger = logging.getLogger(__name__)

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
ANY = "*"
HOSTS_SETTING, ORIGINS_SETTING = "HAYGATE_ALLOWED_HOSTS", "HAYGATE_ALLOWED_ORIGINS"
CHANGES_STATE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON_TYPES = frozenset({"application/json"})
JSONL_TYPES = frozenset(
    {"application/jsonl", "application/x-ndjson", "application/x-jsonlines", "application/jsonlines"}
)
# Record files a write may carry as they are (the console's uploads). Neither is a type a browser sends across
# sites without asking first (CORS-safelisted are forms and text/plain), so no page can forge such a write.
RECORD_FILE_TYPES = frozenset({"text/csv", "text/markdown"})
RECORDS_ROUTE = "/api/collections/"  # ... /{collection}/records: JSON arrays, JSONL, CSV or Markdown
DEFAULT_PORTS = {"http": 80, "https": 443}
CORS_HEADERS = [
    "authorization",
    "content-type",
    "mcp-protocol-version",
    "mcp-session-id",
    "last-event-id",
    "x-request-id",
]
CORS_EXPOSED = ["mcp-session-id", "x-request-id", "retry-after"]


def split_host(value: str) -> tuple[str, int | None]:
    """`Host` header -> (lower-case name without brackets, port or None): `[::1]:8000` -> (`::1`, 8000)."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port = value.rpartition(":") if value.count(":") == 1 else (value, "", "")
    return name, int(port) if port.isdigit() else None


def is_loopback(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def normalised_origin(origin: str) -> str | None:
    """`scheme://host:port` with the scheme's default port filled in; None for what is no web origin
    (`null`, from sandboxed frames and files, or anything unparseable)."""
    try:
        parts = urlsplit(origin.strip().lower().rstrip("/"))
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}:{port or DEFAULT_PORTS[parts.scheme]}"


def _origin_pattern(pattern: str) -> str:
    """An allowed origin as written in the setting -> a pattern over normalised origins (a missing port is
    the scheme's default one; `:*` any port)."""
    if pattern == ANY:
        return ANY
    scheme, _, rest = pattern.strip().lower().rstrip("/").partition("://")
    if rest.endswith(":*") or rest.rpartition(":")[2].isdigit():
        return f"{scheme}://{rest}"
    return f"{scheme}://{rest}:{DEFAULT_PORTS.get(scheme, '*')}"


class TrustBoundary:
    """ASGI middleware: refuses (403, or 415 for a body that is not JSON) what does not pass, with the error
    envelope and a message that names the setting to change."""

    def __init__(
        self,
        app: ASGIApp,
        allowed_hosts: Sequence[str] = (),
        allowed_origins: Sequence[str] = (),
        bind_host: str | None = None,
    ) -> None:
        self.app = app
        self.any_host = ANY in allowed_hosts
        self.any_origin = ANY in allowed_origins
        self.host_patterns = [_host_pattern(h) for h in allowed_hosts if h.strip() and h != ANY]
        if bind_host and not _unspecified(bind_host):
            self.host_patterns.append(_host_pattern(bind_host))
        self.origin_patterns = [_origin_pattern(o) for o in allowed_origins if o.strip()]
        if self.any_host or self.any_origin:
            logger.warning(
                "the HTTP trust boundary is open: %s; any web page the user visits can call this server",
                ", ".join(
                    f"{s}=*" for s, on in ((HOSTS_SETTING, self.any_host), (ORIGINS_SETTING, self.any_origin)) if on
                ),
            )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                status, body = envelope(refusal)
                await JSONResponse(body, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope) -> HaygateError | None:
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not self.any_host and not self._host_allowed(host):
            msg = (
                f"Host '{host}' is not a name this server answers to (localhost, 127.0.0.1, [::1]): a page that "
                f"rebinds its own name to this machine would send it; to serve this name, add it to {HOSTS_SETTING}"
            )
            return ForbiddenError(msg, {"header": "Host", "value": host, "setting": HOSTS_SETTING})
        origin = headers.get("origin")
        if origin is not None and not self.any_origin and not self._origin_allowed(origin):
            msg = (
                f"Origin '{origin}' may not call this server: only pages of localhost, 127.0.0.1 and [::1] may; "
                f"to let the pages of another origin call it, add that origin to {ORIGINS_SETTING}"
            )
            return ForbiddenError(msg, {"header": "Origin", "value": origin, "setting": ORIGINS_SETTING})
        if scope["method"] in CHANGES_STATE:
            return self._body_refusal(scope, headers)
        return None

    def _host_allowed(self, host: str) -> bool:
        name, port = split_host(host)
        if not name:
            return False
        if is_loopback(name):
            return True
        candidates = [name] if port is None else [name, f"{name}:{port}"]
        return any(fnmatch.fnmatchcase(c, p) for c in candidates for p in self.host_patterns)

    def _origin_allowed(self, origin: str) -> bool:
        normalised = normalised_origin(origin)
        if normalised is None:
            return False
        name = split_host(normalised.partition("://")[2])[0]
        if is_loopback(name):
            return True
        return any(p == ANY or fnmatch.fnmatchcase(normalised, p) for p in self.origin_patterns)

    @staticmethod
    def _body_refusal(scope: Scope, headers: Headers) -> HaygateError | None:
        declared = headers.get("content-type")
        has_body = headers.get("content-length", "0") not in ("", "0") or "transfer-encoding" in headers
        if declared is None and not has_body:
            return None
        media_type = (declared or "").partition(";")[0].strip().lower()
        path = scope.get("path", "")
        records = path.startswith(RECORDS_ROUTE) and scope["method"] == "PUT"
        allowed = JSON_TYPES | (JSONL_TYPES | RECORD_FILE_TYPES if records else set())
        if media_type in allowed or (media_type.startswith("application/") and media_type.endswith("+json")):
            return None
        wanted = "application/json" + (", JSONL (application/jsonl), text/csv or text/markdown" if records else "")
        msg = f"{scope['method']} {path} takes a JSON body (content-type: {wanted}), not '{declared or 'none'}'"
        return UnsupportedMediaTypeError(msg, {"content_type": declared, "expected": sorted(allowed)})


def _host_pattern(written: str) -> str:
    """An allowed host as written in the setting (`name`, `name:port`, `[v6]`, with `*` patterns) -> the
    form `_host_allowed` compares: a name alone allows any port."""
    name, port = split_host(written)
    return name if port is None else f"{name}:{port}"


def _unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def guarded(
    app: ASGIApp, allowed_hosts: Sequence[str], allowed_origins: Sequence[str], bind_host: str | None
) -> ASGIApp:
    """`app` behind the boundary, with CORS for the configured origins' pages (none configured: closed)."""
    origins = [o for o in allowed_origins if o.strip() and o != ANY]
    if origins or ANY in allowed_origins:
        app = CORSMiddleware(
            app,
            allow_origins=["*"] if ANY in allowed_origins else [o.rstrip("/") for o in origins if "*" not in o],
            allow_origin_regex=_origin_regex(origins),
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=CORS_HEADERS,
            expose_headers=CORS_EXPOSED,
        )
    return TrustBoundary(app, allowed_hosts, allowed_origins, bind_host)


def _origin_regex(origins: Sequence[str]) -> str | None:
    """Configured origins with `*` in them, as the one regex Starlette's CORS takes."""
    wild = [re.escape(o.rstrip("/")).replace(r"\*", "[^/]*") for o in origins if "*" in o]
    return "|".join(f"(?:{w})" for w in wild) or None
