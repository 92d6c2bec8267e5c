"""The corpus and the identifiers of `context_recall.py`: three languages, pinned packages.

`PACKAGES` names the tuning set, the packages the context engine's rules were measured
and kept on (issue 26's held-out set among them since issue 39); `HELD_OUT` a second,
disjoint set per language, drawn for issue 39 by `draw_held_out.py` (`held_out.json`),
never looked at: only its totals are printed (`SETS` names both; none of them in
`corpus.py` or `next_edit_oracles.py`): Python sdists (`pip download`),
npm tarballs (`npm pack`), both unpacked under `bench/.cache/recall/` (git-ignored),
and Debian `golang-*-dev` packages, whose sources apt installs under
`/usr/share/gocode/src` (GOPATH mode: `apt-get install -y golang-go gopls` and the
packages below). `package_roots(language, pinned)` fetches what is missing and returns
one `Package` per package of the set (`PACKAGES` unless told): its workspace root and
pinned version.

`shape(...)` names the shape of a miss (for reading the tuning set's misses).

`identifiers(language, tree, first, last)` lists the identifiers of rows first..last
that the oracle is asked about, as tree-sitter gives them, deduplicated the way
`context_quality.identifier_keys` does for Python (a bare name once; a member name
once per receiver expression).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sparkls.context.symbols import extract_symbols

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache" / "recall"
NODE_BIN = HERE.parent / ".tools" / "node" / "bin"
GOPATH = Path("/usr/share/gocode")

TYPESCRIPT_VERSION = "5.9.3"  # the oracle (`npm view typescript versions`)
PACKAGES: dict[str, dict[str, tuple[str, str]]] = {
    # language -> name -> (pinned version or Debian package, the folder that is the workspace).
    # The first ones since issue 16; the rest were issue 26's held-out set, tuning since issue 39
    # (tqdm: `from .std import tqdm as std_tqdm`, one very large class; jinja2: `__init__`
    # re-exports; attrs: `from ._make import ... as ...`; axios: ESM, `export default {...}`;
    # undici: CommonJS with `#` fields; mobx: options interfaces). yup, ws and winston were
    # issue 39's first TypeScript/JavaScript draw: printed once short of its targets, they
    # joined the tuning set and that language was drawn again (`draw_held_out.py --second`);
    # redux (`src/` TypeScript, generics and aliases) and superstruct (a package as npm
    # ships it: a bundled `dist/index.mjs` beside its `.d.ts` files), fp-ts (`lib/`: what tsc
    # writes, CommonJS beside a `.d.ts` for each module) and tsyringe (the root: tsc's
    # CommonJS, ES5 and ES2015 builds and a typings folder) came in with them, for the type
    # references and the compiled shapes the tuning set had few of. kysely, class-validator
    # and xstate were the second draw, rollup, dotenv and semver the third, mqtt, nunjucks and
    # decimal.js the fifth, markdown-it, parse5 and remarkable the sixth: each printed once
    # short of a target, then joined too. fast-xml-parser, liquidjs and handlebars-helpers, the
    # seventh, met the targets once printed and joined before a larger eighth draw. The eighth
    # (acorn, clean-css, d3-array, immutable, pinia, vuex) was printed with the server at its
    # draw and with a server that had regressed on it, then joined; eta, papaparse, csv-parse,
    # js-yaml, json5, validator, htmlparser2, turndown and mustache (candidates of earlier lists
    # never drawn) were the development set that found that regression's cause, then joined.
    "python": {"packaging": ("26.3", ""), "marshmallow": ("4.4.0", ""), "tomlkit": ("0.15.2", ""),
               "tqdm": ("4.70.1", ""), "jinja2": ("3.1.6", ""), "attrs": ("26.1.0", "")},
    "typescript": {"rxjs": ("7.8.2", "src"), "immer": ("10.1.1", "src"), "express": ("4.21.2", ""),
                   "axios": ("1.21.1", "lib"), "undici": ("8.13.1", "lib"), "mobx": ("7.1.3", "src"),
                   "yup": ("1.7.1", ""), "ws": ("8.23.0", "lib"), "winston": ("3.19.0", "lib"),
                   "redux": ("5.0.1", "src"), "superstruct": ("2.0.2", ""), "fp-ts": ("2.16.11", "lib"),
                   "tsyringe": ("4.10.0", ""), "kysely": ("0.29.9", ""), "class-validator": ("0.15.1", ""),
                   "xstate": ("5.33.3", ""), "rollup": ("4.68.8", ""), "dotenv": ("18.0.10", ""),
                   "semver": ("7.8.6", ""), "mqtt": ("5.16.0", ""), "nunjucks": ("3.2.4", "src"),
                   "decimal.js": ("10.6.0", ""), "markdown-it": ("15.0.3", ""), "parse5": ("8.1.1", ""),
                   "remarkable": ("2.0.1", ""), "fast-xml-parser": ("5.12.1", "src"),
                   "liquidjs": ("10.30.1", ""), "handlebars-helpers": ("0.10.0", "lib"), "acorn": ("8.19.0", ""),
                   "clean-css": ("5.3.3", "lib"), "d3-array": ("3.2.5", ""), "immutable": ("5.2.1", ""),
                   "pinia": ("4.1.0", ""), "vuex": ("4.1.0", ""), "eta": ("4.6.0", ""), "papaparse": ("5.7.1", ""),
                   "csv-parse": ("7.0.3", "lib"), "js-yaml": ("5.5.0", ""), "json5": ("2.2.3", "lib"),
                   "validator": ("13.15.35", "lib"), "htmlparser2": ("12.0.0", "src"), "turndown": ("7.2.5", "lib"),
                   "mustache": ("4.2.0", "")},
    "go": {
        "go-cmp": ("golang-github-google-go-cmp-dev", "github.com/google/go-cmp"),
        "pflag": ("golang-github-spf13-pflag-dev", "github.com/spf13/pflag"),
        "mux": ("golang-github-gorilla-mux-dev", "github.com/gorilla/mux"),
        "yaml.v3": ("golang-gopkg-yaml.v3-dev", "gopkg.in/yaml.v3"),
        "testify": ("golang-github-stretchr-testify-dev", "github.com/stretchr/testify"),
        "viper": ("golang-github-spf13-viper-dev", "github.com/spf13/viper"),
        "toml": ("golang-github-burntsushi-toml-dev", "github.com/BurntSushi/toml"),
    },
}
# Held out (issue 39): drawn once by `draw_held_out.py` from lists written before looking,
# none used before; only its totals are printed (`context_recall.py`), never its misses.
HELD_OUT: dict[str, dict[str, tuple[str, str]]] = {
    language: {name: (pin, folder) for name, (pin, folder) in drawn.items()}
    for language, drawn in json.loads((HERE / "held_out.json").read_text(encoding="utf-8")).items()
}
SETS = {"tuning": PACKAGES, "held-out": HELD_OUT}
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


def _sdist(downloads: Path, name: str, version: str) -> Path | None:
    """The sdist of name==version in `downloads`, its name spelled as PyPI normalizes it
    (`more-itertools` is `more_itertools-10.0.tar.gz`)."""
    wanted = f"{re.sub(r'[-_.]+', '-', name).lower()}-{version}.tar.gz"
    return next((a for a in sorted(downloads.glob("*.tar.gz"))
                 if re.sub(r"[-_.]+", "-", a.name[: -len(f"-{version}.tar.gz")]).lower() + f"-{version}.tar.gz"
                 == wanted and a.name.endswith(f"-{version}.tar.gz")), None)


def _fetched(kind: str, name: str, version: str) -> Path:
    """The unpacked pip sdist or npm tarball of name==version (fetched once)."""
    root = CACHE / "src" / f"{name}-{version}"
    if root.is_dir():
        return root
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    if kind == "pip":
        archive = _sdist(downloads, name, version)
        if archive is None:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "--quiet",
                            "-d", str(downloads), f"{name}=={version}"], check=True)
            archive = _sdist(downloads, name, version)
        if archive is None:
            raise RuntimeError(f"pip download gave no .tar.gz sdist for {name}=={version}")
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


def package_roots(language: str, pinned: dict[str, dict[str, tuple[str, str]]] | None = None) -> list[Package]:
    pinned = PACKAGES if pinned is None else pinned  # read here: next_edit_oracles.py swaps PACKAGES
    out = []
    for name, (pin, folder) in pinned[language].items():
        if language == "go":
            version = _debian_version(pin)
            if version is None:
                raise RuntimeError(f"{pin} is not installed: apt-get install -y golang-go gopls "
                                   + " ".join(p for p, _ in pinned["go"].values()))
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
    # `this.#x`: an ES private field is a reference like any other (issue 26)
    "typescript": {"identifier", "property_identifier", "private_property_identifier", "type_identifier"},
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


LARGE_CLASS_LINES = 400
SHAPES = ("private # field", "exported object literal member", "member through a declared type",
          "aliased or re-exported name", "super() / class-level call", "member of a very large class",
          "other: key of an object literal", "other: static member assigned (`Name.x = ...`)", "other")
_IMPORT = re.compile(r"^\s*(?:from\s+(\S+)\s+import\b|import\b.*\bfrom\s+['\"]([^'\"]+)['\"]|"
                     r".*\brequire\(['\"]([^'\"]+)['\"]\))")
_EXPORTED_OBJECT = re.compile(r"^(?:export\s+default|module\.exports\s*=|(?:export\s+)?const\s+\w+\s*=)[^{]*\{\s*$")
_classes: dict[tuple[int, str], list[Any]] = {}


def shape(docs: dict[str, Any], rel: str, symbol: Any, word: str, d_rel: str, line0: int, language: str) -> str:
    """The shape of one miss, by the text at its use and at its definition (a heuristic, for
    reading the misses: the first of `SHAPES` that fits)."""
    use = "\n".join(docs[rel].text.split("\n")[symbol.start_line:symbol.end_line + 1])
    target = docs.get(d_rel)
    lines = target.text.split("\n") if target is not None else []
    at = lines[line0] if line0 < len(lines) else ""
    bare = word.lstrip("#")
    if word.startswith("#") or f"#{bare}" in at:
        return SHAPES[0]
    if language == "typescript":
        for row in range(min(line0, len(lines) - 1), -1, -1):
            if _EXPORTED_OBJECT.match(lines[row]):
                return SHAPES[1]
            if lines[row].startswith(("}", "function ", "class ", "export function", "export class")) and row < line0:
                break
        # `utils.isString` whose member the tool follows on to its value (`const isString = typeOfTest(...)`)
        literal = next((row for row, line in enumerate(lines) if _EXPORTED_OBJECT.match(line)), None)
        if literal is not None and re.search(rf"\.{re.escape(bare)}\b", use) and any(
                re.match(rf"\s*{re.escape(bare)}\s*(?:,|:|$)", line) for line in lines[literal:]):
            return SHAPES[1]
    receivers = set(re.findall(rf"(\w+)\??\.{re.escape(bare)}\b", use))
    if any(re.search(rf"\b{re.escape(r)}\??\s*:\s*[A-Za-z_]", use) for r in receivers - {"self", "this", "cls"}):
        return SHAPES[2]
    alias = re.compile(rf"^\s*(?:(?:from|import|export)\b.*)?\b\w+\s+as\s+{re.escape(bare)}\b")
    if any(alias.match(line) for line in docs[rel].text.split("\n")) or (
            at and not re.search(rf"(?<![\w$]){re.escape(bare)}(?![\w$])", at)):
        return SHAPES[3]
    for line in docs[rel].text.split("\n"):
        found = _IMPORT.match(line)
        if found and re.search(rf"\b{re.escape(bare)}\b", line.split("import", 1)[-1] if "import" in line else line):
            module = next(m for m in found.groups() if m).rstrip(".").replace("/", ".").split(".")[-1]
            stem = Path(d_rel).stem
            if module and module not in (stem, Path(d_rel).parent.name if stem in ("__init__", "index") else stem):
                return SHAPES[3]
    if re.search(rf"\b(?:super\([^)]*\)|super|cls)\.{re.escape(bare)}\b", use):
        return SHAPES[4]
    if target is not None:
        key = (id(target), d_rel)
        if key not in _classes:
            _classes[key] = [c for c in extract_symbols(target.language_id, target.tree, target.text.encode("utf-8"))
                             if c.kind in ("class", "type")]
        if any(c.start_line <= line0 <= c.end_line and c.end_line - c.start_line + 1 > LARGE_CLASS_LINES
               for c in _classes[key]):
            return SHAPES[5]
    if re.match(rf"\s*['\"]?{re.escape(bare)}['\"]?\s*:", at):
        return SHAPES[6]
    if re.match(rf"\s*[\w.]+\.{re.escape(bare)}\s*=", at):
        return SHAPES[7]
    return SHAPES[8]
