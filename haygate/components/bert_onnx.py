"""The ONNX graph of a BERT encoder, written from its `config.json` and `model.safetensors` with onnx's own API.

The ONNX runtime then makes its model with onnx, safetensors and numpy alone: no torch, no transformers, in
about a second (loading torch and tracing the model with `torch.onnx.export` takes several). The graph is BERT's
forward pass as `transformers` computes it (`BertModel`, absolute positions, post-LayerNorm, exact erf
GELU, an additive attention mask of `finfo(float32).min`) and ends at `last_hidden_state`, with the inputs
and dynamic axes `torch.onnx.export` gave it, so the runtime reads either. Pooling stays in the runtime.

Anything else a checkpoint could be (another `model_type`, another activation, relative positions, a
decoder, unexpected weights, a precision numpy does not read) is refused with `UnsupportedModelError`
naming it: the caller then exports with torch. The tests hold the result to sentence-transformers' own
embeddings of the packaged model.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from haygate.errors import ConfigurationError

OPSET = 17  # the first with LayerNormalization, which ONNX Runtime fuses with the residual Add before it
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"
MASKED = float(np.finfo(np.float32).min)  # what transformers adds to the scores of padding tokens
EXTERNAL_DATA_BYTES = 1_800_000_000  # weights above this go beside the graph: a protobuf holds 2 GB at most
IGNORED_WEIGHTS = ("pooler.", "embeddings.position_ids", "embeddings.token_type_ids")  # read by no output here

# transformers' BertConfig defaults, for the fields a config.json may leave out.
DEFAULTS: dict[str, Any] = {
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "hidden_act": "gelu",
    "layer_norm_eps": 1e-12,
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "vocab_size": 30522,
    "position_embedding_type": "absolute",
}


class UnsupportedModelError(ConfigurationError):
    """A checkpoint this builder does not write; the message names what, so the caller can export with torch."""


@dataclass(frozen=True)
class BertShape:
    """What varies between BERT checkpoints, read from `config.json` and checked."""

    layers: int
    hidden: int
    heads: int
    intermediate: int
    layer_norm_eps: float
    vocab: int
    positions: int
    token_types: int

    @classmethod
    def read(cls, config: dict[str, Any]) -> "BertShape":
        """The shape of a `model_type: bert` config, or `UnsupportedModelError` naming the field that differs."""
        values = {**DEFAULTS, **{k: v for k, v in config.items() if v is not None}}
        refusals = {
            "model_type": (config.get("model_type"), "bert"),
            "hidden_act": (values["hidden_act"], "gelu"),
            "position_embedding_type": (values["position_embedding_type"], "absolute"),
            "is_decoder": (bool(values.get("is_decoder", False)), False),
            "add_cross_attention": (bool(values.get("add_cross_attention", False)), False),
        }
        for key, (found, supported) in refusals.items():
            if found != supported:
                msg = f"config.json has {key} {found!r}; the ONNX graph builder writes {key} {supported!r} only"
                raise UnsupportedModelError(msg, {key: found})
        shape = cls(
            layers=int(values["num_hidden_layers"]),
            hidden=int(values["hidden_size"]),
            heads=int(values["num_attention_heads"]),
            intermediate=int(values["intermediate_size"]),
            layer_norm_eps=float(values["layer_norm_eps"]),
            vocab=int(values["vocab_size"]),
            positions=int(values["max_position_embeddings"]),
            token_types=int(values["type_vocab_size"]),
        )
        if shape.hidden % shape.heads or min(shape.layers, shape.heads, shape.token_types) < 1:
            msg = (
                f"config.json has hidden_size {shape.hidden}, num_attention_heads {shape.heads}, "
                f"num_hidden_layers {shape.layers} and type_vocab_size {shape.token_types}; the builder needs at "
                "least one layer, head and token type, and a hidden size the heads divide"
            )
            raise UnsupportedModelError(msg, {"config": str(config.get("_name_or_path", ""))})
        return shape

    def weight_shapes(self) -> dict[str, tuple[int, ...]]:
        """Every weight the encoder reads, by its name in a `BertModel` checkpoint, with its shape."""
        h, i = self.hidden, self.intermediate
        shapes: dict[str, tuple[int, ...]] = {
            "embeddings.word_embeddings.weight": (self.vocab, h),
            "embeddings.position_embeddings.weight": (self.positions, h),
            "embeddings.token_type_embeddings.weight": (self.token_types, h),
            "embeddings.LayerNorm.weight": (h,),
            "embeddings.LayerNorm.bias": (h,),
        }
        for n in range(self.layers):
            layer = f"encoder.layer.{n}"
            for name, rows, columns in [
                ("attention.self.query", h, h),
                ("attention.self.key", h, h),
                ("attention.self.value", h, h),
                ("attention.output.dense", h, h),
                ("intermediate.dense", i, h),
                ("output.dense", h, i),
            ]:
                shapes[f"{layer}.{name}.weight"] = (rows, columns)
                shapes[f"{layer}.{name}.bias"] = (rows,)
            for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
                shapes[f"{layer}.{norm}.weight"] = (h,)
                shapes[f"{layer}.{norm}.bias"] = (h,)
        return shapes


def read_weights(folder: Path, shape: BertShape) -> dict[str, np.ndarray]:
    """The encoder's weights as float32, named as in `BertModel` (a `bert.` prefix dropped, TF-era LayerNorm
    `gamma`/`beta` renamed); `UnsupportedModelError` for a missing, misshapen or unexpected one.
    """
    from safetensors.numpy import load_file

    index = folder / "model.safetensors.index.json"
    if index.is_file():
        files = sorted(set(json.loads(index.read_text())["weight_map"].values()))
    elif (folder / "model.safetensors").is_file():
        files = ["model.safetensors"]
    else:
        msg = f"'{folder.name}' has no model.safetensors; the ONNX graph builder reads safetensors weights only"
        raise UnsupportedModelError(msg, {"model": str(folder)})
    raw: dict[str, np.ndarray] = {}
    for file in files:
        try:
            raw.update(load_file(str(folder / file)))
        except (TypeError, ValueError) as error:  # bfloat16, which numpy has no type for
            msg = f"'{folder.name}/{file}' cannot be read as numpy arrays ({error}); the builder reads float weights"
            raise UnsupportedModelError(msg, {"model": str(folder)}) from error
    # A checkpoint with a task head (BertForMaskedLM, ...) keeps the encoder under `bert.`: the rest is heads.
    prefix = "bert." if any(key.startswith("bert.") for key in raw) else ""
    renamed = {".gamma": ".weight", ".beta": ".bias"}
    weights: dict[str, np.ndarray] = {}
    for key, value in raw.items():
        if not key.startswith(prefix):
            continue
        name = key.removeprefix(prefix)
        for old, new in renamed.items():
            if "LayerNorm" in name and name.endswith(old):
                name = name[: -len(old)] + new
        if not name.startswith(IGNORED_WEIGHTS):
            weights[name] = value
    expected = shape.weight_shapes()
    unexpected = sorted(set(weights) - set(expected))
    missing = sorted(set(expected) - set(weights))
    if unexpected or missing:
        msg = (
            f"'{folder.name}' is not the BERT encoder its config.json describes: "
            f"missing {missing[:3] or 'none'}, unexpected {unexpected[:3] or 'none'}"
        )
        raise UnsupportedModelError(msg, {"missing": missing, "unexpected": unexpected})
    for name, wanted in expected.items():
        found = weights[name]
        if found.shape != wanted or found.dtype.kind != "f":
            msg = f"weight '{name}' is {found.dtype}{list(found.shape)}; config.json implies float{list(wanted)}"
            raise UnsupportedModelError(msg, {"weight": name})
    return {name: weights[name].astype(np.float32, copy=False) for name in expected}


class _Graph:
    """Nodes and initializers being written, each output named after the op that makes it."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0

    def constant(self, name: str, value: np.ndarray) -> str:
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, *inputs: str, **attributes: Any) -> str:
        self._count += 1
        output = f"{op_type.lower()}_{self._count}"
        self.nodes.append(
            helper.make_node(op_type, list(inputs), [output], name=f"{op_type}_{self._count}", **attributes)
        )
        return output

    def linear(self, x: str, weights: dict[str, np.ndarray], name: str, scale: float = 1.0) -> str:
        """`x @ W.T + b` of a torch `Linear` (W stored transposed, so the MatMul needs no Transpose)."""
        w = self.constant(f"{name}.weight", (weights[f"{name}.weight"].T * np.float32(scale)).astype(np.float32))
        b = self.constant(f"{name}.bias", (weights[f"{name}.bias"] * np.float32(scale)).astype(np.float32))
        return self.op("Add", self.op("MatMul", x, w), b)

    def layer_norm(self, x: str, weights: dict[str, np.ndarray], name: str, eps: float) -> str:
        scale = self.constant(f"{name}.weight", weights[f"{name}.weight"])
        bias = self.constant(f"{name}.bias", weights[f"{name}.bias"])
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)


def bert_graph(shape: BertShape, weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    """BERT's encoder: embeddings, then per layer self-attention and a GELU feed-forward block, each added to
    its input and layer-normalised (Devlin et al. 2019, "BERT", sec. 3; Vaswani et al. 2017, sec. 3.2).
    """
    g = _Graph()
    eps = shape.layer_norm_eps
    ids, mask, types = INPUTS

    def table(name: str) -> str:
        return g.constant(f"embeddings.{name}.weight", weights[f"embeddings.{name}.weight"])

    def scalar(name: str, value: float) -> str:
        return g.constant(name, np.array(value, np.float32))

    def ints(name: str, *values: int) -> str:
        return g.constant(name, np.array(values, np.int64))

    # Embeddings: word + position (rows 0..tokens-1 of the table) + token type, layer-normalised.
    tokens = g.op("Slice", g.op("Shape", ids), ints("one", 1), ints("two", 2))
    positions = g.op("Slice", table("position_embeddings"), ints("zero", 0), tokens, "zero")
    words = g.op("Gather", table("word_embeddings"), ids)
    kinds = g.op("Gather", table("token_type_embeddings"), types)
    x = g.layer_norm(g.op("Add", g.op("Add", words, kinds), positions), weights, "embeddings.LayerNorm", eps)
    # The attention mask as a bias added to the scores of every head: 0 for a token, float32's min for padding.
    one = scalar("one_f", 1.0)
    padding = g.op("Sub", one, g.op("Cast", mask, to=TensorProto.FLOAT))
    bias = g.op("Unsqueeze", g.op("Mul", padding, scalar("masked", MASKED)), ints("axes_1_2", 1, 2))
    split = ints("split_heads", 0, 0, shape.heads, shape.hidden // shape.heads)  # 0: this dimension as it is
    merge = ints("merge_heads", 0, 0, shape.hidden)
    half, sqrt2 = scalar("half", 0.5), scalar("sqrt2", float(np.sqrt(2.0)))

    def heads(x: str, name: str, perm: list[int], scale: float = 1.0) -> str:
        """[batch, tokens, hidden] -> [batch, heads, tokens, head size] (keys: [..., head size, tokens])."""
        return g.op("Transpose", g.op("Reshape", g.linear(x, weights, name, scale), split), perm=perm)

    for n in range(shape.layers):
        layer = f"encoder.layer.{n}"
        # softmax(Q K^T / sqrt(d) + mask) V per head, the 1/sqrt(d) folded into the query projection.
        query = heads(x, f"{layer}.attention.self.query", [0, 2, 1, 3], (shape.hidden // shape.heads) ** -0.5)
        key = heads(x, f"{layer}.attention.self.key", [0, 2, 3, 1])
        value = heads(x, f"{layer}.attention.self.value", [0, 2, 1, 3])
        scores = g.op("Softmax", g.op("Add", g.op("MatMul", query, key), bias), axis=-1)
        context = g.op("Reshape", g.op("Transpose", g.op("MatMul", scores, value), perm=[0, 2, 1, 3]), merge)
        attended = g.linear(context, weights, f"{layer}.attention.output.dense")
        x = g.layer_norm(g.op("Add", attended, x), weights, f"{layer}.attention.output.LayerNorm", eps)
        # Feed-forward with exact GELU, x * (1 + erf(x / sqrt 2)) / 2, written as ONNX Runtime fuses it.
        inner = g.linear(x, weights, f"{layer}.intermediate.dense")
        gelu = g.op("Mul", g.op("Mul", inner, g.op("Add", g.op("Erf", g.op("Div", inner, sqrt2)), one)), half)
        out = g.linear(gelu, weights, f"{layer}.output.dense")
        x = g.layer_norm(g.op("Add", out, x), weights, f"{layer}.output.LayerNorm", eps)
    g.nodes.append(helper.make_node("Identity", [x], [OUTPUT], name="Identity_output"))
    axes = ["batch", "tokens"]
    graph = helper.make_graph(
        g.nodes,
        "bert_encoder",
        [helper.make_tensor_value_info(name, TensorProto.INT64, axes) for name in INPUTS],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, [*axes, shape.hidden])],
        g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="haygate")
    model.ir_version = 8  # what torch.onnx.export wrote for opset 17; ONNX Runtime reads it
    return model


def write_bert_onnx(folder: Path, path: Path) -> BertShape:
    """Write `path` (an ONNX model ending at `last_hidden_state`) from the BERT checkpoint in `folder`, checked
    with `onnx.checker` (full check: types and shapes inferred through the whole graph).
    """
    config_file = folder / "config.json"
    if not config_file.is_file():
        msg = f"'{folder.name}' has no config.json; the ONNX graph builder reads a transformers checkpoint"
        raise UnsupportedModelError(msg, {"model": str(folder)})
    shape = BertShape.read(json.loads(config_file.read_text()))
    model = bert_graph(shape, read_weights(folder, shape))
    external = sum(t.ByteSize() for t in model.graph.initializer) > EXTERNAL_DATA_BYTES
    onnx.save_model(model, str(path), save_as_external_data=external, location=f"{path.name}.data")
    onnx.checker.check_model(str(path), full_check=True)
    return shape
