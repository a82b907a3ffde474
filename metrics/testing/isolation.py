"""Test fixture: no cache of the user's is seen and nothing is downloaded.

Import it into a test module to apply it to every test there:
    from metrics.testing.isolation import no_real_caches  # noqa: F401  (autouse fixture)
"""

import pytest


@pytest.fixture(autouse=True)
def no_real_caches(tmp_path, monkeypatch):
    """HOME and the torch / Hugging Face caches point into tmp_path; HF_HUB_OFFLINE=1."""
    for name in ("TORCH_HOME", "XDG_CACHE_HOME", "HF_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "cache" / name))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
