"""Where a tier goes: loopback hosts, and the split local/remote warning."""

import pytest

from sparkls.config import load_settings
from sparkls.endpoints import is_loopback_host, split_tiers, split_warning

LOCAL = "http://127.0.0.1:8765/v1"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.10.20.30", "::1", "[::1]", "localhost", "LocalHost", "localhost."])
def test_loopback_hosts(host):
    """127.0.0.0/8, ::1 and localhost are this machine."""
    assert is_loopback_host(host)


@pytest.mark.parametrize("host", ["127.1", "127.0.1", "2130706433", "0x7f000001", "0x7f.1", "0177.0.0.1", "::ffff:127.0.0.1", "[::ffff:7f00:1]"])
def test_loopback_written_otherwise(host):
    """Shorthands the resolver takes and IPv4-mapped IPv6 reach this machine too."""
    assert is_loopback_host(host)


@pytest.mark.parametrize("host", ["10.1", "167772161", "::ffff:10.0.0.1", "127.0.0.1.5", "1e2", "0x7g.0.0.1", "4294967296"])
def test_shorthands_elsewhere_stay_remote(host):
    """The same forms of another address, and what is no address at all, are remote."""
    assert not is_loopback_host(host)


@pytest.mark.parametrize("host", [None, "", "0.0.0.0", "10.0.0.1", "api.openai.com", "localhost.example.com", "::"])
def test_other_hosts_are_remote(host):
    """Anything else, unspecified addresses included, is remote."""
    assert not is_loopback_host(host)


def test_no_warning_when_both_tiers_are_on_one_side():
    """Both remote (the default) or both local: nothing to say."""
    assert split_warning(load_settings()[0]) is None
    assert split_warning(load_settings({"localBaseUrl": LOCAL})[0]) is None


def test_a_local_fast_tier_and_a_remote_deep_tier_are_named():
    """Fast on loopback, deep at OpenAI: the warning says where the deep tier goes and the switch."""
    settings, _ = load_settings({"fast": {"baseUrl": LOCAL}})
    assert split_tiers(settings) == ("fast", "deep")
    warning = split_warning(settings)
    assert warning is not None
    assert "deep tier still goes to api.openai.com" in warning and "local_base_url" in warning


def test_a_remote_fast_tier_and_a_local_deep_tier_are_named():
    """The other way round names the fast tier as the remote one."""
    settings, _ = load_settings({"deep": {"baseUrl": LOCAL}})
    assert split_tiers(settings) == ("deep", "fast")
    assert "fast tier still goes to api.openai.com" in (split_warning(settings) or "")
