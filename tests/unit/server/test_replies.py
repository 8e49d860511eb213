"""What the REST routes answer, as models (`haygate.server.replies`), and the OpenAPI document derived from
them: every reference resolves, every reply the service makes fits its published schema. On a service that
has not started (its catalog only: nothing loads)."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from haygate.errors import NotFoundError, envelope
from haygate.ingest.report import IngestReport, Refusal
from haygate.server.openapi import openapi_document
from haygate.server.replies import REF_TEMPLATE, Error, Health, schemas
from haygate.server.service import GatewayService
from tests.support.project import make_home, make_settings


@pytest.fixture
def service(tmp_path: Path) -> Iterator[GatewayService]:
    catalog_only = GatewayService(make_settings(tmp_path / "data", home=make_home(tmp_path), tier="admin"))
    yield catalog_only
    catalog_only.close()


def references(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"]
        for value in node.values():
            yield from references(value)
    elif isinstance(node, list):
        for value in node:
            yield from references(value)


def test_every_reference_of_the_document_resolves(service: GatewayService) -> None:
    document = openapi_document(service)
    components = document["components"]["schemas"]
    found = set(references(document))
    assert found and all(ref.startswith(REF_TEMPLATE.format(model="")) for ref in found)
    assert {ref.rsplit("/", 1)[1] for ref in found} <= set(components)
    assert {"Error", "IngestReport", "Refusal", "Deleted", "Reloaded", "Health"} <= set(components)


def test_a_write_publishes_the_ingest_report_and_a_delete_its_reply(service: GatewayService) -> None:
    document = openapi_document(service)
    records = document["paths"]["/api/collections/entities/records"]
    assert records["put"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/IngestReport"
    }
    assert records["delete"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Deleted"
    }
    assert records["put"]["responses"]["404"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }


def test_the_report_schema_names_every_field_a_write_answers_with_a_description() -> None:
    report = IngestReport("entities", records=2, added=1, refused=[Refusal(1, "request:2", "no id")], seconds=0.5)
    published = schemas()["IngestReport"]
    assert published["required"] == list(report.as_dict())
    assert all(field.get("description") for field in published["properties"].values())
    assert schemas()["Refusal"]["required"] == list(report.as_dict()["refused"][0]) == ["index", "where", "reason"]


def test_the_report_answered_reads_back_as_the_report() -> None:
    report = IngestReport("entities", records=1, refused=[Refusal(0, "request:1", "no id")], seconds=1.23456)
    answered = report.as_dict()
    assert answered["seconds"] == 1.235  # a duration, to the millisecond
    assert TypeAdapter(IngestReport).validate_python(answered) == IngestReport(
        "entities", records=1, refused=[Refusal(0, "request:1", "no id")], seconds=1.235
    )


def test_the_health_the_service_reports_fits_its_model(service: GatewayService) -> None:
    health = service.health()
    assert Health.model_validate(health).model_dump(exclude_unset=True) == health


def test_the_error_envelope_fits_its_model() -> None:
    status, body = envelope(NotFoundError("no such path: /x", {"path": "/x"}))
    assert status == 404 and Error.model_validate(body).model_dump() == body


def test_every_field_of_every_reply_says_what_it_is() -> None:
    """The OpenAPI document is made from these models: a field without a description is a blank in it."""
    from haygate.server import replies

    models = [replies.Error, replies.ErrorBody, replies.Deleted, replies.Reloaded, replies.RefusedReload]
    models.append(replies.Health)
    blank = [f"{m.__name__}.{name}" for m in models for name, field in m.model_fields.items() if not field.description]
    assert blank == []
