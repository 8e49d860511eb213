"""YAML read with libyaml's C parser where PyYAML has it (many times faster than the pure-Python one: a project's
declarations, pipelines and vocabularies are read on every start, reload and `haygate validate`)."""

from typing import Any

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """`yaml.safe_load`, parsed in C when it can be: the same types, the same `yaml.YAMLError`s."""
    return yaml.load(text, Loader=SafeLoader)
