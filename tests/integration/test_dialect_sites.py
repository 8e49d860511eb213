"""Real documentation, as its authors wrote it (tests/fixtures/sites: excerpts of Pydantic's MkDocs Material
docs, Redux's Docusaurus docs and MyST-Parser's MyST docs), through `haygate ingest docs` and `search_docs`:
what an agent reads carries none of the site's syntax, names the author's anchors, and finds the section."""

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from haygate.cli import main
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.settings import Settings
from tests.support.project import make_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]
SITES = Path(__file__).resolve().parents[1] / "fixtures" / "sites"
# What a site's syntax looks like raw: attribute lists, fences of admonitions and blocks, tabs, MDX and JSX,
# MyST directive fences and roles, template macros.
RAW = re.compile(
    r"\{ ?#[\w-]+|^(!!!|\?\?\?|///|:::|===) |^import |<(Tabs|TabItem|LiteYouTubeEmbed|abbr|div)\b"
    r"|```\{|\{\{|\{(ref|doc|term)\}`",
    re.MULTILINE,
)
CODE = re.compile(r"^(`{3,}).*?^\1$|`{3,}.*?(`{3,}|…$)", re.MULTILINE | re.DOTALL)  # a snippet's fences are cut


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, list[str]]]:
    """The three sites ingested into one docs collection by the command a user runs; what it printed."""
    settings = make_settings(tmp_path_factory.mktemp("sites") / "data")
    printed = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HAYGATE_DATA_DIR", str(settings.data_dir))
        patch.delenv("HAYGATE_QDRANT_URL", raising=False)
        for site in ("pydantic", "redux", "myst"):
            capture = tmp_path_factory.mktemp(site) / "stderr"
            with capture.open("w") as err, patch.context() as inner:
                inner.setattr("sys.stderr", err)
                assert main(["ingest", "docs", str(SITES / site), "--no-progress", "--wait"]) == 0
            printed.append(capture.read_text())
    yield settings, printed


@pytest.fixture(scope="module")
def search(sites: tuple[Settings, list[str]]) -> Iterator[Any]:
    with Loader(sites[0]) as loader:
        gateway = Gateway.load(loader)
        yield lambda arguments: gateway.call("search_docs", {"max_results": 5, **arguments})


def test_the_ingest_reports_each_sites_includes(sites: tuple[Settings, list[str]]) -> None:
    pydantic, redux, myst = sites[1]
    assert "2 records read, 2 new or changed" in pydantic and "includes" not in pydantic
    assert "2 records read, 2 new or changed" in redux
    # MyST-Parser's FAQ includes a snippet beside it, and two files outside the excerpt, which are left out.
    assert "3 records read" in myst and "1 includes read, 2 not found (in 1 file(s))" in myst
    assert "include not found, left out: " in myst and "faq/index.md:1: ../../example-include.md" in myst


@pytest.mark.parametrize(
    ("query", "section", "anchor"),  # anchor: the heading's on the page, a link's `path#anchor`
    [
        # Pydantic: `[](){#discriminated-unions-with-str-discriminators}` above it is an old name, not its anchor.
        (
            "validate a union of models by a literal type field that says which model",
            "file:concepts/unions.md#Discriminated unions/Discriminated unions with string discriminators",
            "discriminated-unions-with-string-discriminators",
        ),
        ("install pydantic with conda", "file:install.md#Install", None),  # a page's opening: no heading, no anchor
        # Redux: front matter's title, `:::tip` and JSX; MyST: directive fences, an include read in.
        (
            "Learn with Jason livestream about modern Redux",
            "file:introduction/GettingStarted.md#Learn Redux/Learn Modern Redux Livestream",
            "learn-modern-redux-livestream",
        ),
        (
            "include a markdown snippet file into a page",
            "file:faq/index.md#howto/include-rst",  # `(howto/include-rst)=` names the heading after it
            "howto/include-rst",
        ),
    ],
)
def test_a_section_is_found_with_its_anchor_and_no_markup(
    search: Any, query: str, section: str, anchor: str | None
) -> None:
    answer = search({"query": query})
    results = answer["results"]
    assert section in [r["id"].split("#chunk")[0] for r in results[:3]], [r["id"] for r in results]
    found = next(r for r in results if r["id"].split("#chunk")[0] == section)
    assert found["anchor"] == anchor
    for result in results:
        for field in ("title", "text", "snippet", "section_path"):
            prose = CODE.sub("", result[field] or "")  # a page's code may show syntax, as MyST's docs do
            assert not RAW.search(prose), (result["id"], field, RAW.search(prose))


def test_admonitions_tabs_and_includes_read_as_prose_and_code(search: Any) -> None:
    """What replaced the fences: a label leads an admonition's text, a tab's text is led by its label, and the
    included snippet's text stands where the directive was."""
    texts = {
        r["id"].split("#chunk")[0]: r["text"]
        for r in search({"query": "pip install pydantic conda", "max_results": 10})["results"]
    }
    assert "pip:\n\n```bash\npip install pydantic" in texts["file:install.md#Install"]  # `=== "pip"`, a tab
    assert "uv:\n\n```bash\nuv add pydantic" in texts["file:install.md#Install"]
    faq = search({"query": "include rST files into a Markdown file eval-rst"})["results"]
    snippet = next(r for r in faq if r["id"].startswith("file:faq/index.md#howto/include-rst"))
    assert "Hallo I'm from a Markdown file" in snippet["text"]  # faq/snippets/include-md.md, read in
    tips = search({"query": "Redux Toolkit is the standard way to write Redux logic tip"})["results"]
    assert any("Tip:" in r["text"] for r in tips), [r["text"][:80] for r in tips]
