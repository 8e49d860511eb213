"""The documentation site as `make docs` builds it (MkDocs Material, strict): every page of the nav rendered,
the reference generated from the code, the pictures shown, and, in a real headless Chromium, nothing fetched
from beyond the site. `HAYGATE_SCREENSHOT_DIR` keeps a screenshot of the start page and of a reference page."""

import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from haygate.errors import BY_CODE
from haygate.settings import Settings
from tests.support.browser import browser_page, screenshot
from tests.support.docs import nav_pages
from tests.support.project import PROJECT

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MAKEFILE = (PROJECT / "Makefile").read_text()
BUILD = re.search(r"^docs: install\n\t\$\(DOCS_ENV\) \$\(BIN\)/(mkdocs build --strict)$", MAKEFILE, re.M)
QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built as `make docs` builds it, into a temp dir."""
    assert BUILD is not None, "make docs no longer runs `mkdocs build --strict`"
    out = tmp_path_factory.mktemp("site")
    mkdocs = Path(sys.executable).parent / "mkdocs"
    done = subprocess.run(
        [str(mkdocs), *BUILD.group(1).split()[1:], "--site-dir", str(out)],
        cwd=PROJECT,
        env={**os.environ, **QUIET},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    return out


def rendered(site: Path, page: str) -> str:
    """The HTML of a page of the nav (`how-to/add-a-tool.md` -> `how-to/add-a-tool/index.html`)."""
    name = page.removesuffix(".md")
    path = site / ("index.html" if name == "index" else f"{name.removesuffix('/index')}/index.html")
    return path.read_text()


@pytest.mark.budget(60, "builds the whole site, the reference generated from the code")
def test_every_page_is_built_and_the_reference_is_the_code(site: Path) -> None:
    pages = [page.relative_to(PROJECT / "docs").as_posix() for page in nav_pages()]
    assert len(pages) >= 25, pages
    for page in pages:
        assert "<article" in rendered(site, page), page
    # Written by hand: every .md under docs/ is in the nav (mkdocs' strict build fails otherwise, too).
    written = {p.relative_to(PROJECT / "docs").as_posix() for p in (PROJECT / "docs").rglob("*.md")}
    assert written == set(pages), written ^ set(pages)
    settings, errors = rendered(site, "reference/settings.md"), rendered(site, "reference/errors.md")
    for field in Settings.model_fields:
        assert f"HAYGATE_{field.upper()}" in settings, field
    for code in BY_CODE:
        assert code in errors, code
    cli = rendered(site, "reference/cli.md")
    for command in ("serve", "ingest", "validate", "call", "eval", "tune", "init", "repair"):
        assert f'id="haygate-{command}"' in cli, command
    assert "HybridRetriever" in rendered(site, "reference/components.md")
    assert (site / "images" / "flows.svg").is_file() and 'src="images/flows.svg"' in rendered(site, "index.md")


def test_the_site_names_nothing_beyond_itself(site: Path) -> None:
    """No font, script or stylesheet from a CDN: the pages work offline and tell no one who reads them."""
    for page in site.rglob("*.html"):
        html = page.read_text()
        external = re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?://[^"]+)"', html)
        assert not external, (page, external)


@pytest.fixture
def site_url(site: Path) -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.budget(60, "builds the site, then a real Chromium opens it and searches it")
def test_the_site_in_a_browser(site_url: str) -> None:
    with browser_page(site_url) as page:
        page.goto(site_url)
        assert page.locator("article h1").inner_text().strip().rstrip("¶") == "haygate"
        assert page.locator("article img[src='images/flows.svg']").evaluate("img => img.naturalWidth") > 0
        screenshot(page, "docs-site-start")
        page.locator("input.md-search__input").first.click()
        page.keyboard.type("bearer token")
        page.wait_for_selector(".md-search-result__item", timeout=20_000)
        found = " ".join(page.locator(".md-search-result__item").all_inner_texts())
        assert "token" in found.lower(), found
        page.goto(f"{site_url}/reference/settings/")
        assert page.locator("article table").count() >= 1
        assert "HAYGATE_TOKEN" in page.locator("article").inner_text()
        screenshot(page, "docs-site-settings")
