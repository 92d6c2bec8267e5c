"""The version the server reports is the package's."""

import tomllib
from pathlib import Path

import sparkls


def test_version_matches_pyproject():
    """`sparkls.__version__` (serverInfo, User-Agent) is pyproject.toml's version."""
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert sparkls.__version__ == pyproject["project"]["version"]
