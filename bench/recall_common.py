"""The corpus and the identifiers of `context_recall.py`: three languages, pinned packages.

`PACKAGES` names them (none of them in `corpus.py`): Python sdists (`pip download`),
npm tarballs (`npm pack`), both unpacked under `bench/.cache/recall/` (git-ignored),
and Debian `golang-*-dev` packages, whose sources apt installs under
`/usr/share/gocode/src` (GOPATH mode: `apt-get install -y golang-go gopls` and the
packages below). `package_roots(language)` fetches what is missing and returns one
`Package` per package: its workspace root and pinned version.

`identifiers(language, tree, first, last)` lists the identifiers of rows first..last
that the oracle is asked about, as tree-sitter gives them, deduplicated the way
`context_quality.identifier_keys` does for Python (a bare name once; a member name
once per receiver expression).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache" / "recall"
NODE_BIN = HERE.parent / ".tools" / "node" / "bin"
GOPATH = Path("/usr/share/gocode")

TYPESCRIPT_VERSION = "5.9.3"  # the oracle (`npm view typescript versions`)
PACKAGES: dict[str, dict[str, tuple[str, str]]] = {
    # language -> name -> (pinned version or Debian package, the folder that is the workspace)
    "python": {"packaging": ("26.3", ""), "marshmallow": ("4.4.0", ""), "tomlkit": ("0.15.2", "")},
    "typescript": {"rxjs": ("7.8.2", "src"), "immer": ("10.1.1", "src"), "express": ("4.21.2", "")},
    "go": {
        "go-cmp": ("golang-github-google-go-cmp-dev", "github.com/google/go-cmp"),
        "pflag": ("golang-github-spf13-pflag-dev", "github.com/spf13/pflag"),
        "mux": ("golang-github-gorilla-mux-dev", "github.com/gorilla/mux"),
        "yaml.v3": ("golang-gopkg-yaml.v3-dev", "gopkg.in/yaml.v3"),
    },
}
EXTENSIONS = {"python": (".py",), "typescript": (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"),
              "go": (".go",)}


@dataclass(frozen=True)
class Package:
    language: str
    name: str
    version: str
    root: Path


def _npm() -> str:
    npm = NODE_BIN / "npm"
    return str(npm) if npm.exists() else "npm"


def node() -> str:
    binary = NODE_BIN / "node"
    return str(binary) if binary.exists() else "node"


def _unpack(archive: Path, root: Path) -> None:
    """Unpack a tarball whose single top folder becomes `root`."""
    staging = root.with_name(root.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    with tarfile.open(archive) as tarred:
        tarred.extractall(staging, filter="data")
    (top,) = staging.iterdir()
    top.rename(root)
    staging.rmdir()


def _fetched(kind: str, name: str, version: str) -> Path:
    """The unpacked pip sdist or npm tarball of name==version (fetched once)."""
    root = CACHE / "src" / f"{name}-{version}"
    if root.is_dir():
        return root
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    if kind == "pip":
        archive = downloads / f"{name}-{version}.tar.gz"
        if not archive.exists():
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "--quiet",
                            "-d", str(downloads), f"{name}=={version}"], check=True)
    else:
        archive = downloads / f"{name.replace('@', '').replace('/', '-')}-{version}.tgz"
        if not archive.exists():
            subprocess.run([_npm(), "pack", "--quiet", f"{name}@{version}"], cwd=downloads, check=True,
                           stdout=subprocess.DEVNULL)
    _unpack(archive, root)
    return root


def typescript_dir() -> Path:
    """The unpacked `typescript` package the TypeScript oracle loads."""
    return _fetched("npm", "typescript", TYPESCRIPT_VERSION)


def _debian_version(package: str) -> str | None:
    done = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def package_roots(language: str) -> list[Package]:
    out = []
    for name, (pin, folder) in PACKAGES[language].items():
        if language == "go":
            version = _debian_version(pin)
            if version is None:
                raise RuntimeError(f"{pin} is not installed: apt-get install -y golang-go gopls "
                                   + " ".join(p for p, _ in PACKAGES["go"].values()))
            out.append(Package(language, name, version, GOPATH / "src" / folder))
        else:
            root = _fetched("pip" if language == "python" else "npm", name, pin)
            out.append(Package(language, name, pin, root / folder if folder else root))
    return out


def go_environment() -> dict[str, str]:
    """GOPATH mode, offline: nothing is fetched, the Debian sources are the whole world."""
    return {"GOPATH": str(GOPATH), "GO111MODULE": "off", "GOPROXY": "off", "GOFLAGS": "",
            "GOCACHE": str(CACHE / "gocache"), "HOME": os.environ.get("HOME", "/root")}


# Node types that name something, as the server's grammars give them.
IDENTIFIER_TYPES = {
    "typescript": {"identifier", "property_identifier", "type_identifier"},
    "go": {"identifier", "field_identifier", "type_identifier"},
}
# A member name is asked once per receiver expression (`a.b.c` and `x.c` are two).
MEMBER_PARENTS = {"member_expression", "selector_expression", "qualified_type"}


def identifiers(language: str, root_node, first: int, last: int) -> dict[str, tuple[int, int, str]]:
    """key -> (row, byte column, identifier text) of the first occurrence in rows first..last."""
    wanted = IDENTIFIER_TYPES[language]
    found: dict[str, tuple[int, int, str]] = {}
    stack = [root_node]
    while stack:
        n = stack.pop()
        if n.end_point.row < first or n.start_point.row > last:
            continue
        if n.type in wanted and n.start_point.row >= first:
            text = n.text.decode("utf-8", "replace")
            parent = n.parent
            member = parent is not None and parent.type in MEMBER_PARENTS and parent.children[-1] == n
            key = (parent.text.decode("utf-8", "replace") if member else "") + "\0" + text
            point = (n.start_point.row, n.start_point.column, text)
            if key not in found or point < found[key]:
                found[key] = point
        stack.extend(n.children)
    return found
