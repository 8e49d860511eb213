"""What the MCP server tells an agent beyond `tools/list`: its instructions and the project's skill.

- **Instructions.** `initialize` (and `server/discover`) carry `GatewayService.instructions()`: what the server
  is for, each tool in one line and each collection it reads, read from the YAML alone so a starting server
  has them. A reload that swaps the tools in sets them anew: a client that connects afterwards gets the new
  ones (a stdio client, connected once, keeps the ones it got).
- **The skill** (`skill://<name>/SKILL.md` and `skill://<name>/tools/<tool>.md`), served by FastMCP's skills
  provider as resources and, for clients that speak the Skills extension, through `skills/list` and
  `skills/get`. FastMCP serves skills from a folder, so the server writes the generated files into a folder of
  its own. They are written when a client first asks for them and again whenever the served tools change (a
  reload, the end of the start): the example calls in them are run on the serving tools, which would cost
  every connection that never reads the skill. A host checks each file against the SHA-256 digest the skill's
  manifest gives (SEP-2640): FastMCP computes the digests from the files as they are on every listing, so a
  rewritten file comes with its new digest, and clients are told the resources changed (with the tools on a
  reload; alone when writes changed the filter values the skill lists, once they pause for `SETTLE_SECONDS`).
"""

import logging
import shutil
import tempfile
import threading
import uuid
import weakref
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from fastmcp import FastMCP
from fastmcp.resources.base import Resource
from fastmcp.resources.template import ResourceTemplate
from fastmcp.server.providers.skills import SkillsDirectoryProvider
from fastmcp.skills.extension import SkillsExtension
from fastmcp.skills.models import Skill as SkillEntry
from fastmcp.utilities.versions import VersionSpec
from mcp.server.context import ServerRequestContext

from haygate.gateway.declarations import ToolDeclaration
from haygate.server.service import GatewayService

if TYPE_CHECKING:
    from haygate.gateway.skill import Skill  # its module runs tools (Haystack): not loaded at start

logger = logging.getLogger(__name__)

SETTLE_SECONDS = 2.0  # after the last write, the skill is made again (its example calls run): not per write


class ProjectSkill(SkillsDirectoryProvider):
    """The project's generated skill, made again before a request when the served tools have changed since it
    was made. Its files live in a temp folder while the server runs (its lifespan): they are removed when it
    stops, and written again from the skill in memory if it serves again."""

    def __init__(self, service: GatewayService) -> None:
        folder = Path(tempfile.gettempdir()) / f"haygate-skill-{uuid.uuid4().hex}"
        super().__init__(folder, supporting_files="resources", experimental_skills=True)
        self.service = service
        self.folder = folder
        self._skill: Skill | None = None
        self._made_from: tuple[str, int, list[ToolDeclaration]] | None = None  # the tools and data it rests on
        self._on_disk = False
        self._writing = threading.Lock()
        self.on_changed: Callable[[], None] | None = None  # told when writes made the skill's files differ
        self._settling: threading.Timer | None = None
        weakref.finalize(self, shutil.rmtree, folder, True)  # a server dropped without stopping (a test)

    def _current(self) -> tuple[str, int, list[ToolDeclaration]]:
        return self.service.state, self.service.data_version, list(self.service.listing().values())

    def _fresh(self) -> bool:
        """The skill was made from the tools served now (the same declaration objects, in the same state: a
        reload, or the end of the start, makes new ones)."""
        made_from = self._made_from
        if made_from is None:
            return False
        state, version, declarations = self._current()
        return (
            made_from[:2] == (state, version)
            and len(made_from[2]) == len(declarations)
            and all(a is b for a, b in zip(made_from[2], declarations, strict=True))
        )

    def _written(self) -> bool:
        return self._on_disk and self._fresh()

    def _write(self) -> None:
        with self._writing:
            if self._written():
                return
            if self._skill is None or not self._fresh():
                made_from = self._current()
                self._skill, self._made_from = self.service.skill(), made_from
                logger.debug("made the skill '%s' (%d files)", self._skill.name, len(self._skill.files))
            self.folder.mkdir(mode=0o700, exist_ok=True)
            for stale in self.folder.iterdir():  # a renamed skill (HAYGATE_SKILL_NAME) leaves no old copy
                if stale.name != self._skill.name:
                    shutil.rmtree(stale, ignore_errors=True)
            self._skill.write(self.folder / self._skill.name)
            self._on_disk = True

    def data_changed(self) -> None:
        """After a write: once writes pause, make the skill again if one was made, and tell clients if its files
        changed (a filter value the data now holds, or no longer does)."""
        if self._skill is None:
            return  # nobody has read it: it is made when first asked for
        with self._writing:
            if self._settling is not None:
                self._settling.cancel()
            self._settling = threading.Timer(SETTLE_SECONDS, self._remake)
            self._settling.daemon = True
            self._settling.start()

    def _remake(self) -> None:
        before = dict(self._skill.files) if self._skill is not None else None
        try:
            self._write()
        except Exception:
            logger.exception("the skill could not be made again after a write")
            return
        if before is not None and self._skill is not None and self._skill.files != before and self.on_changed:
            self.on_changed()

    def _remove(self) -> None:
        with self._writing:
            shutil.rmtree(self.folder, ignore_errors=True)
            self._on_disk = False

    async def refresh(self) -> None:
        if not self._written():
            await anyio.to_thread.run_sync(self._write)

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await anyio.to_thread.run_sync(self._remove)

    # Every way in to the skill's files goes through `refresh` first.

    async def _list_resources(self) -> Sequence[Resource]:
        await self.refresh()
        return await super()._list_resources()

    async def _get_resource(self, uri: str, version: VersionSpec | None = None) -> Resource | None:
        await self.refresh()
        return await super()._get_resource(uri, version)

    async def _list_resource_templates(self) -> Sequence[ResourceTemplate]:
        await self.refresh()
        return await super()._list_resource_templates()

    async def _get_resource_template(self, uri: str, version: VersionSpec | None = None) -> ResourceTemplate | None:
        await self.refresh()
        return await super()._get_resource_template(uri, version)

    async def _list_skill_entries(self, context: ServerRequestContext[Any, Any]) -> Sequence[SkillEntry]:
        await self.refresh()
        return await super()._list_skill_entries(context)

    async def _get_skill_entry(self, uri: str, context: ServerRequestContext[Any, Any]) -> SkillEntry | None:
        await self.refresh()
        return await super()._get_skill_entry(uri, context)

    async def _skill_uris(self, uri: str | None = None) -> Sequence[str]:
        await self.refresh()
        return await super()._skill_uris(uri)


def serve_guidance(mcp: FastMCP, service: GatewayService, resources_changed: Callable[[], None]) -> None:
    """Instructions and the project's skill on `mcp`, kept up to date across reloads and writes;
    `resources_changed()` tells clients that the skill's files changed."""
    mcp.instructions = service.instructions()
    skill = ProjectSkill(service)
    skill.on_changed = resources_changed
    service.on_data_changed(skill.data_changed)
    mcp.add_provider(skill)
    mcp.add_extension(SkillsExtension(providers=[skill]))

    def retell() -> None:
        mcp.instructions = service.instructions()

    service.on_tools_changed(retell)
