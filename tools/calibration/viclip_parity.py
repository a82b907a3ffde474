"""ViCLIP (MiraBench text-video consistency): worldeval's metrics/viclip against the official
ViCLIP code (mira-space/Miradata @7ad0579 third_party/ViCLIP, the copy MiraBench's
text_video_consistency.py runs), via stored outputs.

ViCLIP is not a registry package, and a full-size forward is ~1.6 TFLOP, so the official
side is metrics/viclip/testdata/viclip_upstream.json (read where it is; its `how_produced`
says how it was made): the official `ViCLIP(tokenizer, pretrain=file)` with the official
vision and text classes at the official depth (24 / 12 layers), patch grid (14 at 224 px,
8 frames), vocabulary (49408 ids) and 32-token context, but width 128 with 2 heads and
64-d embeddings, on the seeded weights `tiny_checkpoint.write_checkpoint` writes, a seeded
video of normalised frames, three captions and two fixed token rows (all in
metrics/viclip/upstream_inputs; their digests are checked first, so a changed generator
reads as a stale record, not as a parity difference). Here our loader, tokenizer, towers
and metrics/viclip/similarity recompute our side:

* preprocess: the caption token ids (our tokenizer over open_clip's copy of the official
  BPE file) vs the official `tokenize(caption, 32)`; a one-id change is 2e-5 of the
  largest id (49407) and fails. And the frame path, against a second record
  (viclip_frames_official.csv, provenance and input digests in viclip_frames_official.json):
  Miradata 7ad0579 evaluation/text_video_consistency.py's `get_frame_indices(8, vlen,
  "middle")` and `clip_transform(224)` on the uint8 (T, C, H, W) tensor, run on two
  rendered videos (13 frames at 427x239, 5 frames at 131x97: upsampled, last index
  repeated) under the README's torch 1.12.1 / torchvision 0.13.1 (a tensor Resize does not
  antialias) and under the lock's torchvision 0.29.1 (it does by default); per sampled
  frame the shape, mean, RMS and 268 values (256 seeded, the 12 corners). Ours picks the
  frames with metrics/viclip/inputs.middle_frame_indices and transforms them with
  inputs.pixel_values(antialias=False), resp. True: a wrong frame, filter, crop or
  rounding moves the stats far beyond the tolerance (one uint8 level is 7e-3 of the
  peak). The decoder is not compared (the official run got the frames as decord's torch
  bridge returns them).
* features: both towers' embeddings (videos, captions from our tokens, fixed rows).
* score: every video-caption cosine of metrics/viclip/similarity.
"""

import contextlib
import hashlib
import json
import tempfile
from typing import List

import numpy as np
import torch

from benchmarks.common import paths
from metrics.viclip import inputs as inputs_lib
from metrics.viclip import loader
from metrics.viclip import similarity
from metrics.viclip import tiny_checkpoint
from metrics.viclip import tokenizer as tokenizer_lib
from metrics.viclip import upstream_inputs
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.fixtures import scene

BACKEND = "viclip_internvid_10m_flt"
TEST = "//tools/calibration:viclip_parity_test"
OFFICIAL = upstream_inputs.UPSTREAM
SMALL = upstream_inputs.SMALL
FRAMES_OFFICIAL = "tools/calibration/viclip_frames_official.csv"
FRAMES_PROVENANCE = "tools/calibration/viclip_frames_official.json"
FRAMES_COMMIT = "7ad05795dd74acdc6b364222a9fa885a94b0c1a2"
# The official frame path under each torchvision: (tensor suffix, our antialias setting).
TRANSFORMS = {"0.13.1": ("tv013", False), "0.29.1": ("tv029", True)}
REFERENCE = ("mira-space/Miradata @7ad0579 third_party/ViCLIP (ViCLIP, SimpleTokenizer; the "
             "modules of OpenGVLab/InternVideo @3965eef Data/InternVid/viclip), torch 2.14.1 "
             "CPU, run outside the repository; numbers in " + OFFICIAL)
WEIGHTS = (f"random (seed {upstream_inputs.WEIGHT_SEED}), the official ViCLIP-L/14 "
           f"architecture ({SMALL.vision_layers} vision / {SMALL.text_layers} text layers, "
           f"patch {SMALL.patch_size} at {SMALL.image_size} px, {SMALL.num_frames} frames, "
           f"{SMALL.vocab_size}-id vocabulary, {SMALL.context_length}-token context) shrunk "
           f"to width {SMALL.vision_width}, {SMALL.vision_heads} heads, "
           f"{SMALL.embed_dim}-d embeddings")
INPUTS = (f"2 videos of {SMALL.num_frames} seeded standard-normal frames (seed "
          f"{upstream_inputs.VIDEO_SEED}) fed as normalised {SMALL.image_size}x"
          f"{SMALL.image_size} frames; 3 captions (one cut at {SMALL.context_length} tokens); "
          "2 fixed token rows")
FRAME_INPUTS = ("2 RGB videos of the //tools/fixtures room: 13 frames at 427x239 (seed 11), 5 "
                "frames at 131x97 (seed 12)")


def official() -> dict:
    """The stored official record (its inputs checked against ours).

    Raises:
        ValueError: Our seeded inputs are not the ones the record was made on.
    """
    record = json.loads(paths.runfile(OFFICIAL).read_text(encoding="utf-8"))
    inputs = record["inputs"]
    video = upstream_inputs.seeded_video().numpy()
    state = tiny_checkpoint.random_model(SMALL, upstream_inputs.WEIGHT_SEED).state_dict()
    bpe = upstream_inputs.official_bpe_path().read_bytes()
    stale = [name for name, same in (
        ("weights", upstream_inputs.state_digest(state) == inputs["weights_sha256"]),
        ("video", _sha256(video.tobytes()) == inputs["video_sha256"]),
        ("bpe", _sha256(bpe) == inputs["bpe_sha256"] == upstream_inputs.BPE_SHA256))
        if not same]
    if stale:
        raise ValueError(f"{OFFICIAL} was made on other inputs ({', '.join(stale)}): stale")
    return record


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _array(entry) -> np.ndarray:
    """A stored float32 array (written as shortest float32 reprs), in float64."""
    values = np.asarray(entry["values"], dtype=np.float32).astype(np.float64)
    return values.reshape(entry["shape"])


@contextlib.contextmanager
def _one_thread():
    """One CPU thread, as the official run (the same summation order)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def ours(record: dict) -> dict:
    """Our tokens, embeddings and cosines on the record's inputs."""
    with tempfile.TemporaryDirectory() as tmp, _one_thread():
        path = f"{tmp}/ViClip-InternVid-10M-FLT.pth"
        tiny_checkpoint.write_checkpoint(path, SMALL, upstream_inputs.WEIGHT_SEED)
        scorer = similarity.ViClipScorer(
            loader.load_viclip(path, "cpu", SMALL),
            tokenizer_lib.load_tokenizer(str(upstream_inputs.official_bpe_path())))
        captions = record["captions"]
        tokens = [tokenizer_lib.caption_tokens(scorer.tokenizer, c, SMALL.context_length)
                  for c in captions]
        vision = scorer.model.encode_vision(upstream_inputs.seeded_video())
        text = torch.cat([similarity.text_embedding(c, scorer) for c in captions])
        fixed = scorer.model.encode_text(torch.tensor(record["fixed_tokens"]))
        cosines = [[similarity.cosine(v[None], t[None]) for t in text] for v in vision]
    return {"tokens": np.array(tokens), "vision": vision, "text": text, "fixed": fixed,
            "cosine": np.array(cosines)}


def frame_videos() -> List[np.ndarray]:
    """The frame record's videos, uint8 RGB (T, H, W, 3), their digests checked.

    Raises:
        ValueError: A rendered video is not the one the record was made on.
    """
    provenance = json.loads(paths.runfile(FRAMES_PROVENANCE).read_text(encoding="utf-8"))
    if provenance["upstream"]["commit"] != FRAMES_COMMIT:
        raise ValueError(f"{FRAMES_PROVENANCE} is of commit {provenance['upstream']['commit']}")
    videos = []
    for _, spec in sorted(provenance["videos"].items()):
        bgr = scene.render_clip(spec["frames"], spec["height"], spec["width"],
                                spec["scene_seed"])[0]
        rgb = np.ascontiguousarray(bgr[..., ::-1])
        if _sha256(rgb.tobytes()) != spec["sha256"]:
            raise ValueError(f"{FRAMES_OFFICIAL} was made on other frames: stale")
        videos.append(rgb)
    return videos


def frame_row(version: str, **common) -> parity_table.Measured:
    """Our middle frames and pixel_values against the official frame path under torchvision
    `version` (module docstring), every sampled frame of both videos pooled."""
    numbers = official_numbers.read(FRAMES_OFFICIAL)
    suffix, antialias = TRANSFORMS[version]
    mine, theirs = [], []
    for v, video in enumerate(frame_videos()):
        frames = video[inputs_lib.middle_frame_indices(len(video))]
        for t, pixels in enumerate(inputs_lib.pixel_values(frames, antialias=antialias)):
            wanted = numbers[(t, f"video{v}_{suffix}")]
            mine.append(official_numbers.stats_like(pixels, wanted))
            theirs.append(np.array([value for _, _, value in wanted]))
    return parity_table.compare(
        BACKEND, "preprocess", mine, theirs,
        compared=f"the 8 frames of metrics/viclip/inputs.middle_frame_indices through "
        f"inputs.pixel_values(antialias={antialias}) vs text_video_consistency.py's "
        f"get_frame_indices(middle) and clip_transform(224) under torchvision {version}: shape, "
        "mean, RMS and 268 values (256 seeded, the corners) per frame, 2 rendered videos",
        **common)


def run() -> List[parity_table.Row]:
    record = official()
    mine = ours(record)
    common = dict(test=TEST, reference=REFERENCE, weights=WEIGHTS, inputs=INPUTS)
    return [
        parity_table.compare(
            BACKEND, "preprocess", mine["tokens"], np.array(record["caption_tokens"]),
            compared="caption token ids (metrics/viclip/tokenizer.caption_tokens over open_clip's "
            "copy of the official BPE file, sha256 checked) vs the official tokenize(caption, "
            "32), every id", **common),
        *[frame_row(version, **dict(common, inputs=FRAME_INPUTS)) for version in TRANSFORMS],
        parity_table.compare(
            BACKEND, "features", [mine["vision"], mine["text"], mine["fixed"]],
            [_array(record[k]) for k in ("vision_embedding", "text_embedding_captions",
                                         "text_embedding_fixed_tokens")],
            compared="encode_vision of the videos, encode_text of the captions (our tokens) "
            "and of the fixed rows vs the official encode_vision(test=True), encode_text and "
            "text_encoder, every element", **common),
        parity_table.compare(
            BACKEND, "score", mine["cosine"], _array(record["cosine"]),
            compared="metrics/viclip/similarity.cosine of every video-caption pair vs the "
            "official get_vid_features @ get_text_features.T, every pair", **common)]
