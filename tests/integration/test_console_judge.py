"""The console's Judge tab in a real headless Chromium, as a user judges: a new set over `search_docs`, two
queries graded from the keyboard, saved; re-opened after the tool's ranking "changed"; then evaluated with
`haygate eval --judged`. And the Live tab's word on a refused reload.

The service's home is a copy of the project (the tab writes under `home/evaluation/`, never into this
repository) over a copy of the ingested samples. `HAYGATE_SCREENSHOT_DIR` keeps the screenshots."""

import csv
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from haygate.cli import main
from haygate.serve.http import build_http_app
from haygate.server.service import GatewayService
from tests.support.browser import browser_page, screenshot
from tests.support.cache import copy_tree
from tests.support.project import copy_project, make_settings
from tests.support.serving import serve

pytestmark = [pytest.mark.integration, pytest.mark.slow]
TOKEN = "judge-token-5"
SET = "docs-judged"
QUERIES = {"q1": "how do NOT filters work", "q2": "bearer token"}
# A typo in a declaration: the catalog refuses the file, so a reload is refused before anything is built.
BROKEN_TOOL = """\
name: broken_search
description: A tool whose declaration misspells a key.
pipline: tools/search_docs.yaml
parameters:
  query: {type: string, required: true, description: What to look for., examples: ["x"]}
"""
# One section long enough to be stored as several chunks, its code block in the last.
SENTENCE = "a **quokka** burrow keeps its tunnels cool through the long dry summer while the colony sleeps"
LONG_SECTION = "\n\n".join(
    [
        "---\nsource: judge-whole\n---\n# Quokka field guide\n\n## Burrows",
        "The alpha paragraph: " + " ".join([SENTENCE] * 6) + ".",
        *(f"Paragraph {n}: " + " ".join(reversed(SENTENCE.split() * 6)) + "." for n in range(2, 5)),
        "The omega paragraph, and a command:\n\n```bash\nquokka-dig --depth 2\n```",
    ]
)


@contextmanager
def serving(home: Path, data: Path) -> Iterator[tuple[GatewayService, str]]:
    """The service over real HTTP; stopped and closed on leaving, which frees the data dir's stores."""
    service = GatewayService(make_settings(data, home=home, tier="admin", token=TOKEN))
    service.start(background=False)
    try:
        with contextmanager(serve)(build_http_app(service, token=TOKEN)) as url:
            yield service, url
    finally:
        service.close()


def open_console(page: Any, url: str, tab: str) -> None:
    page.goto(f"{url}/console#{tab}")
    page.fill("#token", TOKEN)
    page.reload()  # the token is kept for the tab; the hash opens the panel


def results_of(page: Any, query_id: str) -> Any:
    """The result rows once the query's results are shown."""
    from playwright.sync_api import expect

    expect(page.locator("#judge-queries .judge-query.selected")).to_have_attribute("data-query", query_id)
    rows = page.locator("#judge-results .judge-result")
    expect(rows.first).to_be_visible(timeout=30_000)
    return rows


def pressed(row: Any) -> str:
    """The grade a result row shows as pressed (aria-pressed), or "" when none is."""
    button = row.locator('button.grade[aria-pressed="true"]')
    return button.get_attribute("data-grade") if button.count() else ""


def qrels(folder: Path) -> dict[str, dict[str, int]]:
    with (folder / "qrels" / "test.tsv").open(newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    assert rows[0] == ["query-id", "corpus-id", "score"]
    grades: dict[str, dict[str, int]] = {}
    for query_id, judged_id, grade in rows[1:]:
        grades.setdefault(query_id, {})[judged_id] = int(grade)
    return grades


def test_a_set_judged_in_the_browser_is_saved_reopened_and_evaluated(
    ingested_samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect

    home = copy_project(tmp_path / "home")
    data = copy_tree(ingested_samples, tmp_path / "data")
    folder = home / "evaluation" / SET
    with serving(home, data) as (_, url), browser_page(url) as page:
        open_console(page, url, "judge")
        expect(page.locator("#judge-folder")).to_contain_text("evaluation/", timeout=30_000)

        # A new set: name, tool (only those taking a query), level, split.
        expect(page.locator("#judge-tool option", has_text="search_docs")).to_have_count(1, timeout=30_000)
        assert page.locator("#judge-tool option", has_text="upsert_records").count() == 0
        page.fill("#judge-name", SET)
        page.select_option("#judge-tool", "search_docs")
        page.get_by_role("radio", name="section one section of a record").check()
        page.get_by_role("button", name="Start the set").click()
        expect(page.locator("#judge-title")).to_have_text(SET)
        expect(page.locator("#judge-query-text")).to_be_focused()

        # The first query, its id made up; graded from the keyboard: Esc to the results, 3, j 0, j 2.
        page.fill("#judge-query-text", QUERIES["q1"])
        page.keyboard.press("Enter")
        rows = results_of(page, "q1")
        expect(page.locator("#judge-dirty")).to_be_visible()
        total = len(set(rows.evaluate_all("rows => rows.map(r => r.dataset.judged)")))
        expect(page.locator("#judge-unjudged")).to_have_text(f"{total} of {total} unjudged")
        judged = [rows.nth(i).get_attribute("data-judged") for i in range(3)]
        assert len(set(judged)) == 3 and not any("#chunk" in j for j in judged)  # sections, not chunks
        assert "unjudged" in (rows.first.get_attribute("class") or "")
        page.keyboard.press("Escape")
        expect(rows.first).to_be_focused()
        for key in ("3", "j", "0", "ArrowDown", "2"):
            page.keyboard.press(key)
        assert [pressed(rows.nth(i)) for i in range(3)] == ["3", "0", "2"]
        expect(rows.first.locator('button.grade[data-grade="3"]')).to_have_attribute("aria-pressed", "true")
        expect(rows.nth(2)).to_be_focused()
        expect(page.locator("#judge-unjudged")).to_have_text(f"{total - 3} of {total} unjudged")
        page.keyboard.press("u")  # clears the focused one...
        expect(rows.nth(2).locator(".grade-state")).to_have_text("Not judged yet")
        page.keyboard.press("2")  # ...and grades it again
        expect(page.locator('#judge-queries [data-query="q1"] .query-counts')).to_have_text(
            f"3 graded · {total - 3} unjudged"
        )

        # The second query, with an id of its own; its first result graded with a click.
        page.fill("#judge-query-text", QUERIES["q2"])
        page.fill("#judge-query-id", "tokens")
        page.get_by_role("button", name="Add the query").click()
        second = results_of(page, "tokens")
        second.first.get_by_role("button", name="3 exact").click()
        expect(second.first.locator(".grade-state")).to_have_text("Grade 3: exactly what was asked")
        page.keyboard.press("p")  # back to q1, its grades kept
        rows = results_of(page, "q1")
        expect(rows.first).to_be_focused()
        assert [pressed(rows.nth(i)) for i in range(3)] == ["3", "0", "2"]
        expect(page.locator("#judge-query-line")).to_contain_text(f"q1 {QUERIES['q1']} · search_docs · ")
        screenshot(page, "judge", full_page=True)

        # Leaving the tab with unsaved changes asks first; declining stays on the Judge tab.
        page.once("dialog", lambda dialog: dialog.dismiss())
        with page.expect_event("dialog") as leaving:
            page.get_by_role("tab", name="Live").click()
        assert "unsaved changes" in leaving.value.message
        expect(page.locator("#panel-judge")).to_be_visible()
        assert page.url.endswith("#judge")

        # Ctrl+S saves every query and grade (0 included), and says what to run next.
        page.keyboard.press("Control+s")
        expect(page.locator("#judge-save-status")).to_contain_text("Saved 2 queries and 4 grades", timeout=30_000)
        expect(page.locator("#judge-dirty")).to_be_hidden()
        expect(page.locator("#judge-command")).to_have_text(f"haygate eval --judged evaluation/{SET}")
        spec = yaml.safe_load((folder / "eval.yaml").read_text())
        assert spec["tool"] == "search_docs" and spec["level"] == "section" and "corpus" not in spec
        queries = [json.loads(line) for line in (folder / "queries.jsonl").read_text().splitlines()]
        assert [(q["_id"], q["text"]) for q in queries] == [("q1", QUERIES["q1"]), ("tokens", QUERIES["q2"])]
        saved = qrels(folder)
        assert saved["q1"] == dict(zip(judged, [3, 0, 2], strict=True)) and list(saved["tokens"].values()) == [3]
        rankings = json.loads((folder / "judging.json").read_text())["test"]
        assert rankings["q1"]["ranking"][:3] == judged and len(rankings["q1"]["ranking"]) == total

        # As if the pipeline had changed since: the first two swapped, the third new, one graded id gone.
        rankings["q1"]["ranking"] = [judged[1], judged[0], "old-section"]
        (folder / "judging.json").write_text(json.dumps({"test": rankings}))
        with (folder / "qrels" / "test.tsv").open("a") as handle:
            handle.write("q1\told-section\t1\n")

        # Re-opened in a fresh page: the grades show again, with the moves since the grading.
        page.reload()
        expect(page.locator(f'#judge-set option[value="{SET}"]')).to_have_count(1, timeout=30_000)
        page.select_option("#judge-set", SET)
        page.get_by_role("button", name="Open").click()
        rows = results_of(page, "q1")
        assert [pressed(rows.nth(i)) for i in range(3)] == ["3", "0", "2"]
        expect(rows.nth(0).locator(".rank-change")).to_contain_text("↑1")
        expect(rows.nth(1).locator(".rank-change")).to_contain_text("↓1")
        expect(rows.nth(2).locator(".rank-change")).to_have_text("new")
        gone = page.locator("#judge-gone .judge-gone-item")
        expect(gone).to_have_count(1)
        expect(gone.first).to_contain_text("old-section")
        expect(gone.first.locator('button.grade[data-grade="1"]')).to_have_attribute("aria-pressed", "true")
        screenshot(page, "judge-reopened", full_page=True)
        gone.first.get_by_role("button", name="Clear").click()  # not a section any more: ungraded
        expect(page.locator("#judge-dirty")).to_be_visible()
        page.get_by_role("button", name="Save").click()
        expect(page.locator("#judge-save-status")).to_contain_text("4 grades", timeout=30_000)
        expect(page.locator("#judge-gone-box")).to_be_hidden()
        expect(rows.nth(0).locator(".rank-change")).to_contain_text("=")

        # A change not saved: leaving the page asks first; declining keeps it.
        rows.nth(3).get_by_role("button", name="1 partly").click()
        page.once("dialog", lambda dialog: dialog.dismiss())
        with page.expect_event("dialog") as unloading:
            page.evaluate("setTimeout(() => location.reload())")
        assert unloading.value.type == "beforeunload"
        expect(rows.nth(3).locator(".grade-state")).to_have_text("Grade 1: partly relevant")
    assert "old-section" not in qrels(folder)["q1"]

    # The service is closed (an embedded store has one process): the command the tab showed, on its data.
    monkeypatch.setenv("HAYGATE_HOME", str(home))
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(data))
    out = tmp_path / "eval-out"
    assert main(["eval", "--judged", str(folder), "--out", str(out), "--no-progress"]) == 0
    report = json.loads((out / "report.json").read_text())
    [variant] = report["variants"]
    assert variant["name"] == "search_docs" and 0 < variant["metrics"]["ndcg@10"] <= 1


def test_a_result_opens_to_its_whole_section(ingested_samples: Path, tmp_path: Path) -> None:
    """The Judge tab shows a result's snippet as Markdown (the query's mark inside the text's bold), and opens a
    result to the whole section it is graded as: every chunk of it, read from the collection that holds it."""
    from playwright.sync_api import expect

    home = copy_project(tmp_path / "home")
    with serving(home, copy_tree(ingested_samples, tmp_path / "data")) as (_, url):
        written = httpx.put(
            f"{url}/api/collections/docs/records",
            params={"filename": "quokkas.md"},
            content=LONG_SECTION,
            headers={"Authorization": f"Bearer {TOKEN}", "content-type": "text/markdown"},
            timeout=60,
        ).json()
        assert written["added"] == 1 and written["chunks"] >= 2
        with browser_page(url) as page:
            open_console(page, url, "judge")
            expect(page.locator("#judge-tool option", has_text="search_docs")).to_have_count(1, timeout=30_000)
            page.fill("#judge-name", "whole-sections")
            page.select_option("#judge-tool", "search_docs")
            page.get_by_role("radio", name="section one section of a record").check()
            page.get_by_role("button", name="Start the set").click()
            page.fill("#judge-query-arguments", '{"source": "judge-whole"}')
            page.fill("#judge-query-text", "quokka burrow")
            page.keyboard.press("Enter")
            first = results_of(page, "q1").first
            judged = first.get_attribute("data-judged")
            expect(first.locator(".result-excerpt strong > mark").first).to_have_text("quokka")
            whole = first.locator(".judge-whole")
            expect(whole).to_be_hidden()

            first.get_by_role("button", name="Whole section").click()
            documents = whole.locator(".whole-document")
            expect(documents).to_have_count(written["chunks"], timeout=30_000)
            ids = documents.evaluate_all("docs => docs.map(doc => doc.dataset.id)")
            assert all(id.startswith(f"{judged}#chunk") for id in ids), ids  # its own chunks, in order
            assert ids == sorted(ids, key=lambda id: int(id.rsplit("#chunk", 1)[1]))
            expect(whole.locator(".whole-document.matched")).to_have_count(1)  # the result's own chunk
            expect(whole.locator(".whole-where")).to_contain_text(" in docs · ")
            expect(documents.first).to_contain_text("The alpha paragraph")
            expect(documents.last).to_contain_text("The omega paragraph")
            expect(documents.last.locator("pre > code")).to_have_text("quokka-dig --depth 2\n")
            hide = first.get_by_role("button", name="Hide the whole section")
            expect(hide).to_have_attribute("aria-expanded", "true")
            screenshot(page, "judge-whole-section", full_page=True)

            # From the keyboard: e hides and shows the focused result's whole section.
            first.focus()
            page.keyboard.press("e")
            expect(whole).to_be_hidden()
            page.keyboard.press("e")
            expect(whole).to_be_visible()
            expect(documents).to_have_count(len(ids))


def test_the_live_tab_says_the_last_reload_was_refused(ingested_samples: Path, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    home = copy_project(tmp_path / "home")
    with serving(home, copy_tree(ingested_samples, tmp_path / "data")) as (service, url):
        (home / "configs" / "tools" / "broken.yaml").write_text(BROKEN_TOOL)
        assert not service.reload().swapped
        with browser_page(url) as page:
            open_console(page, url, "live")
            status = page.locator("#live-status")
            expect(status.locator(".status-badge")).to_have_text("degraded", timeout=30_000)
            refused = status.locator(".refused-reload")
            expect(refused).to_contain_text("was refused; the tools served are the previous ones:")
            expect(refused.locator("li")).to_contain_text("unknown key 'pipline'; did you mean 'pipeline'?")
            expect(page.locator("#live-tools")).to_contain_text("search_docs")
            screenshot(page, "live-refused", full_page=True)


def test_a_pool_is_judged_blind_and_two_raters_agreement_is_shown(ingested_samples: Path, tmp_path: Path) -> None:
    """A pool of the served tool, a variant and the two one-source rankings: each result once, in no ranking's
    order and without rank moves; the set keeps which rankings pooled each result. Then a second rater, who
    sees none of the first one's grades, grades the same results, and the tab shows their kappa."""
    from playwright.sync_api import expect

    from haygate.gateway.agreement import agreement

    home = copy_project(tmp_path / "home")
    data = copy_tree(ingested_samples, tmp_path / "data")
    folder = home / "evaluation" / "pooled"
    with serving(home, data) as (_, url), browser_page(url) as page:
        open_console(page, url, "judge")
        expect(page.locator("#judge-tool option", has_text="search_docs")).to_have_count(1, timeout=30_000)
        page.fill("#judge-name", "pooled")
        page.select_option("#judge-tool", "search_docs")
        page.get_by_role("button", name="Start the set").click()
        page.fill("#judge-rater", "ann")
        page.press("#judge-rater", "Enter")
        page.fill("#judge-pool-depth", "5")
        expect(page.locator('#judge-pool-pipelines option[value="eval/search_docs_dbsf.yaml"]')).to_have_count(1)
        page.select_option("#judge-pool-pipelines", ["eval/search_docs_dbsf.yaml"])
        page.get_by_label("Judge a pool of rankings").check()

        page.fill("#judge-query-text", QUERIES["q2"])
        page.keyboard.press("Enter")
        rows = results_of(page, "q1")
        line = page.locator("#judge-query-line .pool-line")
        expect(line).to_contain_text("a pool of 4 rankings", timeout=30_000)
        expect(line).to_contain_text("served, eval/search_docs_dbsf.yaml, dense only, BM25 only")
        pooled = rows.evaluate_all("rows => rows.map(r => r.dataset.judged)")
        assert 5 < len(pooled) == len(set(pooled)) <= 20  # more than one ranking's top 5, each result once
        assert page.locator("#judge-results .rank-change").count() == 0  # a rank move would tell the served rank
        page.keyboard.press("Escape")
        for index in range(len(pooled)):  # ann: the first two relevant, the rest not
            page.keyboard.press("2" if index < 2 else "0")
            page.keyboard.press("j")
        page.get_by_role("button", name="Save").click()
        expect(page.locator("#judge-save-status")).to_contain_text(f"{len(pooled)} grades", timeout=30_000)
        expect(page.locator("#judge-agreement")).to_contain_text("Graded by ann")
        kept = json.loads((folder / "judging.json").read_text())["test"]["q1"]
        assert set(kept["pooled"]) == set(pooled)
        assert all(
            rankings and set(rankings) <= {"served", "eval/search_docs_dbsf.yaml", "dense only", "BM25 only"}
            for rankings in kept["pooled"].values()
        )
        assert len(kept["ranking"]) == 5 and set(kept["ranking"]) <= set(pooled)  # the served top 5, as seen
        assert {j for j, r in kept["pooled"].items() if "served" in r} == set(kept["ranking"])

        # bob sees none of ann's grades, and grades the same results: agreeing on all but the second.
        page.fill("#judge-rater", "bob")
        page.press("#judge-rater", "Enter")
        expect(page.locator("#judge-unjudged")).to_have_text(f"{len(pooled)} of {len(pooled)} unjudged")
        assert [pressed(rows.nth(i)) for i in range(len(pooled))] == [""] * len(pooled)
        rows.first.focus()
        for index in range(len(pooled)):
            page.keyboard.press("2" if index < 1 else "0")
            page.keyboard.press("j")
        page.get_by_role("button", name="Save").click()
        expect(page.locator("#judge-agreement")).to_contain_text(
            f"ann and bob both graded {len(pooled)} results", timeout=30_000
        )
        screenshot(page, "judge-pooled", full_page=True)
    judging = json.loads((folder / "judging.json").read_text())["test"]
    raters = judging["q1"]["raters"]
    assert {judged: set(given) for judged, given in raters.items()} == {judged: {"ann", "bob"} for judged in pooled}
    [pair] = agreement({"q1": raters})
    assert pair.results == len(pooled) and pair.agreed == round((len(pooled) - 1) / len(pooled), 4)
    assert qrels(folder)["q1"] == {judged: raters[judged]["bob"] for judged in pooled}  # the last grade given
