"""An extra's advice names the install this process runs from. The checkout's own environment is an editable
install made by uv (`make install`); the installs from a wheel, uv's tools, pipx and pip are driven for real in
tests/integration/test_install.py."""

import shlex
import sys
import tomllib

from haygate.extras import add_extra, extra_command, extra_requirements, installed_from
from tests.support.project import PROJECT


def test_the_checkouts_environment_adds_an_extra_to_its_editable_install() -> None:
    source, editable, installer = installed_from()
    assert (source, editable) == (PROJECT.as_uri(), True) and installer in ("uv", "pip")  # pip where uv failed
    python, target = shlex.quote(sys.executable), shlex.quote(f"{PROJECT}[eval]")
    by = f"uv pip install --python {python}" if installer == "uv" else f"{python} -m pip install"
    assert extra_command("eval") == f"{by} -e {target}"
    assert add_extra("ray") == f"install haygate's `ray` extra: `{by} -e {shlex.quote(f'{PROJECT}[ray]')}`"


def test_an_extras_requirements_are_the_ones_the_package_declares() -> None:
    declared = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in ("eval", "ray", "otel"):
        assert extra_requirements(extra) == declared[extra]
