"""sparkls: a language server for fast AI edits in any LSP editor."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("sparkls")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0+source"
