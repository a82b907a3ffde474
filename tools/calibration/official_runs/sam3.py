"""The official side of the SAM-3 parity check; runs OUTSIDE the repository.

sam3 0.1.4 cannot be locked (it requires numpy<2.4; the lock has 2.4.1), so this ran in
a scratch virtualenv (2026-12-01) layered on /tmp/iqa (the locked torch 2.14.1 /
torchvision 0.29.1, numpy 2.3.5, pillow, opencv):

    python3.11 -m venv /tmp/pmb-sam3-venv
    echo /tmp/iqa/lib/python3.11/site-packages \\
        > /tmp/pmb-sam3-venv/lib/python3.11/site-packages/base.pth
    /tmp/pmb-sam3-venv/bin/pip install sam3==0.1.4 "numpy<2.4" psutil
    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in
    /tmp/pmb-sam3-venv/bin/python tools/calibration/official_runs/sam3.py \\
        /tmp/parity_in tools/calibration/sam3_official.csv

Every requirement of sam3 installed (timm 1.0.31, iopath, pycocotools, einops, ftfy,
regex, huggingface-hub 1.33); psutil is imported by sam3.model_builder (through the
video predictor) but not declared. The wheel does not ship the BPE vocabulary
(assets/bpe_simple_vocab_16e6.txt.gz); the tiny one is passed as `bpe_path`.

The model is `build_sam3_image_model(bpe_path, device="cpu", load_from_HF=False,
checkpoint_path=<sam3_official.pt>)`: the official builder's own wiring, with the
constructors it calls (in sam3.model_builder's namespace) given the tiny sizes of
tools/calibration/sam3_parity (width 16, 2 heads, feed-forward 32, one layer per
transformer, 2 queries, 56 px input, ViT depth 2 with window 2 and block 1 global,
pretrain size 28; the text tower 16 wide, 1 layer, vocabulary 525). The builder
hard-codes device="cuda" for two caches it precomputes (PositionEmbeddingSine's and
TransformerDecoder's coordinate cache), and the geometry encoder's _encode_boxes calls
`pin_memory()` (which needs a CUDA driver) on every prompt: so the official package does
not run on a CPU-only machine as shipped. Here a TorchFunctionMode, for the whole run,
creates tensors asked for on "cuda" on the CPU and makes pin_memory() return its tensor
(neither changes a value: the caches are the same functions of the sizes, and pinning
only places memory). The checkpoint is read by the builder's _load_checkpoint
(strict=False); the keys it reports missing must be exactly the RoPE tables and the
point-prompt projections (sam3_layout.NOT_IN_SNAPSHOT).

Per frame (BGR -> RGB PIL) and prompt: `Sam3Processor(model, resolution=56,
device="cpu", confidence_threshold=0.0)`, `set_image(pil)`, `set_text_prompt(prompt)`;
recorded: the processor's transform of the image, the tokenizer's ids, the raw outputs
of model.forward_grounding (pred_logits, presence_logit_dec, pred_masks), and the state's
scores, masks_logits (the mask probabilities at the frame's size, before the 0.5 cut)
and masks (per query: pixel count and the sums of row and column indices).
"""

import csv
import json
import pathlib
import re
import sys

import cv2
import numpy as np
from PIL import Image
import torch
from torch import nn
from torch.overrides import TorchFunctionMode
from torchvision.transforms import v2

SIZE, WIDTH, FEED_FORWARD, HEADS = 56, 16, 32, 2
ALLOWED_MISSING = (r".*\.attn\.freqs_cis", r"geometry_encoder\.points_.*")


class _CudaOnCpu(TorchFunctionMode):
    """device="cuda" -> the CPU; Tensor.pin_memory() (needs a CUDA driver) -> the tensor."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.pin_memory:
            return args[0]
        kwargs = dict(kwargs or {})
        if str(kwargs.get("device", "")).startswith("cuda"):
            kwargs["device"] = "cpu"
        return func(*args, **kwargs)


def _sized(cls, **sizes):
    def make(*args, **kwargs):
        kwargs.update(sizes)
        if "out_norm" in kwargs and kwargs["out_norm"] is not None:
            kwargs["out_norm"] = nn.LayerNorm(WIDTH)  # the builder passes LayerNorm(256)
        return cls(*args, **kwargs)
    return make


def _tiny_builder(mb, vocab_size):
    sizes = {
        "ViT": dict(img_size=SIZE, pretrain_img_size=28, embed_dim=WIDTH, depth=2,
                    num_heads=HEADS, mlp_ratio=2.0, window_size=2, global_att_blocks=(1,)),
        "PositionEmbeddingSine": dict(num_pos_feats=WIDTH),
        "Sam3DualViTDetNeck": dict(d_model=WIDTH),
        "VETextEncoder": dict(d_model=WIDTH, width=WIDTH, heads=HEADS, layers=1,
                              vocab_size=vocab_size),
        "TransformerEncoderLayer": dict(d_model=WIDTH, dim_feedforward=FEED_FORWARD),
        "MultiheadAttention": dict(num_heads=HEADS, embed_dim=WIDTH),
        "TransformerEncoderFusion": dict(d_model=WIDTH, num_layers=1),
        "TransformerDecoderLayer": dict(d_model=WIDTH, dim_feedforward=FEED_FORWARD,
                                        n_heads=HEADS),
        "TransformerDecoder": dict(d_model=WIDTH, num_layers=1, num_queries=2, resolution=SIZE),
        "TransformerWrapper": dict(d_model=WIDTH),
        "MLP": dict(input_dim=WIDTH, hidden_dim=FEED_FORWARD, output_dim=WIDTH),
        "DotProductScoring": dict(d_model=WIDTH, d_proj=WIDTH),
        "PixelDecoder": dict(hidden_dim=WIDTH),
        "UniversalSegmentationHead": dict(hidden_dim=WIDTH),
        "CXBlock": dict(dim=WIDTH),
        "SequenceGeometryEncoder": dict(d_model=WIDTH, num_layers=1),
    }
    for name, kwargs in sizes.items():
        setattr(mb, name, _sized(getattr(mb, name), **kwargs))
    # The neck's PositionEmbeddingSine precomputes for resolution 1008: at 56 px.
    original = mb._create_position_encoding  # pylint: disable=protected-access
    mb._create_position_encoding = lambda precompute_resolution=None: original(  # pylint: disable=protected-access
        SIZE if precompute_resolution else None)


def _build(inputs: pathlib.Path):
    import sam3.model_builder as mb  # pylint: disable=import-outside-toplevel
    from sam3.model.sam3_image_processor import Sam3Processor  # pylint: disable=import-outside-toplevel
    state = torch.load(inputs / "sam3_official.pt", map_location="cpu", weights_only=True)
    vocab = state["detector.backbone.language_backbone.encoder.token_embedding.weight"].shape[0]
    _tiny_builder(mb, vocab)
    loaded = {}
    original_load = mb._load_checkpoint  # pylint: disable=protected-access

    def load(model, path):
        report = model.load_state_dict(
            {k.replace("detector.", ""): v for k, v in state.items() if "detector" in k},
            strict=False)
        loaded.update(missing=report.missing_keys, unexpected=report.unexpected_keys)
        original_load(model, path)  # the builder's own loader, on the same file

    mb._load_checkpoint = load  # pylint: disable=protected-access
    model = mb.build_sam3_image_model(
        bpe_path=str(inputs / "sam3_bpe.txt.gz"), device="cpu", load_from_HF=False,
        checkpoint_path=str(inputs / "sam3_official.pt"))
    bad = [k for k in loaded["missing"] if not any(re.fullmatch(p, k) for p in ALLOWED_MISSING)]
    print(f"missing {len(loaded['missing'])} (allowed: RoPE, points), unexpected "
          f"{loaded['unexpected']}")
    if bad or loaded["unexpected"]:
        raise SystemExit(f"checkpoint does not fit: missing {bad}, unexpected "
                         f"{loaded['unexpected']}")
    return model, Sam3Processor(model, resolution=SIZE, device="cpu", confidence_threshold=0.0)


def main(inputs, out_path):
    with _CudaOnCpu():
        _run(pathlib.Path(inputs), out_path)


def _run(inputs, out_path):
    model, processor = _build(inputs)
    prompts = json.loads((inputs / "sam3_prompts.json").read_text())
    frames = np.load(inputs / "frames.npy", allow_pickle=True)
    captured = []
    grounding = model.forward_grounding

    def forward_grounding(*args, **kwargs):
        captured.append(grounding(*args, **kwargs))
        return captured[-1]

    model.forward_grounding = forward_grounding
    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, name, t):
        flat = np.asarray(t, dtype=np.float64).ravel()
        shape = "x".join(map(str, np.shape(t)))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, min(32, flat.size), replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    for j, prompt in enumerate(prompts):
        stats(0, f"tokens_p{j}", model.backbone.language_backbone.tokenizer(
            [prompt], context_length=32)[0].numpy())
    for i, frame in enumerate(frames):
        pil = Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
        stats(i, "pixel_values", processor.transform(
            v2.functional.to_image(pil)).unsqueeze(0).numpy())
        state = processor.set_image(pil)
        for j, prompt in enumerate(prompts):
            captured.clear()
            state = processor.set_text_prompt(prompt, state)
            out = captured[-1]
            stats(i, f"pred_logits_p{j}", out["pred_logits"].reshape(-1).numpy())
            stats(i, f"presence_p{j}", out["presence_logit_dec"].reshape(-1).numpy())
            stats(i, f"pred_masks_p{j}", out["pred_masks"].numpy())
            stats(i, f"scores_p{j}", state["scores"].numpy())
            stats(i, f"mask_probs_p{j}", state["masks_logits"][:, 0].numpy())
            masks = state["masks"][:, 0].numpy()
            rows_idx, cols_idx = np.indices(masks.shape[1:])
            stats(i, f"mask_area_p{j}", masks.sum(axis=(1, 2)))
            stats(i, f"mask_rows_p{j}", (masks * rows_idx).sum(axis=(1, 2)))
            stats(i, f"mask_cols_p{j}", (masks * cols_idx).sum(axis=(1, 2)))
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    # This file is named sam3.py: its folder must not shadow the sam3 package.
    _HERE = pathlib.Path(__file__).resolve().parent
    sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]
    main(*sys.argv[1:3])
