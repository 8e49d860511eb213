"""Every link a reader can follow resolves: in the README, the documentation, the evaluation folders' READMEs and
the README `haygate init` writes into a new project. A link is a file of this repository (a page of the docs
site is its Markdown file; `make docs` checks the anchors), or an address on an allow-listed host: the sites
the documentation cites on purpose. A page on no server (a package index haygate is not on) fails here.
"""

from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from markdown_it import MarkdownIt

from haygate.templates import README
from tests.support.project import PROJECT, docs_reference

ALLOWED_HOSTS = {
    "github.com",  # MCP Apps' repository (ext-apps)
    "modelcontextprotocol.io",  # the MCP specification and its SEPs
    "docs.ray.io",  # Ray's own guides, cited by the Ray how-to
    "127.0.0.1",  # haygate's own server, where a page says to open it
    "localhost",
}
DOCS = PROJECT / "docs"
GENERATED = set(docs_reference().PAGES)  # the Reference pages, by path under docs/
PAGES = sorted(
    [
        PROJECT / "README.md",
        *(PROJECT / "docs").rglob("*.md"),
        *(PROJECT / "evaluation").glob("*/README.md"),
    ]
)


def links(markdown: str) -> list[str]:
    """Every link and image target, as CommonMark reads them (code spans and blocks hold none)."""
    found = []
    for token in MarkdownIt("commonmark").parse(markdown):
        for child in [token, *(token.children or [])]:
            target = child.attrGet("href") if child.type == "link_open" else child.attrGet("src")
            if child.type in ("link_open", "image") and target:
                found.append(str(target))
    return found


def broken(target: str, page: Path | None) -> str | None:
    """Why `target`, linked from `page` (None: a new project's README), does not resolve; None when it does."""
    address = urlparse(target)
    if address.scheme in ("http", "https"):
        return None if address.hostname in ALLOWED_HOSTS else f"{address.hostname} is not an allow-listed host"
    if address.scheme or target.startswith("/"):
        return "not a relative link to a file"
    if not address.path:
        return None  # an anchor on the same page: `make docs` checks anchors
    if page is None:
        return "a new project's README links to a file of haygate's repository, which the project does not hold"
    path = (page.parent / unquote(address.path)).resolve()
    if path.is_relative_to(DOCS) and path.relative_to(DOCS).as_posix() in GENERATED:
        return None  # a Reference page, generated from the code when the site is built
    if not path.exists() or not path.is_relative_to(PROJECT):
        return f"no file {path}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(PROJECT)))
def test_every_link_of_a_page_resolves(page: Path) -> None:
    found = links(page.read_text())
    problems = {target: why for target in found if (why := broken(target, page))}
    assert not problems, problems


def test_the_readme_of_a_new_project_links_only_to_allowed_hosts() -> None:
    text = README.format(name="p", description="d", folder="p")
    problems = {target: why for target in links(text) if (why := broken(target, None))}
    assert not problems, problems


def test_a_page_on_no_server_is_refused() -> None:
    assert broken("https://pypi.org/project/haygate/", PROJECT / "README.md") == (
        "pypi.org is not an allow-listed host"
    )
    assert broken("docs/no-such-page.md", PROJECT / "README.md") is not None
    assert broken("docs/index.md#anchor", PROJECT / "README.md") is None
