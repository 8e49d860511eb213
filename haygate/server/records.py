"""Records any client can open: each result of a ranked tool carries an MCP `resource_link` to its record,
`haygate://<collection>/<id>`, and `resources/read` of that URI answers the record's documents in order (its
chunks or sections, without vectors), within the server's tenant. A client without MCP Apps opens what it found
with a standard read; a view's `open-record` does the same for a view, tracing the result through its call.

The id is the result's own (a section's, a CV's): a section or chunk id opens the record it was cut from.
"""

import json
from typing import Any
from urllib.parse import quote, unquote

import anyio
from fastmcp.resources import Resource, TextResource
from fastmcp.server.providers import Provider
from mcp_types import ResourceLink
from pydantic import AnyUrl

from haygate.server.apps import ranked_list
from haygate.server.service import GatewayService

SCHEME = "haygate://"
MIME = "application/json"
LABEL_FIELDS = ("title", "name", "summary", "key")  # what names a result in a client's list of links


def record_uri(collection: str, record_id: str) -> str:
    return f"{SCHEME}{quote(collection, safe='')}/{quote(record_id, safe='')}"


class RecordLinks:
    """The links a ranked tool's answer carries, one per result, in rank order."""

    def __init__(self, service: GatewayService) -> None:
        self.service = service
        self._gateway: Any = None  # the gateway the cache below was read from; a reload brings another
        self._collections: dict[str, str | None] = {}  # tool -> the collection its pipeline reads

    def links(self, name: str, result: dict[str, Any]) -> list[ResourceLink]:
        declaration = self.service.listing().get(name)
        ranked = ranked_list(declaration) if declaration is not None else None
        generation = self.service.current()
        if ranked is None or generation is None:
            return []
        collection = self._collection(generation.gateway, name)
        if collection is None:
            return []
        links = []
        for row in result.get(ranked.key) or []:
            found = row.get(ranked.id_field) if isinstance(row, dict) else None
            if found is None:
                continue
            label = next((str(row[k]) for k in LABEL_FIELDS if row.get(k) not in (None, "")), str(found))
            links.append(
                ResourceLink(
                    type="resource_link", uri=record_uri(collection, str(found)), name=label[:200], mime_type=MIME
                )
            )
        return links

    def _collection(self, gateway: Any, name: str) -> str | None:
        if gateway is not self._gateway:
            self._gateway, self._collections = gateway, {}
        if name not in self._collections:
            self._collections[name] = collection_read_by(gateway, name)
        return self._collections[name]


def collection_read_by(gateway: Any, name: str) -> str | None:
    """The collection a tool's pipeline reads (the first, for a pipeline that reads several)."""
    from haygate.gateway.tool import collection_store

    runtime = gateway.tools.get(name)
    if runtime is None or runtime.pipeline is None:
        return None
    read = {id(s) for _, part in runtime.pipeline.pipeline.walk() if (s := collection_store(part)) is not None}
    return next((c for c, store in sorted(gateway.loader.stores().items()) if id(store) in read), None)


class Records(Provider):
    """`resources/read` of `haygate://<collection>/<id>`: the whole record, as the server's tools read it."""

    def __init__(self, service: GatewayService) -> None:
        super().__init__()
        self.service = service

    async def _get_resource(self, uri: str, version: Any = None) -> Resource | None:
        if not uri.startswith(SCHEME):
            return None
        collection, _, wanted = uri[len(SCHEME) :].partition("/")
        if not collection or not wanted:
            return None
        generation = await self.service.ready_generation()
        generation.enter()
        try:
            found = await anyio.to_thread.run_sync(
                whole_record, generation.gateway, unquote(collection), unquote(wanted)
            )
        finally:
            generation.leave()
        if found is None:
            return None
        return TextResource(
            uri=AnyUrl(uri),
            name=f"{found['collection']}/{found['record_id']}",
            mime_type=MIME,
            text=json.dumps(found, default=str),
        )


def whole_record(gateway: Any, collection: str, wanted: str) -> dict[str, Any] | None:
    """The record `wanted` names (its own id, or a section's or chunk's), every document of it in order, within
    the tenant the served tools read; None when no tool reads the collection or the record is not there."""
    from haygate.server.replies import listed

    readers = [runtime for name, runtime in gateway.tools.items() if collection_read_by(gateway, name) == collection]
    store = gateway.loader.stores().get(collection)
    if not readers or store is None:
        return None
    # Every tenant condition of every tool that reads it: a record is opened only where all of them would find it.
    tenant = list({json.dumps(c, sort_keys=True): c for r in readers for c in r.server_filters()}.values())

    def documents(record_id: str) -> list[Any]:
        mine = [
            {"field": "id", "operator": "==", "value": record_id},
            {"field": "meta.record_id", "operator": "==", "value": record_id},
        ]
        return store.meta_by_filter(
            {"operator": "AND", "conditions": [{"operator": "OR", "conditions": mine}, *tenant]}
        )

    found = documents(wanted)
    if not found:
        return None
    record_id = str(found[0].meta.get("record_id") or found[0].id)
    if record_id != wanted:  # a section or chunk: the record it was cut from
        found = documents(record_id)
    found.sort(key=lambda d: (d.meta.get("chunk_index", -1), d.id))
    return {
        "collection": collection,
        "record_id": record_id,
        "matched": wanted,
        "documents": [listed(document, None) for document in found],
    }
