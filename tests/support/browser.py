"""A page in a real headless Chromium (Debian's, driven by Playwright) for the tests of haygate's pages: the API
page, the console and the documentation site. Every request the page makes beyond its own server is recorded,
and the test fails on any; `HAYGATE_SCREENSHOT_DIR` keeps the screenshots a test takes, to look at."""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.installed import require

CHROMIUM = Path(os.environ.get("HAYGATE_TEST_CHROMIUM", "/usr/bin/chromium"))
# As the machine's notes say: without the background-networking flags Chromium keeps dialling Google's hosts.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def browser_page(base_url: str, *also: str) -> Iterator[Any]:
    """A 1280x900 page; skips where no Chromium is installed (fails, under CI). A request to anything but
    `base_url` (or the test's other servers in `also`, a blob the page made, or a data: URL) fails the test
    when the page closes."""
    require(
        CHROMIUM.exists(),
        f"Chromium at {CHROMIUM}",
        "`make test` installs Debian's as root; or set HAYGATE_TEST_CHROMIUM",
    )
    from playwright.sync_api import sync_playwright

    local = (base_url, *also, f"blob:{base_url}/", "data:")
    outside: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: None if r.url.startswith(local) else outside.append(r.url))
            yield page
        finally:
            browser.close()
    assert outside == [], f"the page fetched from beyond {base_url}: {outside}"


def screenshot(page: Any, name: str, full_page: bool = False) -> None:
    """Kept in HAYGATE_SCREENSHOT_DIR when it is set."""
    keep = os.environ.get("HAYGATE_SCREENSHOT_DIR")
    if keep:
        page.screenshot(path=str(Path(keep) / f"{name}.png"), full_page=full_page)
