"""Records any client can open (`haygate.server.records`): a ranked tool's results each link to their record,
and `resources/read` of the link answers the whole record, within the server's tenant; through the real
FastMCP client, declaring nothing, over the ingested samples."""

import json

import pytest
from fastmcp import Client
from fastmcp.exceptions import McpError

from haygate.gateway.runtime import Gateway
from haygate.server.records import record_uri
from tests.support.serving import mcp_for

pytestmark = pytest.mark.integration


async def test_each_result_links_to_its_record_and_the_link_opens_it_whole(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        answer = await client.call_tool("search_docs", {"query": "bearer token", "max_results": 3})
        results = answer.structured_content["results"]  # type: ignore[index]
        links = [block for block in answer.content if block.type == "resource_link"]
        [read] = await client.read_resource(links[0].uri)
    assert [str(link.uri) for link in links] == [record_uri("docs", row["id"]) for row in results]
    assert links[0].name == results[0]["title"]
    record = json.loads(read.text)  # type: ignore[union-attr]
    assert record["collection"] == "docs" and record["matched"] == results[0]["id"]
    documents = record["documents"]
    assert len(documents) > 1 and results[0]["id"] in {d["id"] for d in documents}  # the record, not the section
    assert {d["record_id"] for d in documents} == {record["record_id"]}
    assert all("embedding" not in d["meta"] for d in documents)


async def test_a_link_to_nothing_or_to_another_tenants_record_opens_nothing(gateway: Gateway) -> None:
    knowledge = gateway.loader.store("knowledge")
    others = knowledge.meta_by_filter({"field": "meta.project_id", "operator": "!=", "value": "default"})
    assert others  # the samples hold a second tenant's extractions
    async with Client(mcp_for(gateway)) as client:
        for uri in (record_uri("docs", "nowhere.md"), record_uri("knowledge", others[0].id), "haygate://nothing/x"):
            with pytest.raises(McpError, match="not found"):
                await client.read_resource(uri)
