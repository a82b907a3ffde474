"""The MapAnything adapter's glue, against a stand-in `mapanything` package.

The real package is not installable here (not on PyPI, no weights), so the test
writes a minimal package with MapAnything's entry points into its tmp folder. It
checks what the adapter hands to them (the official infer arguments, every frame as
a lossless PNG in order) and how it reads the poses back; it does not exercise
MapAnything itself, and no number from it is ever reported as a metric.
"""

import importlib
import json
import pathlib
import sys
import textwrap

import cv2
import numpy as np
import pytest

from metrics.camera import mapanything_poses
from metrics.camera import rotation_ate

_STANDIN = {
    "mapanything/__init__.py": "",
    "mapanything/utils/__init__.py": "",
    "mapanything/utils/image.py": """
        import json, os
        import cv2
        def load_images(paths):
            with open(os.environ["STANDIN_LOG"], "a") as f:
                f.write(json.dumps({"load_images": list(paths)}) + "\\n")
            return [{"img": cv2.imread(p)} for p in paths]
        """,
    "mapanything/models.py": """
        import json, os
        import numpy as np
        import torch
        class MapAnything(torch.nn.Module):
            @classmethod
            def from_pretrained(cls, path):
                model = cls()
                model.poses = np.load(os.path.join(path, "poses.npy"))
                return model
            def infer(self, views, **kwargs):
                with open(os.environ["STANDIN_LOG"], "a") as f:
                    f.write(json.dumps({"infer": kwargs, "views": len(views)}) + "\\n")
                return [{"camera_poses": torch.tensor(self.poses[i][None], dtype=torch.float32)}
                        for i in range(len(views))]
        """,
}


@pytest.fixture
def standin(tmp_path, monkeypatch):
    root = tmp_path / "site"
    for name, text in _STANDIN.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("STANDIN_LOG", str(log))
    monkeypatch.syspath_prepend(str(root))
    importlib.invalidate_caches()
    yield log
    for name in [m for m in sys.modules if m.split(".")[0] == "mapanything"]:
        del sys.modules[name]


def _yaw_poses(degrees):
    poses = np.tile(np.eye(4), (len(degrees), 1, 1))
    for pose, deg in zip(poses, degrees):
        a = np.radians(deg)
        pose[:3, :3] = [[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]]
    return poses


def test_not_installed_says_how_to_install(monkeypatch):
    monkeypatch.setattr(mapanything_poses, "MODULE", "mapanything_absent_for_test")
    assert not mapanything_poses.is_installed()
    with pytest.raises(ModuleNotFoundError, match="not on PyPI"):
        mapanything_poses.load_mapanything(pathlib.Path("/nonexistent"), "cpu")


def test_adapter_passes_official_arguments_and_reads_poses(standin, tmp_path):
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    expected = _yaw_poses([0, 3, 7, 12, 18])
    np.save(snapshot / "poses.npy", expected)
    frames = np.random.default_rng(0).integers(0, 256, (5, 24, 32, 3), dtype=np.uint8)

    assert mapanything_poses.is_installed()
    model = mapanything_poses.load_mapanything(snapshot, "cpu")
    poses = mapanything_poses.estimate_poses(model, frames)

    np.testing.assert_allclose(poses, expected, atol=1e-6)
    calls = [json.loads(line) for line in standin.read_text().splitlines()]
    paths = calls[0]["load_images"]
    assert [pathlib.Path(p).name for p in paths] == [f"{i:05d}.png" for i in range(5)]
    assert calls[1] == {"infer": mapanything_poses.INFER_KWARGS, "views": 5}
    assert calls[1]["infer"] == {"memory_efficient_inference": True, "minibatch_size": 1,
                                 "use_amp": True, "amp_dtype": "bf16", "apply_mask": True,
                                 "mask_edges": True}
    # The temporary PNGs are gone after the call (they were lossless while they lived).
    assert not any(pathlib.Path(p).exists() for p in paths)
    # Poses come back through float32 (as MapAnything's do): arccos near 1 turns that
    # into ~0.01 deg of error, so the score is 1 to within 1e-3, not exactly.
    perfect = rotation_ate.rotation_ate_score(expected, poses)
    assert perfect.score >= 0.999


def test_pngs_are_lossless_copies_of_the_frames(standin, tmp_path, monkeypatch):
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    np.save(snapshot / "poses.npy", _yaw_poses([0, 5]))
    frames = np.random.default_rng(1).integers(0, 256, (2, 10, 14, 3), dtype=np.uint8)
    seen = []
    image_utils = importlib.import_module("mapanything.utils.image")
    original = image_utils.load_images
    monkeypatch.setattr(image_utils, "load_images",
                        lambda paths: seen.extend(cv2.imread(p) for p in paths) or original(paths))
    mapanything_poses.estimate_poses(mapanything_poses.load_mapanything(snapshot, "cpu"), frames)
    np.testing.assert_array_equal(np.stack(seen), frames)
