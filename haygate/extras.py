"""How to add one of haygate's extras (`torch`, `eval`, `otel`, `ray`), said for the way this haygate was installed.

haygate is on no package index, so `pip install 'haygate[eval]'` finds nothing: an extra comes from where haygate
itself came from (a checkout, a wheel file), which the installer recorded beside the package (PEP 610's
`direct_url.json`), with the tool that installed it (`uv tool`, pipx, pip or uv into a virtual environment).
"""

import json
import shlex
import sys
from functools import cache
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

__all__ = ["add_extra"]


def add_extra(extra: str) -> str:
    """'install haygate's `eval` extra: `<the command for this install>`'."""
    return f"install haygate's `{extra}` extra: `{extra_command(extra)}`"


def extra_command(extra: str) -> str:
    """The one command that adds `extra` to the haygate this process runs."""
    source, editable, installer = installed_from()
    prefix = Path(sys.prefix)
    if (prefix / "pipx_metadata.json").is_file():  # a pipx venv: pipx adds the extra's requirements to it
        return "pipx inject haygate " + " ".join(shlex.quote(r) for r in extra_requirements(extra))
    target = f"haygate[{extra}]" if source is None else f"haygate[{extra}] @ {source}"
    if (prefix / "uv-receipt.toml").is_file():  # `uv tool install`: the tool's environment, made again with it
        return f"uv tool install --force {shlex.quote(target)}"
    if editable and source is not None:
        target = f"{unquote(urlparse(source).path)}[{extra}]"
        flag = "-e "
    else:
        flag = ""
    python = shlex.quote(sys.executable)
    if installer == "uv":
        return f"uv pip install --python {python} {flag}{shlex.quote(target)}"
    return f"{python} -m pip install {flag}{shlex.quote(target)}"


@cache
def installed_from() -> tuple[str | None, bool, str]:
    """Where haygate was installed from (a `file://` URL of a folder or a wheel; None from an index or unknown),
    whether that install is editable, and which tool installed it ('pip', 'uv', ...)."""
    distribution = installed()
    if distribution is None:
        return None, False, "pip"
    installer = (distribution.read_text("INSTALLER") or "pip").strip() or "pip"
    try:
        recorded = json.loads(distribution.read_text("direct_url.json") or "null")
    except ValueError:
        recorded = None
    if not isinstance(recorded, dict) or not str(recorded.get("url", "")).startswith("file://"):
        return None, False, installer
    editable = bool((recorded.get("dir_info") or {}).get("editable"))
    return str(recorded["url"]), editable, installer


@cache
def installed() -> metadata.Distribution | None:
    """haygate's installed distribution; None when run from a source tree with no install at all."""
    # The install's own record first: a build's `haygate.egg-info` in a checkout can shadow it on sys.path.
    found = sorted(metadata.distributions(name="haygate"), key=lambda d: d.read_text("direct_url.json") is None)
    return found[0] if found else None


def extra_requirements(extra: str) -> list[str]:
    """The requirements haygate's metadata lists for `extra` (`ranx==0.3.21`, ...), without the marker."""
    distribution = installed()
    listed = (distribution.requires or []) if distribution is not None else []
    marker = f'extra == "{extra}"'
    return [r.split(";")[0].strip() for r in listed if marker in r.replace("'", '"')] or [f"haygate[{extra}]"]
