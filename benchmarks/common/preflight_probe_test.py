"""The import probe answers modules this process already imported without a child."""

from benchmarks.common import preflight_checks


def test_a_module_already_imported_here_needs_no_child_process(monkeypatch):
    started = []
    monkeypatch.setattr(preflight_checks.ImportProbe, "_start",
                        lambda self: started.append(1) or (_ for _ in ()).throw(
                            AssertionError("a child was started")))
    import json  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    probe = preflight_checks.ImportProbe(timeout_s=2)
    check = preflight_checks.python_module(probe, "json", "")
    assert check.ok and check.seconds == 0.0 and not started
