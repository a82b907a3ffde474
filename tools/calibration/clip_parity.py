"""CLIP parity: worldeval's metrics/clip against open_clip itself, on identical weights.

Two backends, the two open_clip models the official MemoBench code builds:

* `laion-aesthetic-clip-vit-l14`: `create_model_and_transforms("ViT-L-14",
  pretrained="openai")`, then per frame `encode_image(preprocess(PIL RGB)).float()`,
  L2-normalised, into the LAION head.
* `clip-vit-b32` (GTRevisitSim): the same with "ViT-B-32"; a pair's similarity is the
  dot product of the two unit embeddings.

Each runs on a tiny model of the official config (tools.calibration.open_clip_models):
open_clip loads it from its own checkpoint file through
`create_model_and_transforms(<tiny name>, pretrained=<file>)` with the preprocessing
options of the "openai" tag (`open_clip.get_pretrained_cfg(arch, "openai")`: mean,
std, interpolation, resize mode), and worldeval loads the Hugging Face conversion of the
same tensors through `metrics.clip.vision.load_clip_vision` (default activation). The
LAION head gets random weights in the official file's layout (`layers.N.*`, Linear
layers at N = 0, 2, 4, 6, 7) and is loaded by `metrics.clip.aesthetic.load_head`; the
reference for it is the upstream architecture (five affine maps; the dropouts are the
identity in eval mode, there is no activation) evaluated in float64 numpy from the file;
its last bias is offset so that the scores sit near the real ones (~5).
"""

import importlib.metadata
import pathlib
import tempfile
from typing import List

import cv2
import numpy as np
import open_clip
from PIL import Image
import torch

from metrics.clip import aesthetic
from metrics.clip import frame_similarity
from metrics.clip import image_transform
from metrics.clip import vision
from tools.calibration import frames as frames_lib
from tools.calibration import open_clip_models
from tools.calibration import parity_table

AESTHETIC_BACKEND = "laion-aesthetic-clip-vit-l14"
B32_BACKEND = "clip-vit-b32"
SEED = 0
TEST = "//tools/calibration:clip_parity_test"
_SCORE_OFFSET = 5.0  # the head's scores then sit near the real ones (~5 of 10)
_HEAD_LAYERS = ((0, 768, 1024), (2, 1024, 128), (4, 128, 64), (6, 64, 16), (7, 16, 1))


def reference(arch: str) -> str:
    return (f"open_clip_torch {importlib.metadata.version('open_clip_torch')} "
            f"create_model_and_transforms('{arch}', pretrained='openai') config and transform")


def _weights(arch: str) -> str:
    return (f"random (seed {SEED}), open_clip config {arch} shrunk to width "
            f"{open_clip_models.TINY_WIDTH}, {open_clip_models.TINY_LAYERS} layers")


def _build(arch: str, folder: pathlib.Path, embed_dim=None):
    """(open_clip model, its preprocess, our ClipVision) on the same random weights."""
    config = open_clip_models.register_tiny(arch, folder, embed_dim)
    checkpoint = folder / "open_clip_model.safetensors"
    state = open_clip_models.write_open_clip_checkpoint(arch, checkpoint, SEED)
    tag = open_clip.get_pretrained_cfg(arch, "openai")
    theirs, _, preprocess = open_clip.create_model_and_transforms(
        open_clip_models.tiny_name(arch), pretrained=str(checkpoint),
        image_mean=tag["mean"], image_std=tag["std"], image_interpolation=tag["interpolation"],
        image_resize_mode=tag["resize_mode"])
    loaded = theirs.state_dict()
    if set(loaded) != set(state) or any(not torch.equal(loaded[k], v) for k, v in state.items()):
        raise AssertionError(f"open_clip did not load {checkpoint} as written")
    snapshot = open_clip_models.write_hf_snapshot(config, state, folder / "hf")
    return theirs.eval(), preprocess, vision.load_clip_vision(snapshot, "cpu")


def _their_embeddings(model, preprocess, frames) -> torch.Tensor:
    """The official per-frame path: PIL RGB, preprocess, encode_image, L2-normalise."""
    out = []
    with torch.no_grad():
        for frame in frames:
            x = preprocess(Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)))
            feature = model.encode_image(x.unsqueeze(0)).float()
            out.append(feature / feature.norm(dim=-1, keepdim=True))
    return torch.cat(out)


def _tower_rows(backend, arch, theirs, preprocess, ours, frames, common):
    official_pixels = torch.stack([
        preprocess(Image.fromarray(cv2.cvtColor(f, cv2.COLOR_BGR2RGB))) for f in frames])
    our_pixels = image_transform.frames_to_pixel_values(frames, ours.image_size)
    official = _their_embeddings(theirs, preprocess, frames)
    mine = vision.image_embeddings(ours, frames)
    return [
        parity_table.compare(backend, "preprocess", our_pixels, official_pixels,
                             compared="frames_to_pixel_values vs open_clip preprocess(PIL RGB)",
                             **common),
        parity_table.compare(backend, "features", mine, official,
                             compared="image_embeddings (batched) vs encode_image per frame, "
                             "L2-normalised", **common),
    ], mine, official


def _head_file(path: pathlib.Path):
    generator = torch.Generator().manual_seed(SEED + 1)
    state = {}
    for index, fan_in, fan_out in _HEAD_LAYERS:
        state[f"layers.{index}.weight"] = torch.randn(fan_out, fan_in, generator=generator) \
            / fan_in ** 0.5
        state[f"layers.{index}.bias"] = torch.randn(fan_out, generator=generator) * 0.1
    state["layers.7.bias"] += _SCORE_OFFSET
    torch.save(state, path)
    return state


def _official_head(state, features: np.ndarray) -> np.ndarray:
    x = features.astype(np.float64)
    for index, _, _ in _HEAD_LAYERS:
        x = x @ state[f"layers.{index}.weight"].double().numpy().T \
            + state[f"layers.{index}.bias"].double().numpy()
    return x[:, 0]


def run_aesthetic() -> List[parity_table.Row]:
    """Rows of the LAION aesthetic predictor on CLIP ViT-L/14."""
    frames = frames_lib.all_frames()
    common = dict(reference=reference("ViT-L-14") + "; head: improved-aesthetic-predictor "
                  "MLP (upstream architecture, float64 numpy)", weights=_weights("ViT-L-14"),
                  test=TEST,
                  inputs=frames_lib.describe())
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        theirs, preprocess, tower = _build("ViT-L-14", folder)
        rows, _, official = _tower_rows(AESTHETIC_BACKEND, "ViT-L-14", theirs, preprocess,
                                        tower, frames, common)
        head_state = _head_file(folder / aesthetic.AESTHETIC_HEAD.filename)
        model = aesthetic.AestheticModel(tower, aesthetic.load_head(
            folder / aesthetic.AESTHETIC_HEAD.filename, "cpu"))
    scores = aesthetic.frame_scores(frames, model, "cpu")
    rows.append(parity_table.compare(
        AESTHETIC_BACKEND, "score", np.array(scores),
        _official_head(head_state, official.numpy()),
        compared="aesthetic.frame_scores vs the head on open_clip's unit embeddings", **common))
    return rows


def run_b32() -> List[parity_table.Row]:
    """Rows of CLIP ViT-B/32 (GTRevisitSim's frame similarity)."""
    frames = frames_lib.all_frames()
    common = dict(reference=reference("ViT-B-32"), weights=_weights("ViT-B-32"), test=TEST,
                  inputs=frames_lib.describe())
    with tempfile.TemporaryDirectory() as tmp:
        theirs, preprocess, tower = _build("ViT-B-32", pathlib.Path(tmp))
    rows, _, official = _tower_rows(B32_BACKEND, "ViT-B-32", theirs, preprocess, tower,
                                    frames, common)
    half = len(frames) // 2
    pairs = [(i, half + i) for i in range(half)]  # reference frame i vs generated frame j
    mine = frame_similarity.pair_similarities(frames, lambda idx: [frames[i] for i in idx],
                                              pairs, tower)
    cosines = [float(official[i] @ official[j]) for i, j in pairs]
    rows.append(parity_table.compare(
        B32_BACKEND, "score", np.array(mine), np.array(cosines),
        compared="frame_similarity.pair_similarities vs dot of open_clip unit embeddings",
        **common))
    return rows
