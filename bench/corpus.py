"""Real source trees for the benchmarks: source distributions of a few packages.

`corpus_roots()` downloads them once with `pip download --no-binary :all: --no-deps`
(pinned versions, so every run sees the same files), unpacks them under
`bench/.cache/corpus/` (git-ignored) and returns one root folder per package. Later
runs use the unpacked folders and need no network.

Run as a script to fetch them and print what is there.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache" / "corpus"
PACKAGES = {  # name -> pinned version (`pip index versions NAME` lists them)
    "requests": "2.34.2",
    "rich": "15.0.0",
    "httpx": "0.28.1",
    "click": "8.5.1",
    "flask": "3.1.3",
}


def _archive_for(downloads: Path, name: str, version: str) -> Path | None:
    for archive in sorted(downloads.iterdir()):
        stem = archive.name.lower().replace("_", "-")
        if stem.startswith(f"{name}-{version}.") and archive.name.endswith((".tar.gz", ".zip")):
            return archive
    return None


def _download(downloads: Path) -> None:
    wanted = [f"{name}=={version}" for name, version in PACKAGES.items()]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "--quiet",
         "-d", str(downloads), *wanted],
        check=True,
    )


def _unpack(archive: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(into)
    else:
        with tarfile.open(archive) as tarred:
            tarred.extractall(into, filter="data")


def corpus_roots() -> dict[str, Path]:
    """Package name -> the root folder of its unpacked source distribution."""
    downloads = CACHE / "downloads"
    roots: dict[str, Path] = {}
    missing = []
    for name, version in PACKAGES.items():
        root = CACHE / "src" / f"{name}-{version}"
        if not root.is_dir():
            missing.append((name, version, root))
        roots[name] = root
    if missing:
        downloads.mkdir(parents=True, exist_ok=True)
        if any(_archive_for(downloads, n, v) is None for n, v, _ in missing):
            _download(downloads)
        for name, version, root in missing:
            archive = _archive_for(downloads, name, version)
            if archive is None:
                raise RuntimeError(f"pip download gave no source archive for {name}=={version}")
            staging = root.with_name(root.name + ".partial")
            shutil.rmtree(staging, ignore_errors=True)  # left by an interrupted run
            _unpack(archive, staging)
            # An sdist holds one top folder (`rich-15.0.0/`); that folder is the root.
            entries = list(staging.iterdir())
            if len(entries) == 1 and entries[0].is_dir():
                entries[0].rename(root)
                staging.rmdir()
            else:
                staging.rename(root)
    return roots


def main() -> int:
    for name, root in corpus_roots().items():
        files = sum(1 for p in root.rglob("*") if p.is_file())
        print(f"{name:10} {files:5} files  {root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
