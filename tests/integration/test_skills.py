"""What the server tells an agent: the project's skill (`skill://<name>/...`) and the `initialize` instructions,
through the real FastMCP client, over the ingested samples; and a project of one's own (`haygate init`)."""

import hashlib
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from fastmcp import Client, FastMCP
from fastmcp.skills import SkillsClientExtension

from haygate.cli import main
from haygate.gateway.instructions import skill_name
from haygate.gateway.runtime import Gateway
from haygate.server.mcp import build_mcp
from haygate.server.service import GatewayService
from haygate.settings import Settings
from haygate.templates import init_project
from tests.support.docs import block
from tests.support.project import PROJECT, make_settings
from tests.support.serving import mcp_for

pytestmark = pytest.mark.integration
NAME = skill_name(PROJECT.name)  # the example project's skill: named after its folder
CALL = re.compile(r"```json\n\s*(\{.*?\})\n\s*```", re.DOTALL)  # an example call in a skill file


@pytest.fixture(scope="module")
def server(gateway: Gateway) -> FastMCP:
    """The sample gateway's MCP server with its skill written once for the module (its example calls run on
    the data): the tests read it, as clients do, without paying for it each."""
    mcp = mcp_for(gateway)

    async def first_read() -> None:
        async with Client(mcp) as client:
            await client.read_resource(f"skill://{NAME}/SKILL.md")

    anyio.run(first_read)
    return mcp


async def read(client: Client, uri: str) -> str:
    [content] = await client.read_resource(uri)
    text = getattr(content, "text", None)
    assert isinstance(text, str), uri
    return text


def calls_in(text: str) -> list[dict[str, Any]]:
    return [json.loads(found) for found in CALL.findall(text)]


async def test_the_skill_and_one_file_per_tool_are_listed_and_read(server: FastMCP, gateway: Gateway) -> None:
    async with Client(server) as client:
        listed = {str(resource.uri) for resource in await client.list_resources()}
        main_file = await read(client, f"skill://{NAME}/SKILL.md")
        tool_file = await read(client, f"skill://{NAME}/tools/search_docs.md")
    assert {f"skill://{NAME}/SKILL.md", *(f"skill://{NAME}/tools/{tool}.md" for tool in gateway.tools)} <= listed
    front = yaml.safe_load(main_file.split("---\n")[1])
    assert front["name"] == NAME and "search_docs" in front["description"]
    title = gateway.tools["search_docs"].declaration.title
    assert tool_file.startswith(f"# {title}\n\nTool name: `search_docs`.") and "## Parameters" in tool_file


async def test_the_skill_names_every_tool_and_the_filter_values_the_data_holds(
    server: FastMCP, gateway: Gateway
) -> None:
    async with Client(server) as client:
        main_file = await read(client, f"skill://{NAME}/SKILL.md")
    assert all(f"`{tool}`" in main_file for tool in gateway.tools)
    docs = gateway.loader.store("docs")
    versions = docs.distinct_values("meta.version")
    assert versions and all(f"`{json.dumps(v)}`" in main_file for v in versions)
    assert f"`{json.dumps(docs.distinct_values('meta.source_name')[0])}`" in main_file


async def test_filter_values_are_the_tenants_own(server: FastMCP, gateway: Gateway) -> None:
    """The samples' knowledge holds two tenants: the skill shows the topics of the one this server serves."""
    async with Client(server) as client:
        tool_file = await read(client, f"skill://{NAME}/tools/get_decisions.md")
    knowledge = gateway.loader.store("knowledge")
    own = {"field": "meta.project_id", "operator": "==", "value": "default"}
    scope = {
        "operator": "AND",
        "conditions": [own, {"field": "meta.extraction_type", "operator": "==", "value": "decision"}],
    }
    shown = re.findall(r"`\"([a-z-]+)\"` \(\d+\)", tool_file)
    assert shown and set(shown) <= set(knowledge.distinct_values("meta.topics", scope))
    others = set(knowledge.distinct_values("meta.topics")) - set(knowledge.distinct_values("meta.topics", scope))
    assert not others & set(shown)


async def test_every_example_call_in_the_skill_finds_something(server: FastMCP) -> None:
    async with Client(server) as client:
        main_file = await read(client, f"skill://{NAME}/SKILL.md")
        docs_file = await read(client, f"skill://{NAME}/tools/search_docs.md")
        memory_file = await read(client, f"skill://{NAME}/tools/memory_search.md")
        calls = calls_in(main_file) + calls_in(docs_file) + calls_in(memory_file)
        assert {c["tool"] for c in calls} >= {"search_docs", "memory_search", "search_by_skills"}
        assert any(set(c["arguments"]) > {"query"} for c in calls if c["tool"] == "search_docs")  # a filter example
        assert any(c["arguments"].get("offset") for c in calls)  # a second page
        for call in calls:
            result = await client.call_tool(call["tool"], call["arguments"])
            rows = next(v for v in result.structured_content.values() if isinstance(v, list))
            assert rows, call
            if call["tool"] == "search_docs" and set(call["arguments"]) > {"query"}:  # a query with a filter value:
                titles = [row["title"] for row in rows]  # the query is a heading the filtered records hold
                assert any(call["arguments"]["query"] in title for title in titles), (call, titles)


async def test_the_skills_extension_lists_the_skill_with_its_files(server: FastMCP) -> None:
    async with Client(server, extensions=[SkillsClientExtension()]) as client:
        [skill] = await client.list_skills()
        main_file = await read(client, skill.uri)
    assert skill.uri == f"skill://{NAME}/SKILL.md" and skill.frontmatter.name == NAME
    assert isinstance(skill.resources, list)
    [entry] = [r for r in skill.resources if r.uri == skill.uri]
    assert entry.digest == f"sha256:{hashlib.sha256(main_file.encode()).hexdigest()}"


async def test_initialize_carries_instructions_naming_the_tools(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway), mode="legacy") as client:
        result = client.initialize_result
    assert result is not None and result.instructions is not None
    assert f"skill://{NAME}/SKILL.md" in result.instructions
    assert all(f"- {tool} [" in result.instructions for tool in gateway.tools)
    assert "- docs: Documentation sections" in result.instructions
    assert len(result.instructions) < 3000  # read on every turn: short


# -- a project of one's own ------------------------------------------------------------------------------------


@pytest.fixture
def own_project(tmp_path: Path, samples_copy: Path) -> Settings:
    """A `haygate init` project (its docs search alone) over a copy of the ingested samples: its docs collection
    is the template's samples, as `haygate ingest --samples` would index them."""
    init_project(tmp_path / "team-docs", "minimal")
    return make_settings(samples_copy, home=tmp_path / "team-docs")


@pytest.fixture
def own_service(own_project: Settings) -> Iterator[GatewayService]:
    service = GatewayService(own_project)
    service.start(background=False)
    yield service
    service.close()


@pytest.mark.budget(20, "starts a server of a new project (loads its pipeline and model) and writes its skill")
async def test_a_new_project_serves_its_own_skill(own_service: GatewayService) -> None:
    async with Client(build_mcp(own_service)) as client:
        main_file = await read(client, "skill://team-docs/SKILL.md")
        calls = calls_in(main_file)
        found = await client.call_tool(calls[0]["tool"], calls[0]["arguments"])
        instructions = client.instructions
    assert "name: team-docs" in main_file and "`search_docs`" in main_file and "memory_search" not in main_file
    assert '`"1.1"`' in main_file  # a version its data holds
    assert found.structured_content["results"]
    assert instructions is not None and "- search_docs [docs]:" in instructions


@pytest.mark.budget(30, "starts a server of a new project, then reloads it (each loads the pipeline and model)")
async def test_a_reload_with_a_changed_declaration_changes_skill_instructions_and_title(
    own_project: Settings, own_service: GatewayService
) -> None:
    mcp = build_mcp(own_service)
    async with Client(mcp) as client:
        before = await read(client, "skill://team-docs/SKILL.md")
    declaration_file = own_project.tools_dir / "search_docs.yaml"
    declaration = yaml.safe_load(declaration_file.read_text())
    declaration["description"] = "Search the team's handbook: policies, on-call rules and release steps, by section."
    declaration["title"] = "Search the handbook"
    declaration_file.write_text(yaml.safe_dump(declaration, sort_keys=False))
    reloaded = await anyio.to_thread.run_sync(own_service.reload)
    assert reloaded.swapped, reloaded.problems
    async with Client(mcp, extensions=[SkillsClientExtension()]) as client:
        after = await read(client, "skill://team-docs/SKILL.md")
        rewritten = await files_against_manifest(client, "team-docs")  # each rewritten file with its new digest
        tool_file = await read(client, "skill://team-docs/tools/search_docs.md")
        [tool] = [listed for listed in await client.list_tools() if listed.name == "search_docs"]
        instructions = client.instructions
    assert "team's handbook" not in before and "Search the team's handbook" in after
    assert tool_file.startswith("# Search the handbook\n")
    assert rewritten["skill://team-docs/SKILL.md"] == after
    assert tool.title == "Search the handbook"
    assert instructions is not None and "Search the team's handbook" in instructions


@pytest.mark.budget(20, "loads a new project's tool and model to run the skill's example calls")
def test_the_skill_command_prints_and_writes_the_skill(
    own_project: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documented block, run in a new project (its data a copy of the ingested samples)."""
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(own_project.data_dir))
    monkeypatch.chdir(own_project.home)
    for line in block("haygate skill").text.strip().splitlines():
        assert main([*shlex.split(line.split("#")[0])[1:]]) == 0, line
    printed = capsys.readouterr().out
    assert printed.startswith("---\nname: team-docs\n") and "## Calls that find something" in printed
    written = own_project.home / "skill"
    assert sorted(p.relative_to(written).as_posix() for p in written.rglob("*.md")) == [
        "SKILL.md",
        "tools/search_docs.md",
    ]
    assert (written / "SKILL.md").read_text() == printed


async def files_against_manifest(client: Client, name: str) -> dict[str, str]:
    """Every file of the skill read back and checked against its digest in the skill's listing, as a host does
    (SEP-2640); the files by URI."""
    [skill] = [s for s in await client.list_skills() if s.frontmatter.name == name]
    files = {}
    for entry in skill.resources:
        text = await read(client, entry.uri)
        assert entry.digest == f"sha256:{hashlib.sha256(text.encode()).hexdigest()}", entry.uri
        files[entry.uri] = text
    return files


@pytest.mark.budget(30, "a new project's server: its skill made, a write, the skill made again after it")
async def test_a_write_that_changes_what_the_skill_lists_remakes_it_with_new_digests_and_says_so(
    own_service: GatewayService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp.client.subscriptions import listen
    from mcp.shared.subscriptions import ResourcesListChanged

    from haygate.server import skills

    monkeypatch.setattr(skills, "SETTLE_SECONDS", 0.1)
    record = {"id": "runbook:quokka", "title": "Quokka runbook", "text": "# Quokkas\n\nFeed them.", "version": "9.9"}
    async with Client(build_mcp(own_service), extensions=[SkillsClientExtension()]) as client:
        before = await files_against_manifest(client, "team-docs")
        async with listen(client.session, resources_list_changed=True) as changes:
            await own_service.write(lambda gateway: gateway.writer.upsert("docs", [record]))
            with anyio.fail_after(20):
                assert isinstance(await anext(changes), ResourcesListChanged)  # told once the skill was made again
        after = await files_against_manifest(client, "team-docs")
    main_file = "skill://team-docs/SKILL.md"
    assert '`"9.9"`' not in before[main_file] and '`"9.9"`' in after[main_file]  # the new version is listed
