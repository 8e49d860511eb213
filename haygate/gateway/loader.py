"""The loader: the one reader of `Settings`, and the one way anything builds a pipeline.

It turns what settings and YAML describe into live objects:

- a **document store** per collection, on the backend the settings choose (Qdrant Edge under `data_dir`, a Qdrant
  server at `qdrant_url`, Haystack's in-memory store: `haygate.document_stores.backends`),
  built from the collection schema. A component that reads or writes data names its collection in YAML
  (`document_store: {collection: docs}`) and gets that store in `__init__`, as qdrant-haystack's
  components get theirs;
- **pipelines**, allow-listed types only, with init parameters typed `Path` resolved against the haygate
  home, the pipeline's declared interface (`inputs:` and `outputs:`, Hayhooks-style) checked against its
  real sockets, and errors that name the file and the component;
- **collections** for ingest: schema, store, indexing pipeline and a fingerprint of that configuration.

Stores a loader builds are closed with it (`with Loader(settings) as loader:`).
"""

import functools
import hashlib
import importlib
import importlib.util
import inspect
import json
import logging
import re
import sys
import threading
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from haystack import Document, Pipeline
from haystack.core.errors import DeserializationError, PipelineError
from haystack.core.serialization import DeserializationCallbacks

from haygate import yamlfile
from haygate.compat import fast_deepcopy, graph
from haygate.compat.schedule import Schedule
from haygate.components.models import needs_torch_extra, of_torch_extra, resolve_model
from haygate.document_stores import backends
from haygate.document_stores.backends import Place
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.errors import ConfigurationError, HaygateError
from haygate.extras import add_extra
from haygate.ingest.indexer import PREVIEW_PARAMETERS, Collection, embeds_densely
from haygate.ingest.schema import CollectionSchema, schema_for
from haygate.settings import Settings

logger = logging.getLogger(__name__)

# Haystack's own allowlist already admits `haystack` and `haystack_integrations`; we add our package and the
# project's own `components` package (its home's components/ folder), and nothing else.
PROJECT_COMPONENTS = "components"
ALLOWED_MODULES = ["haystack", "haystack_integrations", "haygate", PROJECT_COMPONENTS]
STORE_PARAMETER = "document_store"
HAYSTACK_COMPONENTS = ("haystack.components.", "haystack_integrations.components.")  # their `model` loads offline
# Components that keep derived model files (ONNX exports) get the deployment's folder unless YAML names one.
MODEL_CACHE_PARAMETER = "model_cache_dir"
ONE_SOURCE = "one_source"  # a retriever class's hook: its init parameters with one source alone (judging pools)
INTERFACE_KEYS = ("inputs", "outputs")
# What a pipeline file and each of its components may hold (Haystack's `Pipeline.from_dict` reads these and
# passes over anything else in silence).
PIPELINE_KEYS = (
    "components",
    "connections",
    "metadata",
    "max_runs_per_component",
    "connection_type_validation",
    *INTERFACE_KEYS,
)
COMPONENT_KEYS = ("type", "init_parameters")

Socket = tuple[str, str]


@dataclass(frozen=True)
class LoadedPipeline:
    """A pipeline and its declared interface: named inputs (each feeding one or more component sockets)
    and named outputs (one component socket each)."""

    path: Path
    pipeline: Pipeline
    inputs: dict[str, list[Socket]]
    outputs: dict[str, Socket]
    fingerprint: str
    optional: frozenset[str] = frozenset()  # inputs a tool may leave unset (those with defaults, when derived)

    def run(self, values: dict[str, Any], also: Socket | None = None) -> dict[str, Any]:
        """Named input values -> named output values; `also`, a component's output socket that is no declared
        output, is returned too, under its `component.socket` name (what an explained call shows)."""
        data: dict[str, dict[str, Any]] = {}
        for name, value in values.items():
            for component, socket in self.inputs[name]:
                data.setdefault(component, {})[socket] = value
        wanted = {component for component, _ in self.outputs.values()} | ({also[0]} if also else set())
        schedule = self.schedule
        if schedule is not None:
            results = schedule.run(data, wanted)
        else:
            results = self.pipeline.run(data, include_outputs_from=wanted)
        named = {name: results[component][socket] for name, (component, socket) in self.outputs.items()}
        if also is not None:
            named[".".join(also)] = results.get(also[0], {}).get(also[1])
        return named

    @functools.cached_property
    def schedule(self) -> Schedule | None:
        """The fixed order a loop-free pipeline runs in (`haygate.compat.schedule`), copying with haygate's
        faster copy; None: `Pipeline.run` plans each run."""
        return Schedule.of(self.pipeline, deepcopy=fast_deepcopy)

    def feeder(self, component: str, socket: str) -> Socket | None:
        """The component output socket connected to `component.socket`, if one is."""
        return graph.feeder(self.pipeline, component, socket)

    def socket_owner(self, component: str, socket: str) -> str | None:
        """The input name that feeds `component.socket`, so errors can speak the caller's names."""
        return next((name for name, targets in self.inputs.items() if (component, socket) in targets), None)


class Loader:
    """Builds stores, pipelines and collections from one `Settings`; closes the stores it built."""

    def __init__(self, settings: Settings) -> None:
        use_project_components(Path(settings.home))
        self.settings = settings
        self._stores: dict[str, HybridDocumentStore] = {}
        self._on_cluster: list[Any] = []  # the collections' embedders on a Ray cluster: each holds actors

    def __enter__(self) -> "Loader":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        for embedder in self._on_cluster:
            embedder.close()
        self._on_cluster.clear()
        for store in self._stores.values():
            store.close()
        self._stores.clear()

    # -- collections and stores ------------------------------------------------------------------

    def stores(self) -> dict[str, HybridDocumentStore]:
        """The stores built so far, by collection."""
        return dict(self._stores)

    def schema(self, name: str) -> CollectionSchema:
        return schema_for(name, self.settings.collections_dir)

    def store(self, collection: str) -> HybridDocumentStore:
        """The store of `collection`, one per loader: every pipeline this loader builds shares it, on the backend
        the settings choose (`haygate.document_stores.backends`)."""
        if collection not in self._stores:
            settings = self.settings
            place = Place(
                settings.data_dir, settings.qdrant_url, settings.qdrant_api_key, settings.disk_reserve_mb * 1024 * 1024
            )
            backend = backends.chosen(settings.store, settings.qdrant_url)
            self._stores[collection] = backends.open_store(backend, self.schema(collection).layout(), place)
        return self._stores[collection]

    def collection_stats(self) -> dict[str, dict[str, Any]]:
        """Every configured collection: documents, disk bytes, last durable write (one busy or damaged store
        says so without hiding the others; one never ingested is all zeros, and nothing is created for it)."""
        figures = {}
        for name in sorted(path.stem for path in self.settings.collections_dir.glob("*.yaml")):
            try:
                figures[name] = self.store(name).stats()
            except Exception as error:
                figures[name] = {"error": getattr(error, "message", None) or str(error)}
        return figures

    def collection(self, name: str) -> Collection:
        """A collection ready for ingest: its schema, store, indexing pipeline and configuration fingerprint."""
        schema = self.schema(name)
        indexing = self.pipeline(self.settings.pipelines_dir / schema.indexing_pipeline)
        if "documents" not in indexing.inputs or len(indexing.inputs["documents"]) != 1:
            msg = f"{indexing.path}: an indexing pipeline declares one input `documents` (inputs: {{documents: c.s}})"
            raise ConfigurationError(msg, {"file": str(indexing.path)})
        schema_text = (self.settings.collections_dir / f"{name}.yaml").read_text()
        fingerprint = _digest([schema_text, indexing.fingerprint])
        entry = indexing.inputs["documents"][0]
        if address := self.settings.ray_address:  # the embedders' work goes to the cluster; all else the same
            from haygate.ingest.cluster import RayOptions, on_cluster

            s = self.settings
            options = RayOptions(address, s.ray_actors, s.ray_actor_cpus, s.ray_actor_gpus)
            swapped = on_cluster(indexing.pipeline, options)
            if not swapped:
                logger.info("%s: its indexing pipeline has no dense embedder; it all runs here, not on Ray", name)
            self._on_cluster += swapped
        schedule = indexing.schedule  # made after the swap: it holds the instances
        return Collection(schema, self.store(name), indexing.pipeline, entry, fingerprint, schedule)

    # -- pipelines -------------------------------------------------------------------------------

    def pipeline(self, path: Path, source: str | None = None) -> LoadedPipeline:
        """Parse, allow-list, resolve and build a pipeline, or raise ConfigurationError naming file and component.
        `source` (`dense`, `bm25`): with every retriever restricted to that source (`one_source`)."""
        raw = _pipeline_yaml(path)
        if source is not None:
            _restrict_sources(path, raw, source)
        interface = {key: raw.pop(key, None) or {} for key in INTERFACE_KEYS}
        pipeline, fingerprint = self._built(path, raw)
        if not interface["inputs"] and not interface["outputs"]:
            inputs, outputs, optional = _open_interface(pipeline)
            return LoadedPipeline(path, pipeline, inputs, outputs, fingerprint, optional)
        inputs, outputs = _interface(path, pipeline, interface)
        return LoadedPipeline(path, pipeline, inputs, outputs, fingerprint)

    def preview(self, name: str) -> "IndexingPreview":
        """The collection's indexing pipeline up to, not including, its first embedder or writer (and whatever
        follows them): the documents an ingest would write, with no model loaded and no store opened. What a
        judged id may name is known from it before anything is indexed. A component whose class declares
        `preview_parameters` runs with those init parameters here: its cheaper settings that make the same
        documents (ids and records), without what only a search needs (the CV profiler's phrase vectors)."""
        schema = self.schema(name)
        path = self.settings.pipelines_dir / schema.indexing_pipeline
        raw = _pipeline_yaml(path)
        entry = str(((raw.pop("inputs", None) or {}).get("documents")) or "")
        raw.pop("outputs", None)
        component, _, socket = entry.partition(".")
        if component not in raw["components"] or not socket:  # checked here: the cut may drop the entry
            msg = f"{path}: an indexing pipeline declares one input `documents` (inputs: {{documents: c.s}})"
            raise ConfigurationError(msg, {"file": str(path)})
        edges = [(str(c.get("sender", "")), str(c.get("receiver", ""))) for c in raw.get("connections") or []]
        costly = {n for n, spec in raw["components"].items() if _embeds_or_writes(_allowed_class(path, n, spec))}
        dropped = set(costly)
        while True:  # and everything downstream of them
            more = {receiver.split(".")[0] for sender, receiver in edges if sender.split(".")[0] in dropped}
            if more <= dropped:
                break
            dropped |= more
        frontier = tuple(
            (sender.split(".")[0], sender.partition(".")[2])
            for sender, receiver in edges
            if sender.split(".")[0] not in dropped and receiver.split(".")[0] in dropped
        )
        raw["components"] = {n: spec for n, spec in raw["components"].items() if n not in dropped}
        for name, spec in raw["components"].items():  # a component's cheaper settings for knowing ids alone
            cheaper = getattr(_allowed_class(path, name, spec), PREVIEW_PARAMETERS, None) or {}
            spec["init_parameters"] = {**(spec.get("init_parameters") or {}), **cheaper}
        raw["connections"] = [
            c for c in raw.get("connections") or [] if str(c.get("receiver", "")).split(".")[0] not in dropped
        ]
        pipeline, _ = self._built(path, raw) if component not in dropped else (None, "")
        schedule = Schedule.of(pipeline) if pipeline is not None else None
        return IndexingPreview(pipeline, (component, socket), frontier, schedule)

    def _built(self, path: Path, raw: dict[str, Any]) -> tuple[Pipeline, str]:
        """A pipeline from its parsed YAML (without its interface), and its fingerprint."""
        described = json.dumps(raw, sort_keys=True, default=str)  # before stores and paths are resolved
        files: list[str] = []
        replaced: dict[str, dict[str, Any]] = {}  # component -> init parameters set after its from_dict
        for name, spec in raw["components"].items():
            cls = _allowed_class(path, name, spec)
            params = dict(spec.get("init_parameters") or {})
            spec["init_parameters"] = self._resolve(path, name, cls, params, files, replaced)
        fingerprint = _digest([described, *files])
        callbacks = DeserializationCallbacks(lambda name, _, params: params.update(replaced.get(name, {})))
        try:
            pipeline = Pipeline.from_dict(raw, callbacks, allowed_modules=ALLOWED_MODULES)
        except (DeserializationError, PipelineError, HaygateError, TypeError, ValueError, ImportError) as error:
            component = _failing_component(error, raw)
            cause = error.__cause__ or error
            where = f"component '{component}': " if component else ""
            msg = f"{path}: {where}{_first_line(cause)}"
            if needs_torch_extra(error):
                missing = "it needs torch and sentence-transformers, which are not installed"
                msg = f"{path}: {where}{missing}: {add_extra('torch')}"
            raise ConfigurationError(msg, {"file": str(path), "component": component}) from error
        return pipeline, fingerprint

    @staticmethod
    def collections_of(path: Path) -> list[str]:
        """The collections a pipeline file reads or writes, from its store references, without building it."""
        raw, _ = _read_yaml(path)
        components = raw.get("components") if isinstance(raw, dict) else None
        names = []
        for spec in (components or {}).values():
            params = spec.get("init_parameters") if isinstance(spec, dict) else None
            reference = _store_reference(params if isinstance(params, dict) else {})
            if reference is not None:
                names.append(reference)
        return list(dict.fromkeys(names))

    def _resolve(
        self,
        path: Path,
        name: str,
        cls: type,
        params: dict[str, Any],
        files: list[str],
        replaced: dict[str, dict[str, Any]],
    ) -> dict[str, Any]:
        """Store references become stores (`{collection: X}`, or a `QdrantDocumentStore` whose `index` is X, as
        `Pipeline.dumps()` writes it); `Path` parameters become absolute paths under the home; a Haystack
        component's `model` name loads offline (the packaged MiniLM, a local path, the Hugging Face cache)."""
        reference = _store_reference(params)
        if reference is not None:
            try:
                store = self.store(reference)
            except HaygateError as error:
                msg = f"{path}: component '{name}': {error.message}"
                if _qdrant_store_index(params) is not None:
                    msg += f" (a QdrantDocumentStore's `index` names a collection of {self.settings.collections_dir})"
                raise ConfigurationError(msg, {"file": str(path), "component": name}) from error
            if _qdrant_store_index(params) is None:
                params[STORE_PARAMETER] = store
            else:
                # qdrant-haystack's retrievers rebuild their store from its dict in from_dict: the dict stays,
                # and the store replaces it just before __init__ (`replaced`, through Haystack's callback).
                from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

                from haygate.document_stores.qdrant_view import CollectionAsQdrantStore

                embedded = not isinstance(store, QdrantDocumentStore)  # the embedded store: a view of it
                replaced[name] = {STORE_PARAMETER: CollectionAsQdrantStore(store, reference) if embedded else store}
        if cls.__module__.startswith(HAYSTACK_COMPONENTS) and isinstance(params.get("model"), str):
            params["model"] = resolve_model(params["model"])
        if _accepts(cls, "progress_bar"):  # a component's own bars ("Batches: 100%|...") would only fill a log
            params["progress_bar"] = False
        for parameter in _path_parameters(cls):
            value = params.get(parameter)
            if isinstance(value, str):
                resolved = Path(value) if Path(value).is_absolute() else self.settings.home / value
                params[parameter] = resolved
                files.append(resolved.read_text() if resolved.is_file() else "")
        if params.get(MODEL_CACHE_PARAMETER) is None and _accepts(cls, MODEL_CACHE_PARAMETER):
            params[MODEL_CACHE_PARAMETER] = str(self.settings.models_dir)
        return params


def _store_reference(params: dict[str, Any]) -> str | None:
    """`document_store: {collection: docs}` names the collection `docs`; so does a serialized
    `QdrantDocumentStore` with `index: docs`."""
    reference = params.get(STORE_PARAMETER)
    if isinstance(reference, dict) and set(reference) == {"collection"}:
        return str(reference["collection"])
    return _qdrant_store_index(params)


def _qdrant_store_index(params: dict[str, Any]) -> str | None:
    reference = params.get(STORE_PARAMETER)
    if not isinstance(reference, dict) or not str(reference.get("type", "")).endswith(".QdrantDocumentStore"):
        return None
    return str((reference.get("init_parameters") or {}).get("index") or "Document")


@dataclass(frozen=True)
class IndexingPreview:
    """An indexing pipeline cut before its embedders and writers (`Loader.preview`)."""

    pipeline: Pipeline | None  # None: the documents go straight into an embedder or writer
    entry: Socket
    frontier: tuple[Socket, ...]  # the outputs that fed what was cut
    schedule: Schedule | None = None  # how it runs when loop-free (no copy of every input)

    def run(self, documents: list[Document]) -> list[Document]:
        """The documents an ingest of `documents` would embed and write, each id once."""
        if self.pipeline is None:
            return list({document.id: document for document in documents}.values())
        component, socket = self.entry
        senders = {sender for sender, _ in self.frontier}
        runner = self.schedule or self.pipeline
        results = runner.run({component: {socket: documents}}, include_outputs_from=senders)
        produced = [d for sender, output in self.frontier for d in (results.get(sender) or {}).get(output) or []]
        return list({document.id: document for document in produced}.values())


def _restrict_sources(path: Path, raw: dict[str, Any], source: str) -> None:
    """Each component whose class answers `one_source` (a retriever of several sources) set to `source` alone."""
    restricted = []
    for name, spec in raw["components"].items():
        restrict = getattr(_allowed_class(path, name, spec), ONE_SOURCE, None)
        if callable(restrict):
            try:
                spec["init_parameters"] = restrict(dict(spec.get("init_parameters") or {}), source)
            except ConfigurationError as error:
                msg = f"{path}: component '{name}': {error.message}, so it has no {source}-only ranking"
                raise ConfigurationError(msg, {"file": str(path), "component": name}) from None
            restricted.append(name)
    if not restricted:
        msg = f"{path}: no retriever of several sources (a HybridRetriever) to run on {source} alone"
        raise ConfigurationError(msg, {"file": str(path)})


def _embeds_or_writes(cls: type) -> bool:
    """A component that loads a model to embed documents, or writes them to a store: costly, and not needed
    to know what an ingest would write."""
    return cls.__name__.endswith("DocumentWriter") or embeds_densely(cls)


def _pipeline_yaml(path: Path) -> dict[str, Any]:
    raw, text = _read_yaml(path)
    if not isinstance(raw, dict) or not isinstance(raw.get("components"), dict):
        msg = f"{path}: a pipeline needs a 'components' mapping"
        raise ConfigurationError(msg, {"file": str(path)})
    problems = _unknown_keys(raw, text)
    if problems:
        raise ConfigurationError(f"{path}: " + "; ".join(problems), {"file": str(path), "problems": problems})
    return raw


def _unknown_keys(raw: dict[str, Any], text: str) -> list[str]:
    """Keys Haystack would pass over in silence (a misspelt `init_paramters` runs the component on its defaults),
    and init parameters its class does not take, each with its line and the closest valid name."""
    problems = [yamlfile.unknown_key(text, (key,), PIPELINE_KEYS) for key in raw if key not in PIPELINE_KEYS]
    for name, spec in raw["components"].items():
        if not isinstance(spec, dict):
            continue
        where = f" in component '{name}'"
        problems += [
            yamlfile.unknown_key(text, ("components", name, key), COMPONENT_KEYS, where)
            for key in spec
            if key not in COMPONENT_KEYS
        ]
        params = spec.get("init_parameters")
        taken = _init_parameters(spec.get("type"))
        if isinstance(params, dict) and taken is not None:
            problems += [
                yamlfile.unknown_key(
                    text,
                    ("components", name, "init_parameters", key),
                    taken,
                    f" in the init_parameters of component '{name}'",
                )
                for key in params
                if key not in taken
            ]
    return problems


def _init_parameters(kind: Any) -> list[str] | None:
    """The init parameters an allow-listed class takes, or None when it takes any (`**kwargs`) or cannot be
    read here (a type that is no allowed class is refused with its own message later)."""
    if not isinstance(kind, str) or not any(kind == m or kind.startswith(m + ".") for m in ALLOWED_MODULES):
        return None
    module, _, attribute = kind.rpartition(".")
    try:
        parameters = inspect.signature(getattr(importlib.import_module(module), attribute).__init__).parameters
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    return [name for name in parameters if name != "self"]


def _read_yaml(path: Path) -> tuple[Any, str]:
    try:
        text = path.read_text()
    except OSError as error:
        msg = f"{path}: cannot read pipeline: {error.strerror}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    try:
        return yamlfile.safe_load(text), text
    except yaml.YAMLError as error:
        msg = f"{path}: invalid YAML: {error}"
        raise ConfigurationError(msg, {"file": str(path)}) from error


_project_lock = threading.Lock()


def use_project_components(home: Path) -> None:
    """`components` is the home's own package (its components/ folder), for its pipelines to name as
    `components.<module>.<Class>`. One home per process is the rule; a loader of another home (a test's copy)
    takes the name over. (Haystack registers a component class by its dotted name, the latest definition
    winning, so two homes' classes of one name are never told apart in one process.)"""
    folder = str((home / PROJECT_COMPONENTS).resolve())
    with _project_lock:
        current = sys.modules.get(PROJECT_COMPONENTS)
        if current is not None and list(getattr(current, "__path__", []) or []) == [folder]:
            return
        loaded = list(sys.modules)  # one atomic copy: another thread may be importing meanwhile
        for name in [n for n in loaded if n == PROJECT_COMPONENTS or n.startswith(PROJECT_COMPONENTS + ".")]:
            del sys.modules[name]
        init = Path(folder) / "__init__.py"
        if not init.is_file():
            return  # a type naming `components.` then fails as not existing, and says where they live
        spec = importlib.util.spec_from_file_location(PROJECT_COMPONENTS, init, submodule_search_locations=[folder])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[PROJECT_COMPONENTS] = module
        spec.loader.exec_module(module)


def _allowed_class(path: Path, name: str, spec: Any) -> type:
    kind = spec.get("type", "") if isinstance(spec, dict) else ""
    if not isinstance(kind, str) or not any(kind == m or kind.startswith(m + ".") for m in ALLOWED_MODULES):
        msg = (
            f"{path}: component '{name}': type '{kind}' is not allow-listed; "
            f"allowed modules: {', '.join(ALLOWED_MODULES)}"
        )
        raise ConfigurationError(msg, {"file": str(path), "component": name})
    module, _, attribute = kind.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        project = kind.startswith(PROJECT_COMPONENTS + ".")
        where = " (a project's own components live in its home's components/ package)" if project else ""
        msg = f"{path}: component '{name}': type '{kind}' does not exist{where}"
        if needs_torch_extra(error) or of_torch_extra(module):  # its integration is the extra's, not installed
            msg = f"{path}: component '{name}': '{kind}' needs torch and sentence-transformers: {add_extra('torch')}"
        raise ConfigurationError(msg, {"file": str(path), "component": name}) from error
    if not isinstance(cls, type):
        msg = f"{path}: component '{name}': '{kind}' is not a class"
        raise ConfigurationError(msg, {"file": str(path), "component": name})
    return cls


def _accepts(cls: type, parameter: str) -> bool:
    try:
        return parameter in inspect.signature(cls.__init__).parameters  # type: ignore[misc]
    except (TypeError, ValueError):
        return False


def _path_parameters(cls: type) -> list[str]:
    """Init parameters annotated `Path` (or `Path | None`): files named relative to the haygate home."""
    try:
        init = cls.__init__  # type: ignore[misc]
        hints = typing.get_type_hints(init)
    except (NameError, TypeError):
        return []
    found = []
    for name, hint in hints.items():
        options = (
            typing.get_args(hint)
            if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union
            else (hint,)
        )
        if Path in options and name in inspect.signature(init).parameters:
            found.append(name)
    return found


def _interface(
    path: Path, pipeline: Pipeline, interface: dict[str, Any]
) -> tuple[dict[str, list[Socket]], dict[str, Socket]]:
    """The declared `inputs:`/`outputs:`, checked against the pipeline's sockets (as Hayhooks checks)."""
    sockets_in = pipeline.inputs(include_components_with_connected_inputs=True)
    sockets_out = pipeline.outputs(include_components_with_connected_outputs=True)
    inputs: dict[str, list[Socket]] = {}
    for name, targets in (interface["inputs"] or {}).items():
        inputs[str(name)] = [
            _socket(path, "input", name, t, sockets_in) for t in ([targets] if isinstance(targets, str) else targets)
        ]
    outputs = {
        str(name): _socket(path, "output", name, target, sockets_out)
        for name, target in (interface["outputs"] or {}).items()
    }
    fed = {target for targets in inputs.values() for target in targets}
    for component, sockets in pipeline.inputs().items():
        for socket, spec in sockets.items():
            if spec.get("is_mandatory") and (component, socket) not in fed:
                msg = f"{path}: input '{component}.{socket}' is required but neither connected nor in `inputs:`"
                raise ConfigurationError(msg, {"file": str(path), "component": component})
    return inputs, outputs


def _open_interface(
    pipeline: Pipeline,
) -> tuple[dict[str, list[Socket]], dict[str, Socket], frozenset[str]]:
    """A pipeline with no `inputs:`/`outputs:` (as `Pipeline.dumps()` writes it) is run as Haystack runs it:
    each input is named by its socket and feeds every open socket of that name (`text` -> `embedder.text`),
    and each leaf output is named by its socket, or `component.socket` where two components leave one name
    open. Inputs with defaults are optional: a tool declares the ones its callers may set."""
    inputs: dict[str, list[Socket]] = {}
    required: set[str] = set()
    for component, sockets in pipeline.inputs().items():
        for socket, spec in sockets.items():
            inputs.setdefault(socket, []).append((component, socket))
            if spec.get("is_mandatory"):
                required.add(socket)
    leaves = [(component, socket) for component, sockets in pipeline.outputs().items() for socket in sockets]
    counts: dict[str, int] = {}
    for _, socket in leaves:
        counts[socket] = counts.get(socket, 0) + 1
    outputs = {
        (socket if counts[socket] == 1 else f"{component}.{socket}"): (component, socket)
        for component, socket in leaves
    }
    return inputs, outputs, frozenset(inputs) - required


def _socket(path: Path, kind: str, name: Any, target: Any, sockets: dict[str, dict[str, Any]]) -> Socket:
    component, _, socket = str(target).partition(".")
    if component not in sockets or socket not in sockets[component]:
        available = ", ".join(f"{c}.{s}" for c, names in sockets.items() for s in names)
        msg = f"{path}: {kind} '{name}' names '{target}', which the pipeline lacks; {kind}s: {available}"
        raise ConfigurationError(msg, {"file": str(path), "component": component})
    return component, socket


def _digest(parts: list[str]) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _failing_component(error: BaseException, raw: dict[str, Any]) -> str | None:
    """The component a Haystack error is about: it says "(name: 'x')" or "component 'x'" when it knows."""
    text = f"{error} {error.__cause__ or ''}"
    named = re.search(r"\(name: '([^']+)'\)|[Cc]omponent '([^']+)' of class", text)
    if named and (named.group(1) or named.group(2)) in raw.get("components", {}):
        return named.group(1) or named.group(2)
    for name in raw.get("components", {}):
        if f"'{name}'" in text or f"{name}." in text:
            return str(name)
    return None


def _first_line(error: BaseException) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__
