"""`scripts/install.py` gives uv the settings pip has, so both resolve the same packages from the same places."""

import runpy
import shlex

from tests.support.project import PROJECT

install = runpy.run_path(str(PROJECT / "scripts" / "install.py"))

LISTED = """\
:env:.find-links='/opt/wheels'
:env:.default-timeout='180'
global.constraint='/etc/xdg/pip/constraints.txt'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
global.find-links='/elsewhere'
global.cert='/etc/ssl/certs/ca-certificates.crt'
install.index-url='https://mirror.example/simple'
"""


def test_each_setting_comes_from_the_scope_pip_reads_it_from() -> None:
    assert install["pip_settings"](LISTED) == {
        "index-url": ["https://mirror.example/simple"],
        "extra-index-url": ["file:///opt/pypi/simple", "file:///opt/pypi-more/simple"],
        "find-links": ["/opt/wheels"],  # the environment's, over the global file's
        "constraint": ["/etc/xdg/pip/constraints.txt"],
    }


def test_uv_gets_one_flag_per_value_and_picks_across_indexes_as_pip_does() -> None:
    arguments = install["uv_arguments"](install["pip_settings"](LISTED))
    assert shlex.join(arguments) == (
        "--index-strategy unsafe-best-match --index-url https://mirror.example/simple "
        "--extra-index-url file:///opt/pypi/simple --extra-index-url file:///opt/pypi-more/simple "
        "--find-links /opt/wheels --constraint /etc/xdg/pip/constraints.txt"
    )


def test_no_pip_settings_leave_uv_on_its_defaults() -> None:
    assert install["uv_arguments"](install["pip_settings"]("")) == ["--index-strategy", "unsafe-best-match"]


def test_the_makefile_installs_through_it() -> None:
    assert "scripts/install.py" in (PROJECT / "Makefile").read_text()
