"""The running gateway: served at once from the catalog, built in the background, reloaded while serving,
written to. On a home whose only tools are `search` (no model runs) and the admin tools."""

import functools
import json
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
import yaml

from haygate.components.response_formatter import ResponseFormatter
from haygate.errors import ConfigurationError, InvalidRequestError, NotFoundError, UnavailableError
from haygate.server.service import GatewayService
from haygate.settings import Settings
from tests.support.project import ENTITY, make_home, make_settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path / "data", home=make_home(tmp_path), tier="admin", startup_timeout=60.0)


@pytest.fixture
def service(settings: Settings) -> Iterator[GatewayService]:
    started = GatewayService(settings)
    yield started
    started.close()


def test_the_catalog_is_served_before_anything_loads(settings: Settings) -> None:
    service = GatewayService(settings.model_copy(update={"startup_timeout": 0.05}))
    assert service.state == "starting" and sorted(service.listing()) == ["delete_records", "search", "upsert_records"]
    assert service.health()["status"] == "starting"
    with pytest.raises(UnavailableError, match="starting") as caught:
        anyio.run(service.call, "search", {"query": "x"})
    assert caught.value.details["retry_after"] == 5
    with pytest.raises(NotFoundError, match="unknown tool 'nope'"):
        anyio.run(service.call, "nope", {})


def test_a_call_waits_for_the_background_start(service: GatewayService) -> None:
    """A call waits for the tools to be built, not for every tool's warm-up: that follows its answer."""
    service.start(grace=30.0)
    result = anyio.run(service.call, "search", {"query": "zebra"})
    assert result["results"] == [] and "is empty" in result["metadata"]["message"]
    deadline = time.monotonic() + 60
    while service.state != "ready" and time.monotonic() < deadline:  # long before the grace: the call started it
        time.sleep(0.05)
    assert service.state == "ready"


def test_writes_say_what_happened_to_each_record(service: GatewayService) -> None:
    service.start()
    no_id = {key: value for key, value in ENTITY.items() if key != "entity_id"}
    first = anyio.run(service.write, lambda g: g.writer.upsert("entities", [ENTITY, no_id, {"title": "T"}, "text"]))
    assert (first["added"], first["updated"], first["unchanged"]) == (1, 0, 0)
    assert [(r["index"], r["reason"]) for r in first["refused"]] == [
        (1, "missing id field(s) entity_id; the record has: " + ", ".join(sorted(no_id))),
        (2, "field 'entity_type' is required"),
        (3, "expected a JSON object, got str"),
    ]
    again = anyio.run(service.write, lambda g: g.writer.upsert("entities", [ENTITY, {**ENTITY, "entity_id": "bug:2"}]))
    assert (again["added"], again["unchanged"]) == (1, 1)
    changed = anyio.run(service.write, lambda g: g.writer.upsert("entities", [{**ENTITY, "title": "Quokka banner"}]))
    assert changed["updated"] == 1
    found = anyio.run(service.call, "search", {"query": "quokka"})
    assert [r["entity_id"] for r in found["results"]] == [1]
    deleted = anyio.run(service.write, lambda g: g.writer.delete("entities", ["bug:1", "bug:9"]))
    assert deleted == {"collection": "entities", "deleted": 1, "points": 1, "missing": ["bug:9"]}
    with pytest.raises(NotFoundError, match="unknown collection 'nope'"):
        anyio.run(service.write, lambda g: g.writer.upsert("nope", [ENTITY]))


def test_the_admin_tools_write_through_the_same_path(service: GatewayService) -> None:
    service.start()
    added = anyio.run(service.call, "upsert_records", {"collection": "entities", "records": [ENTITY]})
    assert added["added"] == 1
    assert service.listing()["upsert_records"].read_only is False
    gone = anyio.run(service.call, "delete_records", {"collection": "entities", "ids": ["bug:1"]})
    assert gone["deleted"] == 1
    with pytest.raises(InvalidRequestError):
        anyio.run(service.call, "delete_records", {"collection": "entities", "ids": []})


def test_a_valid_change_is_swapped_in_and_announced(service: GatewayService, settings: Settings) -> None:
    service.start()
    service.wait_ready()
    heard: list[str] = []
    service.on_tools_changed(lambda: heard.append("changed"))
    path = settings.tools_dir / "search.yaml"
    declaration = yaml.safe_load(path.read_text())
    declaration["description"] = "Full-text search over the crowd-testing entities, changed while serving."
    path.write_text(yaml.safe_dump(declaration))
    result = service.reload()
    assert result.swapped and heard == ["changed"]
    assert service.listing()["search"].description.endswith("changed while serving.")
    assert anyio.run(service.call, "search", {"query": "zebra"})["results"] == []


def test_a_broken_change_keeps_the_old_tools_serving(service: GatewayService, settings: Settings) -> None:
    service.start()
    service.wait_ready()
    heard: list[str] = []
    service.on_tools_changed(lambda: heard.append("changed"))
    (settings.tools_dir / "search.yaml").write_text("name: search\ndescription: [unclosed\n")
    result = service.reload()
    assert not result.swapped and heard == [] and "invalid YAML" in result.problems[0]
    assert "search" in service.listing()
    assert anyio.run(service.call, "search", {"query": "zebra"})["results"] == []


def test_a_refused_reload_is_named_in_health_and_to_a_client_of_the_tool_it_declares(
    service: GatewayService, settings: Settings
) -> None:
    service.start()
    service.wait_ready()
    declaration = yaml.safe_load((settings.tools_dir / "search.yaml").read_text())
    declaration.update(name="search_again", pipeline="tools/nowhere.yaml")
    (settings.tools_dir / "search_again.yaml").write_text(yaml.safe_dump(declaration))
    assert not service.reload().swapped
    health = service.health()
    assert health["status"] == "degraded" and health["tools"] == sorted(service.listing())
    [problem] = health["reload_refused"]["problems"]
    assert "search_again" in problem and "nowhere.yaml" in problem and health["problems"] == [problem]
    with pytest.raises(UnavailableError) as caught:
        anyio.run(service.call, "search_again", {"query": "zebra"})
    assert "declared but not served" in caught.value.message and "nowhere.yaml" in caught.value.message
    with pytest.raises(NotFoundError):  # a name nothing declares is unknown, as before
        anyio.run(service.call, "search_nowhere", {"query": "zebra"})
    (settings.tools_dir / "search_again.yaml").unlink()
    assert service.reload().swapped
    assert service.health()["status"] == "ready" and "reload_refused" not in service.health()


def test_at_start_one_bad_declaration_never_takes_the_others_down(settings: Settings) -> None:
    (settings.tools_dir / "broken.yaml").write_text(json.dumps({"name": "broken", "description": "too short"}))
    service = GatewayService(settings)
    service.start(background=False)
    assert service.state == "ready" and "search" in service.listing() and "broken" not in service.listing()
    assert any("broken.yaml" in p for p in service.health()["problems"])
    assert service.health()["status"] == "degraded"  # serving, with a tool left out
    service.close()
    with pytest.raises(Exception, match=r"broken\.yaml"):
        GatewayService(settings, strict=True)


def test_a_tool_whose_warm_up_call_fails_on_its_configuration_is_left_out_and_health_says_so(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    @functools.wraps(ResponseFormatter.run)  # the same sockets: Haystack reads them from the signature
    def misconfigured(self: ResponseFormatter, *args: object, **kwargs: object) -> None:
        raise ConfigurationError("formatter: the model at /srv/models/x cannot load")

    monkeypatch.setattr(ResponseFormatter, "run", misconfigured)  # fails at the first call, not at warm_up()
    service = GatewayService(settings)
    service.start(background=False)
    health = service.health()
    assert health["status"] == "degraded" and "search" not in health["tools"]
    [problem] = health["problems"]
    assert problem.startswith("tool 'search': its example call") and "cannot load" in problem
    with pytest.raises(UnavailableError, match="declared but not served"):
        anyio.run(service.call, "search", {"query": "zebra"})
    service.close()


def test_a_tool_left_out_at_start_is_served_once_its_file_is_fixed(settings: Settings) -> None:
    search = settings.tools_dir / "search.yaml"
    good = search.read_text()
    search.write_text(good + "pipeline: missing.yaml\n")
    service = GatewayService(settings.model_copy(update={"tier": "public"}))
    service.start(background=False)
    assert service.state == "ready" and service.listing() == {}  # served nothing, said why
    assert any("missing.yaml" in p for p in service.health()["problems"])
    search.write_text(good)
    assert service.reload().swapped and sorted(service.listing()) == ["search"]
    assert (service.health()["status"], service.health()["problems"]) == ("ready", [])
    service.close()


def test_the_warm_up_waits_for_a_lull_in_the_calls(service: GatewayService, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each tool's warm-up turn waits until no call has run for a quarter second, and no longer than
    `LULL_WAIT` under calls that never stop, so a client's next call does not queue behind it."""
    from haygate.server import service as module

    monkeypatch.setattr(module, "LULL_WAIT", 0.4)
    service.start(background=False)
    service._last_call_ended = time.monotonic()
    started = time.monotonic()
    service._lull()
    assert module.LULL <= time.monotonic() - started < module.LULL_WAIT
    generation = service.wait_ready()
    generation.enter()  # a call that runs on and on
    try:
        started = time.monotonic()
        service._lull()
        assert time.monotonic() - started >= module.LULL_WAIT
        service.health()  # an operator waits for `ready`: no more waiting for lulls
        started = time.monotonic()
        service._lull()
        assert time.monotonic() - started < module.LULL
    finally:
        generation.leave()
