"""SAM 2's CUDA bfloat16 autocast (sam2_loader.Sam2) without a GPU: TCS's official
`torch.autocast("cuda", bfloat16)` is on exactly on a CUDA device (and when asked), with
bfloat16, around both predictors' networks; their logits come back float32. The `[cuda]`
case runs the tiny model on a real GPU (metrics/slam/cuda/gpu_check.sh runs it and fails
where it was skipped)."""

import numpy as np
import pytest
import torch

from metrics.segmentation import sam2_image
from metrics.segmentation import sam2_loader
from metrics.segmentation import sam2_video
from metrics.segmentation import tiny_sam2
from metrics.testing import autocast_recorder


_Recorder = autocast_recorder.AutocastRecorder


@pytest.mark.parametrize("device,asked,enabled", [
    ("cuda", True, True), ("cuda:1", True, True), ("cuda", False, False),
    ("cpu", True, False), ("cpu", False, False)])
def test_bf16_autocast_is_on_exactly_on_cuda_when_asked(monkeypatch, device, asked, enabled):
    recorder = _Recorder()
    monkeypatch.setattr(torch, "autocast", recorder)
    sam = sam2_loader.Sam2(None, None, tiny_sam2.TINY, device, asked)
    assert sam.bf16_autocast is enabled
    with sam._autocast():  # pylint: disable=protected-access
        pass
    assert recorder.calls == [{"device_type": "cuda", "dtype": torch.bfloat16,
                               "enabled": enabled}]


def test_both_predictors_run_their_networks_inside_it(monkeypatch):
    recorder, inside = _Recorder(), []
    monkeypatch.setattr(torch, "autocast", recorder)

    def predict_low_res(model, pixels, boxes):
        inside.append(("image", recorder.active))
        return torch.zeros(len(boxes[0]), 1, 4, 4), torch.zeros(len(boxes[0]), 1)

    def propagate_logits(*args):
        inside.append(("video", recorder.active))
        yield 0, [1], torch.zeros(1, 1, 4, 4)
        inside.append(("video", recorder.active))
    monkeypatch.setattr(sam2_image, "predict_low_res", predict_low_res)
    monkeypatch.setattr(sam2_video, "propagate_logits", propagate_logits)
    sam = sam2_loader.Sam2(None, None, tiny_sam2.TINY, "cuda", True)
    frame = np.zeros((8, 8, 3), np.uint8)
    sam.image_masks(frame, np.array([[0, 0, 4, 4]]))
    sam.propagate(frame[None], {1: np.ones((8, 8), bool)}, 0, 1)
    assert inside == [("image", True), ("video", True), ("video", True)]
    assert not recorder.active
    assert len(recorder.calls) == 2 and all(c["enabled"] for c in recorder.calls)


def test_bfloat16_network_outputs_come_back_float32():
    class _Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.zeros(1))

        def forward(self, pixel_values, input_boxes, multimask_output):
            n = input_boxes.shape[1]
            return type("Out", (), {
                "pred_masks": torch.ones(1, n, 1, 4, 4, dtype=torch.bfloat16),
                "iou_scores": torch.ones(1, n, 1, dtype=torch.bfloat16)})
    logits, iou = sam2_image.predict_low_res(_Net(), torch.zeros(1, 3, 8, 8),
                                             torch.zeros(1, 2, 4))
    assert logits.dtype == iou.dtype == torch.float32


@pytest.mark.skipif(not torch.cuda.is_available(), reason="[cuda] needs a GPU")
def test_cuda_runs_sam2_under_bf16_and_returns_float32(tmp_path):
    """[cuda] The real thing: the tiny SAM 2 on the GPU, bf16 autocast on, its image
    logits float32 and finite and its masks boolean."""
    sam = sam2_loader.load_sam2(tiny_sam2.save_tiny_sam2(tmp_path / "tiny.pt"), "cuda",
                                config=tiny_sam2.TINY)
    assert sam.bf16_autocast
    frame = np.random.default_rng(0).integers(0, 256, (64, 80, 3), dtype=np.uint8)
    logits, iou = sam.image_logits(frame, np.array([[8, 8, 40, 50]]))
    assert logits.dtype == iou.dtype == torch.float32 and torch.isfinite(logits).all()
    masks = sam.image_masks(frame, np.array([[8, 8, 40, 50]]))
    assert masks.dtype == bool and masks.shape == (1, 64, 80)
