"""sparkls: a language server for fast AI edits in any LSP editor."""

# The package's version, as pyproject.toml says (tests/unit/test_version.py holds them
# equal): a constant, so that starting the server reads no package metadata.
__version__ = "0.1.0"
