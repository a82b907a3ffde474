"""VBench's CLIP backends against the official VBench code (Vchitect/VBench @45e79ec, the
vbench 0.1.5 wheel) with openai/CLIP's `clip.load`, on identical seeded random FULL-SIZE
weights, via the stored official run (vbench_record; official_runs/vbench_clip_dino.py).

The weights are tools.calibration.vbench_weights' (float16-representable, as OpenAI's
files). The official run loaded them from a TorchScript file through `clip.load(path,
device="cpu")` (float32: on CUDA `clip.load` keeps float16, which is not compared); here
they are converted to the transformers CLIPModel snapshot our loaders read
(`vbench_weights.write_hf_snapshot`) and loaded as benchmarks/vbench/families.py loads
them (metrics.clip.vision / clip_image_text / aesthetic, QuickGELU), and our dimension
code recomputes every stage. Our tensors are recorded by forward hooks on our tower and head while the dimensions'
compute() runs (nothing else is run for them), so every row checks the production path:

* `clip_vit_b32_quick_gelu` (background_consistency): preprocess = the pixel_values
  transforms.clip_pixels gave the tower vs utils.clip_transform(224) on load_video's float
  tensor; features = the tower's image_embeds, L2-normalised, vs F.normalize(encode_image
  (...)) of the one call per video; score = compute's value and video_sim per video.
* `clip_vit_b32_quick_gelu image-text` (appearance_style): preprocess = the pixel_values
  (open_clip_transform of the PIL frame) vs clip_transform_Image(224), and
  clip_image_text.tokens vs clip.tokenize([style]); features = the normalised image
  embeddings and clip_image_text.text_features vs those CLIP.forward computes per frame;
  score = compute's frame values, mean and cur_sim.
* `clip_vit_l14_quick_gelu+laion_linear_v1` (aesthetic_quality): the first 2 frames of the
  641x361 clip (a full-size ViT-L/14 forward is ~80 GFLOP); the head file in the official
  {weight, bias} form; preprocess and features as background's; score = the head's
  output per frame and compute's video value (mean of the scores / 10).

Not compared: the decode (both sides got the same RGB frames), the CUDA float16 path,
the `--read_frame` path, our OpenAI-to-transformers conversion against the real
openai/clip-vit-* snapshots (vbench_weights.to_hf is ours; full_size_keys_test checks
the ViT-L/14 names and shapes).
"""

import contextlib
import functools
import hashlib
import pathlib
import tempfile
from typing import List, Tuple

import numpy as np
import torch
import torch.nn.functional as F

from benchmarks.vbench import metric_specs
from benchmarks.vbench.dimensions import aesthetic_quality
from benchmarks.vbench.dimensions import appearance_style
from benchmarks.vbench.dimensions import background_consistency
from benchmarks.vbench.dimensions import clip_image_text
from metrics.clip import aesthetic
from metrics.clip import vision
from metrics.viclip import upstream_inputs
from tools.calibration import parity_table
from tools.calibration import vbench_record as record
from tools.calibration import vbench_weights as weights

BACKGROUND = metric_specs.BACKENDS["clip_background"][0]
STYLE = metric_specs.BACKENDS["clip_style"][0]
AESTHETIC = metric_specs.BACKENDS["laion_aesthetic"][0]
TEST = "//tools/calibration:vbench_clip_parity_test"
STYLES = ("oil painting", "black and white", "watercolor painting", "pixel art")
AESTHETIC_CLIP, AESTHETIC_FRAMES = 3, 2
_RUN = ("Vchitect/VBench @45e79ec (vbench 0.1.5) {fn} with openai/CLIP @d05afc4 "
        "clip.load(<TorchScript file>, device='cpu') (float32; CUDA's float16 not compared)"
        "{extra}, torch 2.14.1 CPU, run outside the repository; numbers in "
        "tools/calibration/vbench_official.{{csv,npz}}")


def _weights(spec: weights.ClipSpec, extra: str = "") -> str:
    return (f"random full-size {spec.name} (seed {weights.CLIP_SEED}, float16-representable; "
            f"official: a TorchScript file, ours: its transformers CLIPModel conversion){extra}")


@contextlib.contextmanager
def _snapshot(spec: weights.ClipSpec, towers):
    """A temporary snapshot of the seeded weights (fingerprint checked first)."""
    state = weights.clip_state(spec, towers)
    record.check_fingerprint("ViT-B/32" if spec is weights.VIT_B32 else "ViT-L/14 visual",
                             state)
    with tempfile.TemporaryDirectory() as tmp:
        folder = weights.write_hf_snapshot(pathlib.Path(tmp) / "snapshot", spec, state)
        del state
        yield folder


def _bpe() -> str:
    path = upstream_inputs.official_bpe_path()
    if hashlib.sha256(path.read_bytes()).hexdigest() != upstream_inputs.BPE_SHA256:
        raise ValueError(f"{path} is not OpenAI's bpe_simple_vocab_16e6.txt.gz")
    return str(path)


@functools.lru_cache(maxsize=1)
def load_b32() -> Tuple[vision.ClipVision, clip_image_text.ClipImageText]:
    """The seeded ViT-B/32 as families.py loads it: the QuickGELU image tower, and the
    image-text model sharing it (loaded once per process)."""
    with _snapshot(weights.VIT_B32, ("visual", "text")) as folder:
        tower = vision.load_clip_vision(folder, "cpu",
                                        activation=background_consistency.ACTIVATION)
        return tower, clip_image_text.load_clip_image_text(folder, _bpe(), "cpu", tower=tower)


def _tower_calls(calls):
    """(pixel_values, L2-normalised image_embeds) of the tower calls a compute() made."""
    pixels = [p for _, kwargs, _ in calls for p in kwargs["pixel_values"]]
    embeds = torch.cat([out.image_embeds for _, _, out in calls])
    return pixels, F.normalize(embeds, dim=-1, p=2)


def run_b32() -> List[parity_table.Row]:
    """The background_consistency and appearance_style rows: the tensors our tower saw and
    returned, recorded while the dimensions' compute() ran."""
    official, clips = record.arrays(), record.clips()
    tower, model = load_b32()
    videos = [record.video(c, i, s) for i, (c, s) in enumerate(zip(clips, STYLES))]
    common = dict(test=TEST, weights=_weights(weights.VIT_B32), inputs=record.inputs_text())

    with record.captured(tower.model) as calls:
        values = [background_consistency.compute(v, tower) for v in videos]
    pixels, features = _tower_calls(calls)
    bg = dict(common, reference=_RUN.format(fn="background_consistency()", extra=""))
    rows = [
        parity_table.compare(
            BACKGROUND, "preprocess", *record.stats(pixels, "clip_transform"),
            compared="transforms.clip_pixels vs utils.clip_transform(224) on load_video's "
            "float tensor: shape, mean, RMS and 64 values per frame", **bg),
        parity_table.compare(
            BACKGROUND, "features", features, official["background/features"],
            compared="the tower's image_embeds in background_consistency.compute, "
            "L2-normalised, vs F.normalize(encode_image(clip_transform(video))), every "
            "element", **bg),
        parity_table.compare(
            BACKGROUND, "score",
            [np.array([v.video_results for v in values]),
             np.array([v.extras["video_sim"] for v in values])],
            [official["background/video_results"], official["background/video_sim"]],
            compared="background_consistency.compute's value and video_sim vs the official "
            "per-video video_results and video_sim", **bg)]

    with record.captured(tower.model) as calls:
        styled = [appearance_style.compute(v, model) for v in videos]
    pixels, image = _tower_calls(calls)
    tokens = np.array([clip_image_text.tokens(model, s) for s, c in zip(STYLES, clips)
                       for _ in c])
    text = torch.cat([clip_image_text.text_features(model, s).expand(len(c), -1)
                      for s, c in zip(STYLES, clips)])
    st = dict(common, reference=_RUN.format(fn="appearance_style()", extra=""))
    rows += [
        parity_table.compare(
            STYLE, "preprocess", *record.stats(pixels, "clip_transform_Image"),
            compared="metrics/clip/image_transform.open_clip_transform of the PIL frame vs "
            "utils.clip_transform_Image(224): shape, mean, RMS and 64 values per frame", **st),
        parity_table.compare(
            STYLE, "preprocess", tokens, official["style/tokens"],
            compared="clip_image_text.tokens(style) vs clip.tokenize([style]), every id of "
            "4 styles", **st),
        parity_table.compare(
            STYLE, "features", [image, text],
            [official["style/image_features"], official["style/text_features"]],
            compared="the image tower's embeddings in appearance_style.compute and "
            "clip_image_text.text_features, L2-normalised, vs CLIP.forward's normalised "
            "encode_image / encode_text, every element", **st),
        parity_table.compare(
            STYLE, "score",
            [np.array([x for v in styled for x in v.extras["frame_results"]]),
             np.array([v.video_results for v in styled]),
             np.array([v.extras["cur_sim"] for v in styled])],
            [official["style/frame_results"], official["style/video_results"],
             official["style/cur_sim"]],
            compared="appearance_style.compute's frame_results, value and cur_sim vs the "
            "official per-video dict (logits_per_text / 100 per frame)", **st)]
    return rows


def run_aesthetic() -> List[parity_table.Row]:
    """The aesthetic_quality rows: the tower's input and output and the head's output,
    recorded while aesthetic_quality.compute ran."""
    official = record.arrays()
    rgb = record.clips()[AESTHETIC_CLIP][:AESTHETIC_FRAMES]
    head_state = weights.head_state()
    record.check_fingerprint("laion_linear", head_state)
    with _snapshot(weights.VIT_L14, ("visual",)) as folder:
        head = pathlib.Path(folder) / "sa_0_4_vit_l_14_linear.pth"
        torch.save({k: torch.from_numpy(v) for k, v in head_state.items()}, head)
        model = aesthetic.load_aesthetic_linear(folder, head, "cpu",
                                                activation=aesthetic_quality.ACTIVATION)
    with record.captured(model.clip.model) as calls, record.captured(model.head) as heads:
        value = aesthetic_quality.compute(record.video(rgb, AESTHETIC_CLIP), model)
    pixels, features = _tower_calls(calls)
    scores = torch.cat([out for _, _, out in heads]).squeeze(-1)
    common = dict(test=TEST, reference=_RUN.format(
        fn="laion_aesthetic()", extra=" and get_aesthetic_model(<folder>)"),
        weights=_weights(weights.VIT_L14, f"; nn.Linear(768, 1) head random (seed "
                         f"{weights.HEAD_SEED}) in sa_0_4_vit_l_14_linear.pth's form"),
        inputs=f"the first {AESTHETIC_FRAMES} frames of the 641x361 clip of: "
        + record.inputs_text())
    return [
        parity_table.compare(
            AESTHETIC, "preprocess", *record.stats(pixels, "clip_transform", first_frame=100),
            compared="transforms.clip_pixels vs utils.clip_transform(224) on load_video's "
            "float tensor: shape, mean, RMS and 64 values per frame", **common),
        parity_table.compare(
            AESTHETIC, "features", features, official["aesthetic/features"],
            compared="the ViT-L/14 tower's image_embeds in aesthetic_quality.compute, "
            "L2-normalised, vs F.normalize(encode_image(...).float()), every element",
            **common),
        parity_table.compare(
            AESTHETIC, "score",
            [scores, np.array([value.video_results])],
            [official["aesthetic/head_scores"], official["aesthetic/video_results"]],
            compared="the head's frame scores and aesthetic_quality.compute's video value "
            "(mean of scores / 10) vs the official head output and video_results", **common)]
