"""The hub probe against loopback servers: a closed port, a silent listener, an HTTP
server and a proxy; verdicts cached per host and bounded by the deadline."""

import re
import time

import pytest

from metrics.checkpoints import reachability
from metrics.testing.loopback import answering_server, closed_port, silent_listener

_PROXY_ENV = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    for name in _PROXY_ENV:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.delenv(reachability.TIMEOUT_ENV, raising=False)
    reachability.reset()
    yield
    reachability.reset()


def test_closed_port_is_refused_at_once():
    """"connection refused" (not "no answer") shows the probe did not wait out a deadline;
    no wall-clock bound, which a busy machine could break."""
    port = closed_port()
    verdict = reachability.probe(f"http://127.0.0.1:{port}/x")
    assert not verdict.reachable and verdict.reason == "connection refused"
    assert verdict.describe() == (f"127.0.0.1:{port} is unreachable (connection refused after "
                                  f"{verdict.seconds:.1f} s)")


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_silent_listener_is_unreachable_within_the_deadline(monkeypatch, scheme):
    """The deadline is the variable's (the probe is given 0.5 s, not the 3 s default) and it
    is waited out, not cut short; no upper wall-clock bound (a busy machine may overrun)."""
    monkeypatch.setenv(reachability.TIMEOUT_ENV, "0.5")
    deadlines = []
    real = reachability._probe  # pylint: disable=protected-access

    def spy(scheme_, host, port_, timeout):
        deadlines.append(timeout)
        return real(scheme_, host, port_, timeout)
    monkeypatch.setattr(reachability, "_probe", spy)
    with silent_listener() as (port, accepted):
        start = time.monotonic()
        verdict = reachability.probe(f"{scheme}://127.0.0.1:{port}")
        took = time.monotonic() - start
    assert deadlines == [0.5]
    assert took >= 0.45 and verdict.seconds >= 0.45  # a deadline cannot fire early
    assert not verdict.reachable and verdict.reason == "no answer"
    assert re.fullmatch(rf"127\.0\.0\.1:{port} is unreachable \(no answer after \d+\.\d s\)",
                        verdict.describe())
    assert len(accepted) == 1


def test_an_http_error_answer_is_reachable_and_the_verdict_is_cached():
    with answering_server() as (port, requests):
        first = reachability.probe(f"http://127.0.0.1:{port}/a")
        second = reachability.probe(f"http://127.0.0.1:{port}/b")
        assert first.reachable and second is first
        assert requests == [("HEAD", "/")]
        reachability.reset()
        assert reachability.probe(f"http://127.0.0.1:{port}/c").reachable
        assert len(requests) == 2


def test_each_host_and_port_gets_its_own_probe():
    a, b = closed_port(), closed_port()
    assert reachability.probe(f"http://127.0.0.1:{a}").port == a
    assert reachability.probe(f"http://127.0.0.1:{b}").port == b


def test_a_proxy_in_the_environment_is_what_is_probed(monkeypatch):
    port = closed_port()
    monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{port}")
    verdict = reachability.probe("https://hub.example.invalid")  # never resolved
    assert verdict.via_proxy and not verdict.reachable
    assert verdict.describe().startswith(f"the proxy 127.0.0.1:{port} is unreachable")
    reachability.reset()
    with silent_listener() as (listening, _):
        monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{listening}")
        assert reachability.probe("https://hub.example.invalid").reachable  # TCP only


def test_an_unknown_name_is_unreachable():
    verdict = reachability.probe("https://no-such-host.invalid")
    assert not verdict.reachable and verdict.reason  # e.g. "name or service not known"
    assert verdict.describe().startswith("no-such-host.invalid:443 is unreachable (")


def test_timeout_and_endpoint_come_from_the_environment(monkeypatch):
    assert reachability.timeout_s() == reachability.DEFAULT_TIMEOUT_S == 3.0
    monkeypatch.setenv(reachability.TIMEOUT_ENV, "1.5")
    assert reachability.timeout_s() == 1.5
    monkeypatch.setenv(reachability.TIMEOUT_ENV, "soon")
    assert reachability.timeout_s() == 3.0
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    assert reachability.hf_endpoint() == "https://huggingface.co"
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9/")
    assert reachability.hf_endpoint() == "http://127.0.0.1:9"


def test_not_a_url_is_refused():
    with pytest.raises(ValueError, match="expected an http"):
        reachability.probe("file:///tmp/x")
