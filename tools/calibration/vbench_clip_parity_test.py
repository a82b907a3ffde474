"""VBench's CLIP backends (background_consistency, appearance_style, aesthetic_quality)
equal the official VBench / openai-CLIP code on seeded random full-size weights (the
stored run of official_runs/vbench_clip_dino.py)."""

import torch
import torch.nn.functional as F
from torchvision.transforms import functional as tvf

from benchmarks.vbench.dimensions import transforms
from tools.calibration import parity_check
from tools.calibration import parity_table
from tools.calibration import vbench_clip_parity
from tools.calibration import vbench_record


def _report(rows):
    for row in rows:
        print(f"{row.backend} {row.check} {row.compared[:60]}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}, element ratio {row.element_ratio:.3g}")


def test_b32_backends_match_the_official_run_and_the_table():
    rows = vbench_clip_parity.run_b32()
    _report(rows)
    assert {r.backend for r in rows} == {vbench_clip_parity.BACKGROUND, vbench_clip_parity.STYLE}
    parity_check.assert_rows(rows)


def test_aesthetic_matches_the_official_run_and_the_table():
    rows = vbench_clip_parity.run_aesthetic()
    _report(rows)
    parity_check.assert_rows(rows)


def test_quick_gelu_is_pinned():
    """clip.load builds QuickGELU towers: the same weights with exact GELU move the
    ViT-B/32 features far outside the tolerance."""
    tower, _ = vbench_clip_parity.load_b32()
    clip = vbench_record.clips()[0]
    official = vbench_record.arrays()["background/features"][:3]
    layers = tower.model.vision_model.encoder.layers
    previous = [layer.mlp.activation_fn for layer in layers]
    try:
        for layer in layers:
            layer.mlp.activation_fn = torch.nn.GELU()
        with torch.no_grad():
            embeds = tower.model(pixel_values=transforms.clip_pixels(
                transforms.float_video(clip))).image_embeds
    finally:
        for layer, fn in zip(layers, previous):
            layer.mlp.activation_fn = fn
    relative = parity_table.differences(F.normalize(embeds, dim=-1), official)[1]
    print(f"exact GELU: rel {relative:.3g}")
    assert relative > 1e-3, relative


def test_the_unantialiased_resize_is_pinned():
    """utils.clip_transform resizes load_video's float tensor with antialias=False: an
    antialiased downscale of the 641x361 clip is far from the official input."""
    clip = vbench_record.clips()[3]
    resized = tvf.resize(transforms.float_video(clip), 224,
                         interpolation=tvf.InterpolationMode.BICUBIC, antialias=True)
    pixels = tvf.normalize(tvf.center_crop(resized, 224) / 255.0, transforms.CLIP_MEAN,
                           transforms.CLIP_STD)
    mine, theirs = vbench_record.stats(list(pixels), "clip_transform", first_frame=9)
    relative = parity_table.differences(mine, theirs)[1]
    print(f"antialiased: rel {relative:.3g}")
    assert relative > 1e-3, relative
