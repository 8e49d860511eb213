"""Collection schemas: every bundled one loads; problems name the file."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from haygate.errors import ConfigurationError, NotFoundError
from haygate.ingest.schema import StorageSettings, load_schema, schema_for

COLLECTIONS = Path(__file__).resolve().parents[3] / "configs" / "collections"


@pytest.mark.parametrize("path", sorted(COLLECTIONS.glob("*.yaml")), ids=lambda p: p.stem)
def test_bundled_schemas_load(path: Path) -> None:
    schema = schema_for(path.stem, COLLECTIONS)
    assert schema.name == path.stem and schema.indexing_pipeline == f"indexing/{path.stem}.yaml"


def test_unknown_collection_lists_the_known(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="unknown collection 'nope'; declared: beir, candidates"):
        schema_for("nope", COLLECTIONS)


def test_problems_name_the_file(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("name: y\nrecord: {content: text}\n")
    with pytest.raises(ConfigurationError, match="does not match its file name"):
        schema_for("x", tmp_path)
    (tmp_path / "bad.yaml").write_text("name: bad\nrecord: {content: text, content_template: '{{ t }}'}\n")
    with pytest.raises(
        ConfigurationError, match=r"bad\.yaml: invalid collection schema: line 2: record: .*exactly one"
    ):
        load_schema(tmp_path / "bad.yaml")
    (tmp_path / "typo.yaml").write_text("name: typo\nrecord: {content: text}\npayload_index:\n  meta.x: keyword\n")
    with pytest.raises(
        ConfigurationError, match=r"typo\.yaml: .*line 3: unknown key 'payload_index'; did you mean 'payload_indexes'\?"
    ):
        load_schema(tmp_path / "typo.yaml")


def test_storage_settings_refuse_what_edge_does_not_offer() -> None:
    with pytest.raises(ValidationError, match="vector_memory"):
        StorageSettings.model_validate({"vector_memory": "pinned"})
    with pytest.raises(ValidationError, match="quantization"):
        StorageSettings.model_validate({"quantization": "int4"})
