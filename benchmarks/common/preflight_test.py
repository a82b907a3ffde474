"""Preflight on profiles written by the test: every kind of check, ready and not."""

import http.server
import json
import socket
import threading

import pytest
from google.protobuf import text_format

from benchmarks.common import preflight
from benchmarks.common import preflight_checks
from benchmarks.common import runtime_profiles
from proto import preflight_pb2
from proto import runtime_profile_pb2
from proto import schema

SECRET_VALUE = "sk-do-not-print-4b1f9e"
# An import or a probe that should answer gets this long before the test fails (never
# reached; a cold child interpreter on a busy machine takes seconds). A module that
# never finishes importing gets HANG_TIMEOUT_S: it times out whatever the machine's load.
WAIT = 60.0
HANG_TIMEOUT_S = 1.0


def _profile(text: str) -> runtime_profile_pb2.RuntimeProfile:
    return text_format.Parse('benchmark_id: "toybench" environment: UNIFIED\n' + text,
                             runtime_profile_pb2.RuntimeProfile())


def _fake_package(root, name, body):
    (root / name).mkdir()
    (root / name / "__init__.py").write_text(body)


@pytest.fixture(name="fake_modules")
def _fake_modules(tmp_path, monkeypatch):
    """A module whose import never finishes, one that kills its importer and a fake torch
    without CUDA, importable by the subprocesses."""
    root = tmp_path / "site"
    root.mkdir()
    _fake_package(root, "hanging_module_for_preflight",
                  "import threading\nthreading.Event().wait()\n")
    _fake_package(root, "crashing_module_for_preflight",
                  "import os, sys\nsys.stderr.write('native crash\\n')\nos._exit(3)\n")
    _fake_package(root, "torch", "__version__ = '0.0-fake'\n"
                  "class version:\n    cuda = '13.0'\n"
                  "class cuda:\n    is_available = staticmethod(lambda: False)\n"
                  "    device_count = staticmethod(lambda: 0)\n")
    monkeypatch.syspath_prepend(str(root))
    return root


class _Server(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(503 if self.path.startswith("/down") else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        del args


@pytest.fixture(name="http_service")
def _http_service():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _verdicts(report):
    return {v.metric_id: v for v in report.metrics}


def test_modules_ready_missing_and_timed_out(fake_modules, monkeypatch):
    """The hanging import times out (a child that never answers: no timing decides it);
    every other import gets WAIT, so a slow machine cannot make one time out. Fails if a
    hang is not cut at the probe's timeout (the test would hang: Bazel's timeout), or if
    the child after the hang or the crash is not a fresh one (After would not be ready)."""
    del fake_modules
    real_ask = preflight_checks.ImportProbe.ask

    def ask(probe, name):
        # The probe's one timeout, chosen per module: short only for the hanging one.
        hangs = name == "hanging_module_for_preflight"
        probe._timeout_s = HANG_TIMEOUT_S if hangs else WAIT  # pylint: disable=protected-access
        return real_ask(probe, name)

    monkeypatch.setattr(preflight_checks.ImportProbe, "ask", ask)
    profile = _profile("""
        metrics { metric_id: "Ok" python_modules: "json" python_modules: "hashlib" }
        metrics { metric_id: "Missing" python_modules: "json"
                  python_modules: "no_such_module_for_preflight" }
        metrics { metric_id: "Slow" python_modules: "hanging_module_for_preflight" }
        metrics { metric_id: "Crash" python_modules: "crashing_module_for_preflight" }
        metrics { metric_id: "After" python_modules: "csv" }
    """)
    report = preflight.run_preflight(profile, options=preflight.Options(import_timeout_s=WAIT))
    v = _verdicts(report)
    assert v["Ok"].ready and not v["Ok"].reasons
    assert not v["Missing"].ready
    assert v["Missing"].reasons == [
        "import no_such_module_for_preflight failed: ModuleNotFoundError: No module named "
        "'no_such_module_for_preflight'"]
    assert not v["Slow"].ready and "did not finish within 1 s" in v["Slow"].reasons[0]
    assert v["Crash"].reasons == ["import crashing_module_for_preflight failed: the importing "
                                  "process died: native crash"]
    assert v["After"].ready  # a fresh child after the hang and the crash
    assert not report.ready


def test_each_module_is_imported_once(monkeypatch):
    calls = []
    real = preflight_checks.python_module
    monkeypatch.setattr(preflight_checks, "python_module",
                        lambda probe, m, fix: calls.append(m) or real(probe, m, fix))
    profile = _profile("""
        metrics { metric_id: "A" python_modules: "json" }
        metrics { metric_id: "B" python_modules: "json" python_modules: "csv" }
    """)
    report = preflight.run_preflight(profile)
    assert report.ready and sorted(calls) == ["csv", "json"]


def test_secret_env_var_is_never_written(monkeypatch):
    profile = _profile("""
        metrics { metric_id: "Judge" env_vars { name: "TOYBENCH_API_KEY" secret: true
                                                required: true purpose: "the judge" } }
        metrics { metric_id: "Named" env_vars { name: "OTHER_TOKEN" required: true } }
        metrics { metric_id: "Opt" env_vars { name: "TOYBENCH_OPTIONAL" } }
        env_vars { name: "TOYBENCH_DATA_ROOT" purpose: "dataset root" }
    """)
    monkeypatch.delenv("TOYBENCH_API_KEY", raising=False)
    monkeypatch.delenv("TOYBENCH_OPTIONAL", raising=False)
    monkeypatch.delenv("TOYBENCH_DATA_ROOT", raising=False)
    monkeypatch.setenv("OTHER_TOKEN", SECRET_VALUE)  # "TOKEN": secret by its name
    missing = preflight.run_preflight(profile)
    v = _verdicts(missing)
    assert not v["Judge"].ready and v["Judge"].reasons == [
        "$TOYBENCH_API_KEY is not set (the judge)"]
    assert v["Named"].ready and v["Named"].checks[0].detail == "set (secret, value not shown)"
    assert v["Opt"].ready and not v["Opt"].checks[0].ok  # optional: reported, not blocking
    assert any("TOYBENCH_DATA_ROOT" in n for n in missing.notes)

    monkeypatch.setenv("TOYBENCH_API_KEY", SECRET_VALUE)
    ready = preflight.run_preflight(profile)
    assert _verdicts(ready)["Judge"].ready
    for report in (missing, ready):
        written = schema.to_json(report) + preflight.format_table(report)
        assert SECRET_VALUE not in written
    named = _verdicts(ready)["Named"].checks[0]
    assert (named.detail, named.reason, named.fix) == ("set (secret, value not shown)", "", "")


def test_services_http_tcp_and_unreachable(http_service):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        tcp = f"127.0.0.1:{listener.getsockname()[1]}"
        profile = _profile(f"""
            metrics {{ metric_id: "Http" services {{ name: "judge" address: "{http_service}/v1" }} }}
            metrics {{ metric_id: "Tcp" services {{ name: "db" address: "{tcp}" }} }}
            metrics {{ metric_id: "Down" services {{ name: "vlm" address: "{http_service}/down" }} }}
            metrics {{ metric_id: "Closed" services {{ name: "x"
                                                     address: "http://127.0.0.1:{_closed_port()}" }} }}
            metrics {{ metric_id: "Unset" services {{ name: "y" address: "$TOYBENCH_UNSET_URL" }} }}
        """)
        report = preflight.run_preflight(profile, options=preflight.Options(
            service_timeout_s=WAIT))  # each answers at once (or is refused): none times out
    v = _verdicts(report)
    assert v["Http"].ready and v["Http"].checks[0].detail.startswith("HTTP 200")
    assert v["Tcp"].ready
    assert not v["Down"].ready and "answered HTTP 503" in v["Down"].reasons[0]
    assert not v["Closed"].ready and "unreachable" in v["Closed"].reasons[0]
    assert not v["Unset"].ready and "a variable is not set" in v["Unset"].reasons[0]


def test_cuda_required_blocks_and_preferred_does_not(fake_modules):
    del fake_modules  # torch here is the fake one: no CUDA device
    profile = _profile("""
        metrics { metric_id: "Gpu" device: CUDA_REQUIRED }
        metrics { metric_id: "Faster" device: CUDA_PREFERRED }
        metrics { metric_id: "Cpu" device: CPU_OK }
    """)
    v = _verdicts(preflight.run_preflight(profile))
    assert not v["Gpu"].ready and v["Gpu"].reasons == ["no CUDA device visible"]
    assert "torch 0.0-fake (CUDA 13.0), 0 device(s) visible" == v["Gpu"].checks[0].detail
    assert v["Faster"].ready and not v["Faster"].checks[0].ok
    assert v["Cpu"].ready and not v["Cpu"].checks


def test_pending_metric_is_never_ready():
    profile = _profile("""
        metrics { metric_id: "Later" python_modules: "json" pending: "needs SAM-3 (issue 4)" }
    """)
    report = preflight.run_preflight(profile)
    assert not report.ready
    assert report.metrics[0].reasons == ["not computed by worldeval yet: needs SAM-3 (issue 4)"]
    assert preflight.unready_metrics(profile) == {
        "Later": "not computed by worldeval yet: needs SAM-3 (issue 4)"}


def test_unknown_metric_lists_the_valid_ones():
    profile = _profile('metrics { metric_id: "A" } metrics { metric_id: "B" }')
    with pytest.raises(runtime_profiles.UnknownIdError, match="'Nope'.*A, B"):
        preflight.run_preflight(profile, ["A", "Nope"])


def test_report_round_trips_and_says_readiness_is_not_evidence():
    profile = _profile('metrics { metric_id: "A" python_modules: "json" }'
                       'metrics { metric_id: "B" pending: "later" }')
    report = preflight.run_preflight(profile, ["A"], profile_source="toy.textproto")
    assert report.ready and report.disclaimer == preflight.DISCLAIMER
    back = schema.from_json(schema.to_json(schema.stamp(report)), preflight_pb2.PreflightReport)
    assert back == report and back.schema_version == schema.PREFLIGHT_REPORT_SCHEMA
    assert json.loads(schema.to_json(report))["metrics"][0]["metric_id"] == "A"
    table = preflight.format_table(preflight.run_preflight(profile))
    assert "B       NOT READY  not computed by worldeval yet: later" in table.splitlines()
    assert "1 of 2 metrics ready: NOT READY. Readiness is not evidence" in table


def test_checkpoint_spec_matches_the_resolver_layout():
    req = runtime_profile_pb2.CheckpointRequirement(
        id="facebook/dinov2-base", name="dinov2_base", file="model.safetensors",
        snapshot=True, sha256="ABCD")
    spec = preflight.checkpoint_spec(req)
    assert (spec.name, spec.hf_repo, spec.hf_revision, spec.sha256) == (
        "dinov2_base", "facebook/dinov2-base", "main", "abcd")
    assert preflight.checkpoint_spec(runtime_profile_pb2.CheckpointRequirement(
        id="org/repo-x", file="w.bin")).name == "repo-x"


def test_runner_level_needs_apply_to_every_metric(monkeypatch):
    monkeypatch.delenv("TOYBENCH_ROOT", raising=False)
    profile = _profile("""
        python_modules: "json" python_modules: "no_such_runner_module"
        env_vars { name: "TOYBENCH_ROOT" required: true }
        metrics { metric_id: "A" python_modules: "csv" }
        metrics { metric_id: "B" }
    """)
    v = _verdicts(preflight.run_preflight(profile))
    for metric in ("A", "B"):
        assert not v[metric].ready
        assert v[metric].reasons[0].startswith("import no_such_runner_module failed")
        assert v[metric].reasons[1] == "$TOYBENCH_ROOT is not set"
    assert [c.subject for c in v["A"].checks][:4] == [
        "json", "no_such_runner_module", "csv", "TOYBENCH_ROOT"]

