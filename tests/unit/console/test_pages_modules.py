"""The console's script modules (haygate/console/static/), their pure helpers tested by Node's own test
runner: `tests/js/*.test.mjs` import the modules as the browser loads them, without a build step. The MCP Apps
results view inlines two of them into its one script, after the vendored markdown-it."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from haygate.gateway.declarations import ToolDeclaration
from haygate.server.apps import RankedList, view_html
from tests.support.installed import require

PROJECT = Path(__file__).resolve().parents[3]
TESTS = PROJECT / "tests" / "js"
# The Node.js `make test` installs for the MCP conformance suite (pinned), else the machine's.
PINNED_NODE = PROJECT / ".venv" / "mcp-conformance" / "node_modules" / ".bin" / "node"
# The first releases that read a .js file with `export` in it as a module without being told (no package.json).
DETECTS_MODULES = ((20, 19), (22, 7))


def node() -> str | None:
    """The pinned Node.js, else the machine's, else None."""
    if PINNED_NODE.exists():
        return str(PINNED_NODE)
    return shutil.which("node")


def detects_modules(version: str) -> bool:
    """Whether a `node --version` is one of the releases that detect a module by its syntax."""
    found = re.match(r"v(\d+)\.(\d+)", version)
    if not found:
        return False
    major, minor = int(found[1]), int(found[2])
    return any(major == m and minor >= n for m, n in DETECTS_MODULES) or major > DETECTS_MODULES[-1][0]


def recent_node() -> str:
    """A Node.js that reads the console's modules as they are; skips without one (fails under CI)."""
    executable = node()
    version = subprocess.run([executable, "--version"], capture_output=True, text=True).stdout if executable else ""
    require(
        executable is not None and detects_modules(version),
        f"Node.js 20.19 or 22.7 or later (found {version.strip() or 'none'})",
        "`make conformance` installs the pinned one, or put a recent `node` on the PATH",
    )
    assert executable is not None
    return executable


@pytest.mark.budget(20, "starts Node.js, whose test runner gives each test file a process of its own")
def test_the_console_modules_pass_their_node_tests() -> None:
    executable = recent_node()
    files = sorted(str(path.relative_to(PROJECT)) for path in TESTS.glob("*.test.mjs"))
    assert files, f"no test files in {TESTS}"
    # Files named one by one: Node 20 takes a folder and no pattern, Node 22 a pattern and no folder.
    ran = subprocess.run(
        [executable, "--test", "--test-reporter=tap", *files],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    counts = dict(re.findall(r"^# (pass|fail) (\d+)$", ran.stdout, re.MULTILINE))
    assert ran.returncode == 0 and counts.get("fail") == "0" and int(counts.get("pass", "0")) > 0, (
        ran.stdout[-4000:] + ran.stderr[-2000:]
    )


def test_the_results_view_holds_the_shared_modules_as_one_plain_script(tmp_path: Path) -> None:
    tool = ToolDeclaration.model_validate(
        {
            "name": "find_things",
            "description": "Find the things that match a query, best first.",
            "parameters": {
                "query": {
                    "type": "string",
                    "required": True,
                    "description": "What to look for, in words.",
                    "examples": ["x"],
                }
            },
            "output_schema": {"type": "object", "properties": {"results": {"type": "array", "items": {}}}},
        }
    )
    [script] = re.findall(r"<script>(.*?)</script>", view_html(tool, RankedList("results", "id", "score")), re.DOTALL)
    assert script.startswith('"use strict";') and "function appendMarkdown(" in script
    assert "e.markdownit=t()" in script and "sourceMappingURL" not in script  # the library, less its map
    assert not re.search(r"^\s*(import|export)\b", script, re.MULTILINE)
    assert "<script" not in script.lower()  # markdown-it holds "<!--": after it, "<script" would hold the element open
    (tmp_path / "view.cjs").write_text(script, encoding="utf-8")  # .cjs: read as a script, never as a module
    checked = subprocess.run([recent_node(), "--check", str(tmp_path / "view.cjs")], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr

    # Everything before the view's own script, run as a page runs it: the library reaches the shared rendering.
    own = (PROJECT / "haygate" / "server" / "apps" / "results.js").read_text(encoding="utf-8")
    assert script.endswith(own)
    (tmp_path / "shared.js").write_text(script[: -len(own)], encoding="utf-8")
    read = "fs.readFileSync(process.argv[1], 'utf8') + ';markdownHtml(text)'"
    runs = f"vm.runInContext({read}, vm.createContext({{ text: process.argv[2] }}))"  # a global of its own
    page = ["-e", f"const fs = require('fs'), vm = require('vm'); process.stdout.write({runs})"]
    text = "Set the **<mark>quokka</mark>** [guide](javascript:alert(1)) <img src=x onerror=alert(1)>"
    rendered = subprocess.run([recent_node(), *page, str(tmp_path / "shared.js"), text], capture_output=True, text=True)
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stdout == (
        "<p>Set the <strong><mark>quokka</mark></strong> [guide](javascript:alert(1)) "
        "&lt;img src=x onerror=alert(1)&gt;</p>\n"
    )
