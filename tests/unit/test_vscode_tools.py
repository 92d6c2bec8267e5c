"""scripts/vscode_tools.py: the cache folder for the real-VS-Code tests and its install.
No network and no npm: subprocess.run is replaced by a fake that builds (or fails to
build) the tree npm would leave, in tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.unit.scripts import load_script



@pytest.fixture
def tools(tmp_path, monkeypatch):
    """scripts/vscode_tools.py as a module, its node in tmp_path/.tools/node."""
    module = load_script("vscode_tools")
    monkeypatch.setattr(module.node, "TOOLS", tmp_path / ".tools" / "node")
    return module


def build_tree(tools, folder: Path, *, kerberos: bool = True, code_server: bool = True) -> None:
    """What a finished `npm install` leaves: code-server's bin, playwright-core, the postinstall's modules."""
    modules = folder / "node_modules"
    (modules / "playwright-core").mkdir(parents=True, exist_ok=True)
    (modules / "playwright-core" / "package.json").write_text("{}")
    (folder / tools.VSCODE_MODULES).mkdir(parents=True, exist_ok=True)
    if code_server:
        (modules / ".bin").mkdir(parents=True, exist_ok=True)
        (modules / ".bin" / "code-server").write_text("#!/bin/sh\n")
        (modules / ".bin" / "code-server").chmod(0o755)
    if kerberos:
        (folder / tools.KERBEROS_BINARY).parent.mkdir(parents=True, exist_ok=True)
        (folder / tools.KERBEROS_BINARY).write_bytes(b"\x7fELF")


def complete_tree(tools, folder: Path) -> None:
    build_tree(tools, folder)
    (folder / tools.STAMP_NAME).write_text(tools.stamp_text())


def fake_npm(monkeypatch, tools, *, returncode: int, tree: bool = False, kerberos: bool = True) -> list:
    """Replace subprocess.run with an `npm install` that writes a log line and maybe the tree."""
    calls = []

    def run(args, *, cwd, stdout, **kwargs):
        calls.append((args, Path(cwd), kwargs))
        stdout.write(b"npm ERR! something broke\n" if returncode else b"added 900 packages\n")
        if tree:
            build_tree(tools, Path(cwd), kerberos=kerberos)
        return subprocess.CompletedProcess(args, returncode)

    monkeypatch.setattr(tools.subprocess, "run", run)
    return calls


def test_cache_dir_honours_absolute_xdg_cache_home(tools, tmp_path):
    """An absolute XDG_CACHE_HOME holds the install folder."""
    folder = tools.cache_dir({"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert folder == tmp_path / "xdg" / "sparkls-dev" / "vscode-e2e" / tools.install_name()


def test_cache_dir_ignores_relative_xdg_cache_home(tools, tmp_path, monkeypatch):
    """A relative XDG_CACHE_HOME is ignored, as the XDG spec says: ~/.cache instead."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tools.cache_dir({"XDG_CACHE_HOME": "relative/cache"})
    assert folder == tmp_path / "home" / ".cache" / "sparkls-dev" / "vscode-e2e" / tools.install_name()
    assert tools.cache_dir({}) == folder


def test_folder_name_carries_every_pin(tools):
    """Changing any pinned version changes the cache folder."""
    name = tools.cache_dir({"XDG_CACHE_HOME": "/x"}).name
    for pin in (tools.CODE_SERVER_VERSION, tools.PLAYWRIGHT_CORE_VERSION, tools.node.NODE_VERSION):
        assert pin in name


def test_package_json_pins_both_and_allows_exactly_the_listed_scripts(tools):
    """package.json pins code-server and playwright-core and allows only the listed install scripts."""
    manifest = tools.package_json()
    assert manifest["dependencies"] == {
        "code-server": tools.CODE_SERVER_VERSION,
        "playwright-core": tools.PLAYWRIGHT_CORE_VERSION,
    }
    allowed = manifest["allowScripts"]
    assert allowed == {name: True for name in tools.ALLOWED_SCRIPTS}
    assert {name.rsplit("@", 1)[0] for name in allowed} == {"code-server", "argon2"}
    assert f"code-server@{tools.CODE_SERVER_VERSION}" in allowed


def test_is_complete_for_a_full_tree(tools, tmp_path):
    """A stamped tree with code-server's bin, playwright-core and VS Code's modules is complete."""
    complete_tree(tools, tmp_path / "c")
    assert tools.is_complete(tmp_path / "c")


def test_is_complete_false_without_stamp(tools, tmp_path):
    """Without the stamp a tree is an interrupted install."""
    build_tree(tools, tmp_path / "c")
    assert not tools.is_complete(tmp_path / "c")


def test_is_complete_false_with_wrong_stamp(tools, tmp_path):
    """A stamp from other pins does not count."""
    complete_tree(tools, tmp_path / "c")
    (tmp_path / "c" / tools.STAMP_NAME).write_text("code-server-0.0.0\n")
    assert not tools.is_complete(tmp_path / "c")


def test_is_complete_false_without_code_server_bin(tools, tmp_path):
    """No executable code-server, not complete."""
    build_tree(tools, tmp_path / "c", code_server=False)
    (tmp_path / "c" / tools.STAMP_NAME).write_text(tools.stamp_text())
    assert not tools.is_complete(tmp_path / "c")


def test_is_complete_false_without_postinstall_modules(tools, tmp_path):
    """No kerberos.node and few lib/vscode modules: the postinstall did not run."""
    build_tree(tools, tmp_path / "c", kerberos=False)
    for index in range(3):
        (tmp_path / "c" / tools.VSCODE_MODULES / f"m{index}").mkdir()
    (tmp_path / "c" / tools.STAMP_NAME).write_text(tools.stamp_text())
    assert not tools.is_complete(tmp_path / "c")


def test_npm_env_puts_our_node_first_and_overrides_nodedir(tools, tmp_path):
    """npm runs with .tools/node/bin first on PATH and builds against its headers."""
    env = tools.npm_env({"PATH": "/usr/bin:/bin", "npm_config_nodedir": "/usr"})
    assert env["PATH"].split(os.pathsep) == [str(tmp_path / ".tools" / "node" / "bin"), "/usr/bin", "/bin"]
    assert env["npm_config_nodedir"] == str(tmp_path / ".tools" / "node")


def test_install_failure_keeps_log_and_leaves_nothing_else(tools, tmp_path, monkeypatch):
    """A failed npm install raises a Failure naming the kept log; no partial or target remains."""
    calls = fake_npm(monkeypatch, tools, returncode=1)
    folder = tmp_path / "cache" / tools.install_name()
    with pytest.raises(tools.Failure) as caught:
        tools.install(folder)
    failed_log = folder.parent / f"{folder.name}.failed.log"
    assert str(failed_log) in str(caught.value)
    assert "exit code 1" in str(caught.value)
    assert "npm ERR! something broke" in failed_log.read_text()
    assert not folder.exists()
    assert not list(folder.parent.glob(f"{tools.PARTIAL_PREFIX}*"))
    args, cwd, kwargs = calls[0]
    assert args == [str(tmp_path / ".tools" / "node" / "bin" / "npm"), "install"]
    assert kwargs["env"]["npm_config_nodedir"] == str(tmp_path / ".tools" / "node")


def test_install_without_postinstall_output_fails(tools, tmp_path, monkeypatch):
    """npm exiting 0 without VS Code's modules is still a failure."""
    fake_npm(monkeypatch, tools, returncode=0, tree=True, kerberos=False)
    folder = tmp_path / "cache" / tools.install_name()
    with pytest.raises(tools.Failure, match="postinstall"):
        tools.install(folder)
    assert not folder.exists()
    assert (folder.parent / f"{folder.name}.failed.log").is_file()
    assert not list(folder.parent.glob(f"{tools.PARTIAL_PREFIX}*"))


def test_install_success_renames_into_place_with_stamp(tools, tmp_path, monkeypatch):
    """A good install lands in the folder, stamped, with its package.json and no partial left."""
    calls = fake_npm(monkeypatch, tools, returncode=0, tree=True)
    folder = tmp_path / "cache" / tools.install_name()
    (folder.parent).mkdir(parents=True)
    (folder.parent / f"{folder.name}.failed.log").write_text("old failure")
    tools.install(folder)
    assert calls[0][1].name.startswith(tools.PARTIAL_PREFIX)
    assert (folder / tools.STAMP_NAME).read_text() == tools.stamp_text()
    assert tools.is_complete(folder)
    assert json.loads((folder / "package.json").read_text()) == tools.package_json()
    assert "added 900 packages" in (folder / tools.LOG_NAME).read_text()
    assert not list(folder.parent.glob(f"{tools.PARTIAL_PREFIX}*"))
    assert not (folder.parent / f"{folder.name}.failed.log").exists()


def test_remove_stale_partials_removes_only_old_partials(tools, tmp_path):
    """Partials older than a day go; a young partial and other folders stay."""
    old, young, other = tmp_path / ".partial-old", tmp_path / ".partial-young", tmp_path / "keep"
    for folder in (old, young, other):
        folder.mkdir()
        (folder / "file").write_text("x")
    long_ago = time.time() - tools.STALE_PARTIAL_SECONDS - 60
    for folder in (old, other):
        os.utime(folder, (long_ago, long_ago))
    tools.remove_stale_partials(tmp_path)
    assert not old.exists()
    assert young.is_dir() and other.is_dir()


def test_main_print_cache_dir(tools, tmp_path, monkeypatch, capsys):
    """--print-cache-dir prints the install folder and installs nothing."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(tools, "ensure_all", lambda: pytest.fail("ensure_all called"))
    assert tools.main(["--print-cache-dir"]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "xdg" / "sparkls-dev" / "vscode-e2e" / tools.install_name())


def test_ensure_all_without_chromium_fails_before_install(tools, monkeypatch, capsys):
    """Without Chromium nothing is fetched: neither node nor the npm packages."""
    monkeypatch.setattr(tools, "find_chromium", lambda: None)
    monkeypatch.setattr(tools, "can_apt_install", lambda: False)
    monkeypatch.setattr(tools, "ensure_node", lambda: pytest.fail("ensure_node called"))
    monkeypatch.setattr(tools, "install", lambda folder: pytest.fail("install called"))
    with pytest.raises(tools.Failure, match="Chromium"):
        tools.ensure_all()
    assert tools.main([]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Chromium" in captured.err


def test_missing_packages_are_installed_with_apt_as_root(tools, monkeypatch):
    """As root with apt-get: Chromium and the Kerberos headers are installed, then the rest runs."""
    present: set[str] = set()
    calls: list[list[str]] = []

    def run(command, **kwargs):
        calls.append(command)
        if command[:2] == ["apt-get", "install"]:
            present.update(command[5:])
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(tools.subprocess, "run", run)
    monkeypatch.setattr(tools, "can_apt_install", lambda: True)
    monkeypatch.setattr(tools, "find_chromium", lambda: "/usr/bin/chromium" if "chromium" in present else None)
    monkeypatch.setattr(tools, "kerberos_headers_missing", lambda: "libkrb5-dev" not in present)
    monkeypatch.setattr(tools, "is_complete", lambda folder: False)
    monkeypatch.setattr(tools, "ensure_node", lambda: None)
    installed: list = []
    monkeypatch.setattr(tools, "install", installed.append)
    paths = tools.ensure_all()
    assert calls == [["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium", "libkrb5-dev"]]
    assert paths["chromium"] == "/usr/bin/chromium" and len(installed) == 1


def test_headers_are_not_asked_for_once_installed(tools, monkeypatch):
    """With code-server cached, only Chromium matters; without root the failure names it."""
    monkeypatch.setattr(tools, "can_apt_install", lambda: False)
    monkeypatch.setattr(tools, "find_chromium", lambda: None)
    monkeypatch.setattr(tools, "kerberos_headers_missing", lambda: True)
    monkeypatch.setattr(tools, "is_complete", lambda folder: True)
    with pytest.raises(tools.Failure) as failure:
        tools.ensure_all()
    assert "apt-get install chromium (as root)" in str(failure.value)
    assert "libkrb5-dev" not in str(failure.value)
