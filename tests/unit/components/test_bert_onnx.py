"""The BERT encoder written as an ONNX graph from its weights: the packaged model's embeddings against
sentence-transformers', a small BERT of other dimensions against transformers' own `BertModel`, an export
and an embedding in a process where torch cannot be imported, and refusals that name what is unsupported."""

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from safetensors.numpy import save_file
from tokenizers import Tokenizer

from haygate.components.bert_onnx import INPUTS, OPSET, OUTPUT, BertShape, UnsupportedModelError, write_bert_onnx
from haygate.components.embedding_backends import MANIFEST, OnnxBackend, load_backend, onnx_export
from haygate.components.models import DEFAULT_MODEL, model_folder

PROJECT = Path(__file__).resolve().parents[3]
MIN_COSINE = 0.99999  # the graph against sentence-transformers on torch: float noise only
# Short, long (over the model's 256 tokens, so truncation is exercised), non-English, and together one batch
# of very different lengths, so most rows are padding.
TEXTS = [
    "hybrid retrieval",
    "How do NOT filters work in Haystack pipelines?",
    "Qdrant Edge runs Qdrant's engine in-process; writes go to a write-ahead log before segments. " * 20,
    "Die Suche kombiniert dichte Vektoren mit BM25 und sortiert die Treffer neu.",
    "Поиск объединяет плотные векторы и BM25.",
    "検索は密ベクトルとBM25を組み合わせます。",
    "Ünïcödé, accents et émojis 🚀 survivent à la tokenisation",
]
# In a process where torch (and what needs it) cannot be imported: export the packaged model into the cache
# `argv[1]`, embed `argv[3]` (JSON) with it, try the model in `argv[2]`, and report as one JSON line.
CHILD = """
import sys
sys.modules.update(torch=None, transformers=None, sentence_transformers=None)
import json
from pathlib import Path
from haygate.components.embedding_backends import MANIFEST, load_backend, onnx_export
from haygate.components.models import DEFAULT_MODEL
from haygate.errors import ConfigurationError

cache, refused, texts = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(sys.argv[3])
vectors = load_backend(DEFAULT_MODEL, "onnx", cache).embed(texts)
manifest = json.loads(next(cache.glob("*/" + MANIFEST)).read_text())
try:
    onnx_export(refused, cache, "refused")
    refusal = ""
except ConfigurationError as error:
    refusal = error.message
loaded = [name for name in ("torch", "transformers", "sentence_transformers") if sys.modules.get(name)]
print(json.dumps({"manifest": manifest, "vectors": vectors.tolist(), "refusal": refusal, "loaded": loaded}))
"""


def tiny_bert(
    folder: Path,
    config: dict[str, object] | None = None,
    prefix: str = "",
    extra: dict[str, np.ndarray] | None = None,
) -> Path:
    """A random BERT checkpoint of 2 layers (numpy weights, the packaged tokenizer), `config` over its
    config.json: enough for the builder and for sentence-transformers to load."""
    base = {"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4}
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({**base, "intermediate_size": 64, **(config or {})}))
    shape = BertShape.read({**base, "intermediate_size": 64})  # the changes in `config` change no weight
    rng = np.random.default_rng(0)
    weights = {prefix + k: rng.normal(0, 0.2, v).astype(np.float32) for k, v in shape.weight_shapes().items()}
    save_file({**weights, **(extra or {})}, str(folder / "model.safetensors"))
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        shutil.copy(model_folder(DEFAULT_MODEL) / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def packaged() -> OnnxBackend:
    """The packaged model's export as the test session made it (tests/conftest.py), which must be the graph."""
    backend = load_backend(DEFAULT_MODEL, "onnx", Path(os.environ["HAYGATE_MODEL_CACHE_DIR"]))
    assert isinstance(backend, OnnxBackend)
    assert json.loads((backend.folder / MANIFEST).read_text())["made_by"] == "onnx-graph"
    return backend


@pytest.mark.slow  # runs sentence-transformers and transformers on torch beside the graph
class TestBertGraph:
    def test_it_embeds_as_sentence_transformers_does(
        self, packaged: OnnxBackend, record_property: Callable[[str, object], None]
    ) -> None:
        untruncated = Tokenizer.from_file(str(model_folder(DEFAULT_MODEL) / "tokenizer.json"))
        untruncated.no_truncation()
        assert len(untruncated.encode(TEXTS[2]).ids) > 256
        expected = load_backend(DEFAULT_MODEL, "torch").model.encode(TEXTS)  # type: ignore[attr-defined]
        padded = packaged._run(TEXTS)  # one batch, padded to the longest text
        alone = np.concatenate([packaged._run([text]) for text in TEXTS])
        for got in (packaged.embed(TEXTS), padded, alone):
            a, b = got.astype(np.float64), expected.astype(np.float64)
            cosines = np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
            record_property("min_cosine", float(cosines.min()))
            print(f"min cosine to sentence-transformers: {cosines.min():.15f} (1 - {1 - cosines.min():.1e})")
            assert cosines.min() >= MIN_COSINE, cosines

    def test_a_bert_of_other_sizes_gives_transformers_hidden_states(self, tmp_path: Path) -> None:
        """Other layers, width, heads, feed-forward size and epsilon, weights under `bert.` beside a head,
        both token types, and padding: the hidden states of every real token match `BertModel`'s."""
        import torch
        from transformers import BertConfig, BertForMaskedLM, BertModel

        torch.manual_seed(0)
        config = BertConfig(
            vocab_size=500,
            hidden_size=48,
            num_hidden_layers=3,
            num_attention_heads=6,
            intermediate_size=80,
            layer_norm_eps=1e-5,
            max_position_embeddings=64,
            initializer_range=0.2,
        )
        BertForMaskedLM(config).save_pretrained(str(tmp_path / "bert"))
        write_bert_onnx(tmp_path / "bert", tmp_path / "model.onnx")
        rng = np.random.default_rng(0)
        ids = rng.integers(1, 500, (3, 20))
        types = rng.integers(0, 2, (3, 20))
        mask = np.ones_like(ids)
        mask[1, 12:] = mask[2, 5:] = 0
        import onnxruntime as ort

        session = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
        got = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})[0]
        with torch.no_grad():
            model = BertModel.from_pretrained(str(tmp_path / "bert"), add_pooling_layer=False).eval()
            tensors = [torch.from_numpy(a) for a in (ids, mask, types)]
            expected = model(input_ids=tensors[0], attention_mask=tensors[1], token_type_ids=tensors[2])
        real = mask.astype(bool)
        assert np.abs(got - expected.last_hidden_state.numpy())[real].max() < 1e-4

    def test_a_model_it_refuses_is_exported_with_torch(self, tmp_path: Path) -> None:
        folder = tiny_bert(tmp_path / "relu", {"hidden_act": "relu"})
        manifest = json.loads((onnx_export(folder, tmp_path / "models", "relu") / MANIFEST).read_text())
        assert manifest["made_by"] == "torch.onnx.export" and manifest["parity_min_cosine"] >= MIN_COSINE


@pytest.mark.slow  # starts a Python process
class TestWithoutTorch:
    def test_the_export_is_made_and_runs_where_torch_cannot_be_imported(
        self, packaged: OnnxBackend, tmp_path: Path
    ) -> None:
        refused = tiny_bert(tmp_path / "relu", {"hidden_act": "relu"})
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(tmp_path / "models"), str(refused), json.dumps(TEXTS)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=PROJECT,
        )
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout.splitlines()[-1])
        assert result["loaded"] == []
        assert result["manifest"]["made_by"] == "onnx-graph" and result["manifest"]["checked_by"] == "onnx.checker"
        assert "parity_min_cosine" not in result["manifest"]
        assert np.allclose(result["vectors"], packaged.embed(TEXTS), atol=1e-6)  # what the parity test checks
        assert "hidden_act 'relu'" in result["refusal"] and "torch is not installed" in result["refusal"]


class TestRefusals:
    @pytest.mark.parametrize(
        ("change", "named"),
        [
            ({"model_type": "roberta"}, "model_type 'roberta'"),
            ({"hidden_act": "gelu_new"}, "hidden_act 'gelu_new'"),
            ({"position_embedding_type": "relative_key"}, "position_embedding_type 'relative_key'"),
            ({"is_decoder": True}, "is_decoder True"),
            ({"num_attention_heads": 5}, "num_attention_heads 5"),
        ],
    )
    def test_an_unsupported_config_is_refused_naming_the_field(
        self, tmp_path: Path, change: dict[str, object], named: str
    ) -> None:
        folder = tiny_bert(tmp_path / "model", change)
        with pytest.raises(UnsupportedModelError, match=named):
            write_bert_onnx(folder, tmp_path / "model.onnx")
        assert not (tmp_path / "model.onnx").exists()

    def test_weights_the_config_does_not_describe_are_refused(self, tmp_path: Path) -> None:
        extra = {"encoder.layer.0.attention.self.distance_embedding.weight": np.zeros((3, 8), np.float32)}
        folder = tiny_bert(tmp_path / "model", extra=extra)
        with pytest.raises(UnsupportedModelError, match=r"unexpected .*distance_embedding"):
            write_bert_onnx(folder, tmp_path / "model.onnx")

    def test_a_checkpoint_without_safetensors_is_refused(self, tmp_path: Path) -> None:
        folder = tiny_bert(tmp_path / "model")
        (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
        with pytest.raises(UnsupportedModelError, match=r"no model\.safetensors"):
            write_bert_onnx(folder, tmp_path / "model.onnx")


class TestGraph:
    def test_it_has_the_inputs_and_output_the_runtime_reads(self, tmp_path: Path) -> None:
        """The names, types and dynamic axes `torch.onnx.export` gave, under a `bert.` prefix and a task head."""
        folder = tiny_bert(tmp_path / "model", prefix="bert.", extra={"cls.bias": np.zeros(3, np.float32)})
        write_bert_onnx(folder, tmp_path / "model.onnx")
        model = onnx.load(str(tmp_path / "model.onnx"))
        dims = [[d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in model.graph.input]
        assert [v.name for v in model.graph.input] == list(INPUTS) == ["input_ids", "attention_mask", "token_type_ids"]
        assert {v.type.tensor_type.elem_type for v in model.graph.input} == {onnx.TensorProto.INT64}
        assert dims == [["batch", "tokens"]] * 3
        (output,) = model.graph.output
        assert output.name == OUTPUT == "last_hidden_state"
        assert output.type.tensor_type.elem_type == onnx.TensorProto.FLOAT
        assert [d.dim_param or d.dim_value for d in output.type.tensor_type.shape.dim] == ["batch", "tokens", 32]
        assert [(o.domain, o.version) for o in model.opset_import] == [("", OPSET)]
