"""Files a request names, resolved inside the project: a request names them relative to it, and none may leave it
(`..`, an absolute path, a link out). Every door resolves them here, so each names the same file."""

from pathlib import Path

from haygate.errors import InvalidRequestError, NotFoundError


def inside(root: Path, relative: str, what: str) -> Path:
    """`relative` resolved under `root`, and refused when it leaves it (`..`, an absolute path, a link out)."""
    if not relative or Path(relative).is_absolute():
        raise InvalidRequestError(f"name a {what} relative to {root.name}/", {"field": what})
    resolved = (root / relative).resolve()
    if not resolved.is_relative_to(root.resolve()):
        raise InvalidRequestError(f"'{relative}' is not inside {root.name}/", {"field": what})
    return resolved


def project_pipeline(root: Path, relative: str) -> Path:
    path = inside(root, relative, "pipeline")
    if path.suffix != ".yaml" or not path.is_file():
        raise NotFoundError(f"no pipeline file pipelines/{relative}", {"field": "pipeline"})
    return path


def declaration_file(home: Path, name: str) -> Path:
    """A declaration file, absolute or relative to the project, in configs/tools/ or not (a draft checked before
    it is put there): the same file whichever door checks it."""
    path = (home / name).resolve()
    if not path.is_file():
        raise InvalidRequestError(f"no declaration file {name!r}", {"field": "files"})
    return path
