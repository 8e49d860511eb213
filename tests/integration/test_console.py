"""The console at /console over real HTTP, on a live service over a copy of the ingested samples (admin tier,
so its writes and deletes are open), with a real evaluation report of the tiny judged set beside it: first
its routes, then the page in a real headless Chromium (Debian's, driven by Playwright, as the API page's
test does). `HAYGATE_SCREENSHOT_DIR` keeps a screenshot of each panel."""

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from haygate.cli import main
from haygate.serve.http import build_http_app
from haygate.server.service import GatewayService
from tests.support.browser import browser_page, screenshot
from tests.support.project import PROJECT, make_settings
from tests.support.serving import serve

pytestmark = [pytest.mark.integration, pytest.mark.slow]
TOKEN = "console-token-7"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
TINY = PROJECT / "tests" / "fixtures" / "tiny_beir"
NOTES = (
    '{"key": "console-upload-1", "summary": "Quokka migration playbook for the billing cluster", '
    '"content": "Move the quokka billing cluster one shard at a time.", "tags": ["ops"]}\n'
    '{"summary": "a memory without its key"}\n'
    "not json at all\n"
)
# A section with what a result's Markdown can hold, and a memory that tries to run something: rendered, not run
# (a docs section's inline HTML is read as its text when it is ingested; a memory's summary is kept as written).
RENDERED = """---
source: rendering
---
# Quokka handbook

## Quokka tokens

Set the **quokka** token with `HAYGATE_TOKEN` first; the [deployment guide](https://example.org/deploy) says more.

```bash
export HAYGATE_TOKEN=quokka-secret
```
"""
HOSTILE = {
    "key": "quokka-trap",
    "summary": (
        "Quokka trap <script>window.__pwned = 'script'</script> <img src=x onerror=\"window.__pwned = 'img'\"> "
        "[a quokka link](javascript:window.__pwned='link') <a href=\"javascript:window.__pwned='a'\">anchor</a>"
    ),
}


@pytest.fixture(scope="module")
def eval_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real report: `haygate eval` of the tiny judged set, lexical against dense, as a user writes one."""
    root = tmp_path_factory.mktemp("eval-out")
    data = tmp_path_factory.mktemp("eval-data")
    os.environ["HAYGATE_DATA_DIR"] = str(data)  # the CLI reads its settings from the environment
    try:
        pipelines = PROJECT / "pipelines" / "eval"
        argv = ["eval", "--dataset", str(TINY), "--split", "train", "--out", str(root / "tiny"), "--no-progress"]
        argv += ["--pipeline", str(pipelines / "beir_lexical.yaml"), "--pipeline", str(pipelines / "beir_dense.yaml")]
        assert main(argv) == 0
    finally:
        del os.environ["HAYGATE_DATA_DIR"]
    return root


@pytest.fixture(scope="module")
def service(
    ingested_samples: Path, eval_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GatewayService]:
    from tests.support.cache import copy_tree

    data = copy_tree(ingested_samples, tmp_path_factory.mktemp("console") / "data")
    settings = make_settings(data, tier="admin", token=TOKEN, eval_dir=eval_dir)
    started = GatewayService(settings)
    started.start(background=False)
    yield started
    started.close()


@pytest.fixture(scope="module")
def url(service: GatewayService) -> Iterator[str]:
    yield from serve(build_http_app(service, token=TOKEN))


@pytest.fixture(scope="module")
def http(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, headers=AUTH, timeout=60) as client:
        yield client


# -- the routes ------------------------------------------------------------------------------------


def test_the_page_is_public_and_its_routes_need_the_token(url: str) -> None:
    page = httpx.get(f"{url}/console")
    assert page.status_code == 200 and "/console/static/console.js" in page.text
    assert httpx.get(f"{url}/console/static/console.js").status_code == 200
    refused = httpx.get(f"{url}/api/console/tools")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "UNAUTHORIZED"


def test_tools_come_with_their_schemas_and_example_calls(http: httpx.Client) -> None:
    info = http.get("/api/console/info").json()
    assert info["tier"] == "admin" and info["token_required"] and info["delete_allowed"]
    tools = {tool["name"]: tool for tool in http.get("/api/console/tools").json()["tools"]}
    docs = tools["search_docs"]
    assert docs["input_schema"]["properties"]["max_results"]["maximum"] == 50
    assert docs["examples"][0] == {"query": "how do I serialize a pipeline to YAML"}
    assert "upsert_records" in tools  # the admin tier's write tools are served here


def test_a_call_says_why_each_result_ranks_where_it_does(http: httpx.Client) -> None:
    arguments = {"query": "how do NOT filters work", "version": "1.1", "max_results": 3}
    answer = http.post("/api/console/call", json={"tool": "search_docs", "arguments": arguments}).json()
    rows, provenance = answer["result"]["results"], answer["provenance"]
    assert len(rows) == len(provenance) == 3 and answer["elapsed_ms"] > 0
    assert answer["collections"] == ["docs"]  # where the Judge tab reads a result's whole section
    for row, why in zip(rows, provenance, strict=True):
        assert why["id"] == row["id"] and why["fused_score"] == pytest.approx(row["scores"]["fused_score"])
        assert why["dense_rank"] == row["scores"]["dense_rank"] and why["sparse_rank"] == row["scores"]["sparse_rank"]
    assert provenance[0]["sparse_rank"] == 1  # the NOT section: first by BM25
    # The same call over REST answers the same rows: the console adds the provenance, nothing else.
    rest = http.post("/api/tools/search_docs", json=arguments).json()
    assert [r["id"] for r in rest["results"]] == [r["id"] for r in rows]
    # A tool whose rows carry no scores of their own still gets them drawn.
    memories = http.post("/api/console/call", json={"tool": "memory_search", "arguments": {"query": "redis"}}).json()
    assert memories["provenance"] and all(p is not None and p["fused_score"] for p in memories["provenance"])


def test_a_bad_value_is_refused_with_the_field_it_names(http: httpx.Client) -> None:
    body = {"tool": "search_docs", "arguments": {"query": "x", "max_results": 99}}
    refused = http.post("/api/console/call", json=body)
    assert refused.status_code == 422
    [problem] = refused.json()["error"]["details"]["errors"]
    assert problem["field"] == "max_results" and "50" in problem["message"]


def test_another_pipeline_in_the_tools_place(http: httpx.Client) -> None:
    pipelines = http.get("/api/console/pipelines").json()["pipelines"]
    assert "eval/search_docs_dbsf.yaml" in pipelines and not any(p.startswith("indexing/") for p in pipelines)
    arguments = {"query": "bearer token"}
    body = {"tool": "search_docs", "arguments": arguments, "pipeline": "eval/search_docs_dbsf.yaml"}
    variant = http.post("/api/console/call", json=body).json()
    assert variant["pipeline"] == "eval/search_docs_dbsf.yaml" and variant["result"]["results"]
    for wrong in (7, ["eval"]):
        typed = http.post("/api/console/call", json={**body, "pipeline": wrong})
        assert typed.status_code == 422 and typed.json()["error"]["details"]["field"] == "pipeline"
    escape = http.post("/api/console/call", json={**body, "pipeline": "../configs/tools/search_docs.yaml"})
    assert escape.status_code == 422 and escape.json()["error"]["details"]["field"] == "pipeline"
    misfit = http.post("/api/console/call", json={**body, "pipeline": "tools/search.yaml"})
    assert misfit.status_code == 422 and "cannot run in place of 'search_docs'" in misfit.json()["error"]["message"]


def test_collections_are_browsed_page_by_page_and_record_by_record(http: httpx.Client) -> None:
    first = http.get("/api/console/collections/docs/documents", params={"limit": 40}).json()
    assert first["total"] > 40 and len(first["documents"]) == 40 and first["next"]
    second = http.get("/api/console/collections/docs/documents", params={"limit": 40, "after": first["next"]}).json()
    seen = [d["id"] for d in first["documents"] + second["documents"]]
    assert len(seen) == len(set(seen)) == 40 + len(second["documents"])
    chunked = next(d for d in first["documents"] + second["documents"] if d["record_id"] != d["id"])
    record = http.get(f"/api/console/collections/docs/records/{chunked['record_id']}").json()
    assert chunked["id"] in {d["id"] for d in record["documents"]}
    missing = http.get("/api/console/collections/docs/records/no-such-record")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    assert http.get("/api/console/collections/docs/documents", params={"after": "x"}).status_code == 422


def test_markdown_and_csv_files_go_through_the_write_route(http: httpx.Client) -> None:
    note = "---\nsource: console\n---\n# Walrus handbook\n\n## Feeding\n\nWalruses eat clams at dawn.\n"
    written = http.put(
        "/api/collections/docs/records",
        params={"filename": "walrus.md"},
        content=note,
        headers={"content-type": "text/markdown"},
    ).json()
    assert written["added"] == 1 and written["chunks"] >= 1
    found = http.post("/api/tools/search_docs", json={"query": "what do walruses eat", "source": "console"}).json()
    assert found["results"][0]["title"].startswith("Walrus handbook")
    unnamed = http.put("/api/collections/docs/records", content=note, headers={"content-type": "text/markdown"})
    assert unnamed.status_code == 422 and unnamed.json()["error"]["details"]["field"] == "filename"
    rows = "key,summary,content\ncsv-1,Otter census,Otters counted by the river\ncsv-2,,\n"
    table = http.put("/api/collections/memories/records", content=rows, headers={"content-type": "text/csv"}).json()
    assert table["added"] == 1 and len(table["refused"]) == 1 and table["refused"][0]["where"].endswith(":3")


def test_evaluation_reports_are_listed_and_read(http: httpx.Client) -> None:
    [report] = http.get("/api/console/evaluations").json()["reports"]
    assert report["name"] == "tiny" and report["variants"] == ["beir_lexical", "beir_dense"] and report["has_plot"]
    full = http.get("/api/console/evaluations/report", params={"name": "tiny"}).json()
    assert set(full["variants"][1]["per_query"]["ndcg@10"]) == set(full["queries"])
    assert full["variants"][1]["judged_at_k"]["k"] == 10 and set(full["variants"][1]["condensed"]) >= {"ndcg@10"}
    assert {"p_holm", "p_randomization", "effect_size"} <= set(full["comparisons"][0])
    plot = http.get("/api/console/evaluations/plot", params={"name": "tiny"})
    assert plot.headers["content-type"] == "image/png" and plot.content.startswith(b"\x89PNG")
    outside = http.get("/api/console/evaluations/report", params={"name": "../../etc"})
    assert outside.status_code == 422


# -- the page in a browser -------------------------------------------------------------------------


@pytest.mark.budget(120, "a real Chromium drives every panel: calls, an upload with its embedding, a report")
def test_every_panel_in_a_browser(url: str, http: httpx.Client, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    markdown = {"content-type": "text/markdown"}
    written = http.put("/api/collections/docs/records", params={"filename": "q.md"}, content=RENDERED, headers=markdown)
    assert written.json()["added"] == 1
    assert http.put("/api/collections/memories/records", json=[HOSTILE]).json()["added"] == 1
    with browser_page(url) as page:
        page.goto(f"{url}/console")
        page.fill("#token", TOKEN)
        page.reload()  # the token is kept for the tab

        # Tools: a call from the form, with provenance; then a bad value, its error beside its field.
        page.select_option("#tool-select", "search_docs")
        page.fill("[name=query]", "how do NOT filters work")
        page.fill("[name=version]", "1.1")
        page.get_by_role("button", name="Call").click()
        first = page.locator("#results li.result").first
        expect(first.locator(".result-title")).to_contain_text("NOT", timeout=30_000)
        expect(first.locator(".provenance")).to_contain_text("BM25 #1")
        assert "curl -s" in page.locator("#curl").inner_text()
        screenshot(page, "console-tools", full_page=True)
        page.fill("[name=max_results]", "99")
        page.get_by_role("button", name="Call").click()
        expect(page.locator('.field-error[data-for="max_results"]')).to_contain_text("50", timeout=30_000)
        expect(page.locator("[name=max_results]")).to_have_attribute("aria-invalid", "true")

        # A result's Markdown: its snippet's link and code as elements, the query's mark inside the text's bold;
        # its whole text, the code block too. A text that tries to run something shows its tags as text.
        page.fill("[name=max_results]", "5")
        page.fill("[name=version]", "")
        page.fill("[name=source]", "rendering")
        page.fill("[name=query]", "quokka token")
        page.get_by_role("button", name="Call").click()
        rendered = page.locator("#results li.result", has_text="Quokka tokens")
        excerpt = rendered.locator(".result-excerpt")
        expect(excerpt.locator("strong > mark")).to_have_text("quokka", timeout=30_000)
        expect(excerpt.locator("code").first).to_contain_text("HAYGATE_")
        link = excerpt.locator('a[href="https://example.org/deploy"]')
        expect(link).to_have_text("deployment guide")
        expect(link).to_have_attribute("rel", "noopener noreferrer")
        expect(link).to_have_attribute("target", "_blank")
        rendered.get_by_text("Whole text").click()
        expect(rendered.locator(".result-text pre > code")).to_contain_text("export HAYGATE_TOKEN=quokka-secret")
        expect(rendered.locator(".result-text strong")).to_have_text("quokka")
        screenshot(page, "console-tools-markdown", full_page=True)
        page.select_option("#tool-select", "memory_search")
        page.fill("[name=query]", "quokka trap")
        page.get_by_role("button", name="Call").click()
        trap = page.locator("#results li.result", has_text="quokka-trap").locator(".result-excerpt")
        shown = "Quokka trap <script>window.__pwned = 'script'</script> <img src=x"
        expect(trap).to_contain_text(shown, timeout=30_000)
        expect(trap).to_contain_text("[a quokka link](javascript:window.__pwned='link') <a href=")
        results = page.locator("#results")
        assert results.locator("script, img, [onerror]").count() == 0
        assert results.locator('a[href^="javascript" i]').count() == 0
        page.wait_for_timeout(300)  # an image's error would have fired by now
        assert page.evaluate("window.__pwned") is None

        # Compare: the tool and its DBSF variant side by side.
        page.get_by_role("tab", name="Compare").click()
        page.select_option("#compare-tool", "search_docs")
        page.select_option("#compare-pipeline", "eval/search_docs_dbsf.yaml")
        page.fill("#compare-query", "bearer token")
        page.get_by_role("button", name="Compare").click()
        expect(page.locator("#compare-right li").first).to_be_visible(timeout=30_000)
        assert page.locator("#compare-right .rank-change").count() >= 1
        expect(page.locator("#compare-left .compare-excerpt mark").first).to_be_visible()  # the snippet, rendered
        screenshot(page, "console-compare", full_page=True)

        # Collections: browse, then a JSONL upload whose record a search then finds.
        page.get_by_role("tab", name="Collections").click()
        expect(page.locator('#collections tr[data-collection="memories"]')).to_be_visible(timeout=30_000)
        page.locator('#collections tr[data-collection="docs"]').click()
        expect(page.locator("#documents tbody tr").first).to_be_visible(timeout=30_000)
        upload = tmp_path / "notes.jsonl"
        upload.write_text(NOTES)
        page.select_option("#upload-collection", "memories")
        page.set_input_files("#upload-files", str(upload))
        page.locator("#upload").click()
        expect(page.locator("#upload-report")).to_contain_text("added 1", timeout=60_000)
        assert page.locator("#upload-report li.refusal").count() == 2
        screenshot(page, "console-collections", full_page=True)
        page.get_by_role("tab", name="Tools").click()
        page.select_option("#tool-select", "memory_search")
        page.fill("[name=query]", "quokka migration")
        page.get_by_role("button", name="Call").click()
        expect(page.locator("#results li.result").first).to_contain_text("Quokka", timeout=30_000)

        # Evaluations: the report opens with its tables, wins and losses, and plot.
        page.get_by_role("tab", name="Evaluations").click()
        page.locator('a[data-report="tiny"]').click()
        expect(page.locator("#report-view table.metrics")).to_contain_text("beir_dense", timeout=30_000)
        expect(page.locator("#report-view table.comparisons")).to_be_visible()
        expect(page.locator("#report-view table.metrics thead")).to_contain_text("judged@10")
        expect(page.locator("#report-view table.metrics thead")).to_contain_text("(default / condensed)")
        expect(page.locator("#report-view table.comparisons thead")).to_contain_text("Holm p")
        expect(page.locator("#report-view table.comparisons thead")).to_contain_text("p (randomization)")
        # the fixture's judging.json: two raters of four results (the Judge tab records them so)
        expect(page.locator("#report-view .report-agreement")).to_contain_text(
            "Raters ann and bob graded 4 results alike 50% of the time: Cohen's weighted kappa"
        )
        page.wait_for_function("document.querySelector('#report-plot')?.naturalWidth > 0", timeout=30_000)
        screenshot(page, "console-evaluations", full_page=True)

        # Live: the calls made above, counted per tool.
        page.get_by_role("tab", name="Live").click()
        expect(page.locator("#live-tools")).to_contain_text("search_docs", timeout=30_000)
        screenshot(page, "console-live", full_page=True)
