"""What the tests share besides fixtures (those are in tests/conftest.py): the project's paths and settings, the
sample builds, servers on real ports, the budget plugin, the machine-wide cache, the documentation's blocks,
the browser and the tools a test needs installed."""

from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
"""The checkout: the project whose configs, pipelines, components and samples the tests run."""
