"""A folder of generated files, written as a whole: what `haygate skill --out` and a server's skill provider
write (a generated skill's SKILL.md and tools/<tool>.md)."""

import os
from collections.abc import Mapping
from pathlib import Path


def write_folder(folder: Path, files: Mapping[str, str]) -> None:
    """Write `files` (text by relative path) into `folder` (made if need be), each replaced whole (a reader sees
    the old file or the new one), and remove the files it no longer has."""
    folder.mkdir(parents=True, exist_ok=True)
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.partial")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    for path in sorted(folder.rglob("*"), reverse=True):  # files first, then the folders they leave empty
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and relative not in files:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
