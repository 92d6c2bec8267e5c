"""Folders of files for the tests that read a workspace from disk."""

from __future__ import annotations

from pathlib import Path


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write each `files` entry (a relative path and its UTF-8 text) under `root`,
    making the folders on the way; return `root`."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
