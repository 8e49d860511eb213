"""A misspelt `HAYGATE_*` variable is refused, naming the one meant: left alone, it would leave its setting at the
default (a misspelt token: a server that asks for none)."""

import os
from pathlib import Path

import pytest

from haygate.cli import main
from haygate.errors import ConfigurationError
from haygate.settings import Settings, refuse_misspelt_variables
from tests.support.project import PROJECT


def test_a_misspelt_variable_is_refused_with_the_one_meant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HAYGATE_TOKN", "secret")
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(tmp_path / "data"))
    assert main(["validate", "--home", str(PROJECT)]) == 2
    err = capsys.readouterr().err
    assert "HAYGATE_TOKN is not a haygate setting: did you mean HAYGATE_TOKEN?" in err and "Traceback" not in err
    assert not (tmp_path / "data").exists()  # refused before anything was opened


@pytest.mark.parametrize(("variable", "meant"), [("HAYGATE_QDRANT_ULR", "QDRANT_URL"), ("haygate_tier_", "TIER")])
def test_each_setting_is_found_from_a_typo(variable: str, meant: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        refuse_misspelt_variables({variable: "x"})
    assert refused.value.details["did_you_mean"] == f"HAYGATE_{meant}"


def test_every_setting_and_variables_close_to_none_pass() -> None:
    """Every setting's own name (in any case), the variables read elsewhere, and other tools' (or the tests')."""
    names = {f"HAYGATE_{name.upper()}": "x" for name in Settings.model_fields}
    others = ["HAYGATE_KEEP_VECTORS", "HAYGATE_SPEED_RATIO", "HAYGATE_TEST_CACHE", "HAYGATE_SCREENSHOT_DIR"]
    refuse_misspelt_variables(names | {name: "x" for name in others} | {"haygate_home": "x"})
    refuse_misspelt_variables({k: v for k, v in os.environ.items() if k.startswith("HAYGATE_")})
