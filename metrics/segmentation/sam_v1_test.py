"""SAM v1: the tiny model from the official file format, the PAS call sequence, box scaling
with the original_size the caller passes, and bad input."""

import numpy as np
import pytest
from segment_anything import SamPredictor
from segment_anything import sam_model_registry
from segment_anything.build_sam import _build_sam  # pylint: disable=protected-access
import torch

from metrics.segmentation import sam_v1
from metrics.segmentation import tiny_sam_v1
from tools.fixtures import scene

BOXES = np.array([[20.5, 10.25, 90.0, 70.75], [0.0, 0.0, 130.0, 96.0]], dtype=np.float32)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return tiny_sam_v1.write_checkpoint(tmp_path_factory.mktemp("sam"), noise=0.02)


@pytest.fixture(scope="module")
def predictor(checkpoint):
    return sam_v1.load_sam(checkpoint, tiny_config=tiny_sam_v1.TINY)


@pytest.fixture(scope="module")
def frame():
    return np.ascontiguousarray(scene.render_clip(3, 97, 131, 5)[0][0][..., ::-1])


def test_masks_equal_the_official_pas_call_sequence(checkpoint, predictor, frame):
    ours = sam_v1.masks_from_boxes(predictor, frame, BOXES, (3, 800))
    # perceptible_amplitude_score.py, written out: the package builder and loader, then
    # set_image, apply_boxes_torch(boxes, image.shape[:2]) and predict_torch.
    official = SamPredictor(_build_sam(checkpoint=str(checkpoint), **tiny_sam_v1.TINY))
    official.set_image(frame)
    boxes = official.transform.apply_boxes_torch(torch.tensor(BOXES), (3, 800))
    masks, _, _ = official.predict_torch(point_coords=None, point_labels=None, boxes=boxes,
                                         multimask_output=False)
    assert ours.dtype == np.bool_ and ours.shape == (2, 97, 131)
    np.testing.assert_array_equal(ours, masks[:, 0].numpy())
    assert 0 < ours.sum() < ours.size


def test_boxes_are_scaled_with_the_original_size_the_caller_passes(predictor, frame, monkeypatch):
    seen = []
    real = predictor.predict_torch

    def spy(**kwargs):
        seen.append(kwargs["boxes"].clone())
        return real(**kwargs)

    monkeypatch.setattr(predictor, "predict_torch", spy)
    sam_v1.masks_from_boxes(predictor, frame, BOXES, (3, 800))   # the official bug
    sam_v1.masks_from_boxes(predictor, frame, BOXES, (97, 131))  # corrected
    # ResizeLongestSide(1024): scale 1024 / max(oh, ow), new size int(. * scale + 0.5).
    faithful = BOXES * np.array([1024 / 800, 4 / 3, 1024 / 800, 4 / 3])
    corrected = BOXES * np.array([1024 / 131, 758 / 97, 1024 / 131, 758 / 97])
    np.testing.assert_allclose(seen[0].numpy(), faithful, rtol=1e-6)
    np.testing.assert_allclose(seen[1].numpy(), corrected, rtol=1e-6)


def test_no_boxes_give_no_masks_without_running_sam(predictor, frame, monkeypatch):
    monkeypatch.setattr(predictor, "set_image", lambda *_: pytest.fail("SAM ran"))
    masks = sam_v1.masks_from_boxes(predictor, frame, np.zeros((0, 4)), (3, 800))
    assert masks.shape == (0, 97, 131) and masks.dtype == np.bool_


def test_production_path_is_the_package_registry(checkpoint, monkeypatch):
    calls = []

    def fake_vit_h(checkpoint=None):
        calls.append(checkpoint)
        return _build_sam(checkpoint=checkpoint, **tiny_sam_v1.TINY)

    monkeypatch.setitem(sam_model_registry, "vit_h", fake_vit_h)
    assert isinstance(sam_v1.load_sam(checkpoint), SamPredictor)
    assert calls == [str(checkpoint)]


def test_bad_inputs_are_named(checkpoint, predictor, frame, tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.pth"):
        sam_v1.load_sam(tmp_path / "missing.pth")
    with pytest.raises(ValueError, match="vit_x"):
        sam_v1.load_sam(checkpoint, model_type="vit_x")
    wider = {**tiny_sam_v1.TINY, "encoder_embed_dim": 64}
    with pytest.raises(ValueError, match="sam_tiny.pth: not a SAM"):
        sam_v1.load_sam(checkpoint, tiny_config=wider)
    with pytest.raises(ValueError, match="RGB uint8"):
        sam_v1.masks_from_boxes(predictor, frame[..., 0], BOXES, (3, 800))
    with pytest.raises(ValueError, match=r"\(N, 4\)"):
        sam_v1.masks_from_boxes(predictor, frame, BOXES[:, :3], (3, 800))
    with pytest.raises(ValueError, match="original_size"):
        sam_v1.masks_from_boxes(predictor, frame, BOXES, (3, 800, 1))
