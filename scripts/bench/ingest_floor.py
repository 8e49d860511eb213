"""How far an ingest is from the model's own pace: the ingest of a documentation corpus into the `docs`
collection against two bare encodes with the same ONNX runtime, threads and batch size:

- `words_once`, the floor: the corpus' words encoded once, in full windows of 180 words (what the model reads
  of an English text), nothing repeated, nothing padded. An ingest that embeds each piece of text about once,
  in batches of like lengths, costs about this;
- `tokens_once`: the corpus' word pieces (by the model's tokenizer) encoded once, in full windows of 254 (what
  the model reads of any text). Where a text takes more than 1.4 pieces a word (code, identifiers, tables),
  180 words hold more than the model reads, and `words_once` counts less than reading every word once costs;
- `same_texts`: exactly the texts the ingest embedded (each chunk's title and content, read back), which
  shows what the ingest adds beyond its model calls.

The corpus is `--sections N` haystack-docs sections (../shared) or `--markdown DIR`, a folder of Markdown as
`haygate ingest docs DIR` reads it. The ingest runs first, into an empty data dir (models warmed up
beforehand, so no figure holds a model load). Prints JSON: the wall times, the ratios, texts/s, the ingest's
peak RSS, and the load average beside each.
Figures: docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench.ingest_floor --sections 1000` or `--markdown /path/to/docs`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import os

os.environ.setdefault("HAYGATE_KEEP_VECTORS", "0")  # timed ingests embed every text, as a first one does

# isort: split
import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from haygate.components.embedding_backends import load_backend
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from haygate.ingest.readers import read_records
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import load_average, peak_rss_mb

CORPUS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
FLOOR_WINDOW = 180  # words: what all-MiniLM-L6-v2 reads of a text (256 word pieces, ~1.35 a word)
TOKEN_WINDOW = 254  # word pieces: what it reads of any text, [CLS] and [SEP] aside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    corpus = parser.add_mutually_exclusive_group()
    corpus.add_argument("--sections", type=int, default=None, help="haystack-docs sections ingested (../shared)")
    corpus.add_argument("--markdown", type=Path, default=None, help="a folder of Markdown, ingested whole")
    args = parser.parse_args()
    if args.markdown is None and args.sections is None:
        args.sections = 1000
    if args.markdown is None and not CORPUS.exists():
        raise SystemExit(f"no haystack-docs sections at {CORPUS}: this benchmark needs ../shared")
    result: dict[str, Any] = {"corpus": str(args.markdown) if args.markdown else f"haystack-docs:{args.sections}"}
    with tempfile.TemporaryDirectory(prefix="haygate-floor-") as scratch:
        source = args.markdown
        if source is None:
            source = Path(scratch) / "sections.jsonl"
            with CORPUS.open() as lines, source.open("w") as out:
                for number, line in enumerate(lines):
                    if number == args.sections:
                        break
                    out.write(line)
        settings = Settings(
            home=PROJECT,
            data_dir=Path(scratch) / "data",
            token=None,
            tier="public",
            model_cache_dir=PROJECT / "data" / ".models",
        )
        with Loader(settings) as loader:
            collection = loader.collection("docs")
            collection.indexing.warm_up()
            before = load_average()
            report = ingest_files(collection, [source], progress=False, optimize=False)
            result["ingest"] = {
                "seconds": round(report.seconds, 1),
                "chunks": report.chunks,
                "chunks_per_s": round(report.chunks / report.seconds, 1),
                "peak_rss_mb": peak_rss_mb(),
                "load": {"before": before, "after": load_average()},
            }
            stored = collection.store.meta_by_filter(None)
        words = [w for record in read_records(source) for w in str((record.data or {}).get("text") or "").split()]
        windows = [" ".join(words[i : i + FLOOR_WINDOW]) for i in range(0, len(words), FLOOR_WINDOW)]
        texts = ["\n".join([*([str(d.meta["title"])] if d.meta.get("title") else []), d.content or ""]) for d in stored]
        backend = load_backend(MODEL, "onnx", PROJECT / "data" / ".models", max_batch=32)
        backend.embed(texts[:32])
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_str(backend.tokenizer.to_str())  # type: ignore[attr-defined]
        tokenizer.no_truncation()
        tokenizer.no_padding()
        pieces = tokenizer.encode(" ".join(words), add_special_tokens=False).ids
        decode = tokenizer.decode
        token_windows = [decode(pieces[i : i + TOKEN_WINDOW]) for i in range(0, len(pieces), TOKEN_WINDOW)]
        result["word_pieces"] = len(pieces)
        for name, encoded in (("words_once", windows), ("tokens_once", token_windows), ("same_texts", texts)):
            before = load_average()
            started = time.perf_counter()
            backend.embed(encoded, batch_size=32)
            bare = time.perf_counter() - started
            result[name] = {
                "seconds": round(bare, 1),
                "texts": len(encoded),
                "words": len(words) if name == "words_once" else sum(len(t.split()) for t in encoded),
                "load": {"before": before, "after": load_average()},
            }
        result["ingest_over_floor"] = round(report.seconds / result["words_once"]["seconds"], 2)
        result["ingest_over_tokens_once"] = round(report.seconds / result["tokens_once"]["seconds"], 2)
        result["ingest_over_same_texts"] = round(report.seconds / result["same_texts"]["seconds"], 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
