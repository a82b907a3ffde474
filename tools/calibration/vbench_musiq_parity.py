"""VBench's imaging_quality backend (`musiq_spaq`) against the official VBench code
(Vchitect/VBench @45e79ec, the vbench 0.1.5 wheel: `technical_quality` with its default
`longer` preprocessing) on pyiqa 0.1.16's MUSIQ, on identical seeded random FULL-SIZE
weights, via the stored official run (vbench_musiq_official.{csv,npz,json};
official_runs/vbench_motion_musiq.py).

Both sides read the same musiq_spaq_ckpt-358bb6af.pth (metrics.iqa.tiny_musiq at the run's
seed, fingerprint checked): the official `MUSIQ(pretrained_model_path=...)`, ours
metrics.iqa.musiq.load_musiq (as benchmarks/vbench/families.py does), on the first two
frames of the 224x224 (no resize) and 641x361 (`longer` resize to 288x512) room clips.
benchmarks/vbench/dimensions/imaging_quality.compute runs once per clip, as the runner
calls it (frames batched; one per call upstream); forward hooks and
vbench_motion_parity.returned record without changing it:

* preprocess: the network's input (resize, / 255) and the patch tensor the stem gets
  (x 2 - 1, multi-scale resize, SAME padding, 32 x 32 patches): shape, mean, RMS and 256
  seeded values per frame; the hashed spatial positions, scale ids and mask, every
  element.
* features: the encoder output's class token, every element.
* score: each frame's score and the video value.
"""

import functools
import hashlib
import pathlib
import tempfile
from typing import Dict, List

import numpy as np
import torch

from benchmarks.vbench import metric_specs
from benchmarks.vbench.dimensions import imaging_quality
from metrics.iqa import musiq
from metrics.iqa import musiq_patches
from metrics.iqa import tiny_musiq
from tools.calibration import official_numbers
from tools.calibration import parity_table
from tools.calibration import vbench_motion_parity
from tools.calibration import vbench_record as record
from tools.calibration import vbench_weights

BACKEND = metric_specs.BACKENDS["musiq"][0]
TEST = "//tools/calibration:vbench_musiq_parity_test"
CSV = "tools/calibration/vbench_musiq_official.csv"
NPZ = "tools/calibration/vbench_musiq_official.npz"
JSON = "tools/calibration/vbench_musiq_official.json"
REFERENCE = ("Vchitect/VBench @45e79ec (vbench 0.1.5) imaging_quality.technical_quality "
             "(preprocess mode 'longer') with pyiqa 0.1.16 MUSIQ(pretrained_model_path=...), "
             ".training = False, torch 2.14.1 CPU, run outside the repository; numbers in "
             "tools/calibration/vbench_musiq_official.{csv,npz}")


def provenance() -> dict:
    return record.provenance(JSON)


def arrays() -> Dict[str, np.ndarray]:
    return record.arrays(NPZ)


def clips() -> List[np.ndarray]:
    """The run's RGB clips (the first frames of record.clips()' chosen sizes), checked."""
    spec = provenance()
    out = [record.clips()[i][:spec["frames_per_clip"]] for i in spec["clips"]]
    if [hashlib.sha256(c.tobytes()).hexdigest() for c in out] != spec["frames_sha256"]:
        raise ValueError(f"{JSON} was made on other frames: stale")
    return out


def inputs_text() -> str:
    spec = provenance()
    return (f"the first {spec['frames_per_clip']} frames of the 224x224 and 641x361 clips of: "
            + record.inputs_text())


@functools.lru_cache(maxsize=1)
def load() -> musiq.Musiq:
    """The seeded file written as musiq_spaq_ckpt-358bb6af.pth and read by load_musiq."""
    spec = provenance()
    seed, bias = spec["seeds"]["musiq"], spec["head_bias"]
    state = tiny_musiq.random_state_dict(musiq.SPAQ, seed, bias)
    if (vbench_weights.fingerprint({k: v.numpy() for k, v in state.items()})
            != spec["weights_fingerprint"]["musiq"]):
        raise ValueError(f"{JSON} was made with other MUSIQ weights: stale")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "musiq_spaq_ckpt-358bb6af.pth"
        torch.save(state, str(path))
        return musiq.load_musiq(path, "cpu")


def _stats(tensors, name: str):
    table = official_numbers.read(CSV)
    theirs = [np.array([v for _, _, v in table[(i, name)]]) for i in range(len(tensors))]
    mine = [official_numbers.stats_like(t, table[(i, name)]) for i, t in enumerate(tensors)]
    return mine, theirs


def run() -> List[parity_table.Row]:
    """imaging_quality.compute per clip, recorded."""
    official, model = arrays(), load()
    with record.captured(model) as calls, record.captured(model.conv_root) as stems, \
            record.captured(model.transformer_encoder) as encoders, \
            vbench_motion_parity.returned(musiq_patches, "multiscale_sequence") as sequences:
        values = [imaging_quality.compute(record.video(c, i), model).video_results
                  for i, c in enumerate(clips())]
    frames = [f for args, _, _ in calls for f in args[0]]
    patches = [p for (args, _, _), seq in zip(stems, sequences)
               for p in args[0].reshape(*seq.mask.shape, *args[0].shape[1:])]
    columns = [torch.stack([s.spatial[k], s.scale[k], s.mask[k].long()]).double()
               for s in sequences for k in range(len(s.mask))]
    cls = torch.cat([out[:, 0] for _, _, out in encoders])
    scores = torch.cat([out for _, _, out in calls]).double().numpy()
    common = dict(test=TEST, reference=REFERENCE, inputs=inputs_text(),
                  weights=f"random full-size MUSIQ SPAQ config (seed "
                  f"{provenance()['seeds']['musiq']}, head bias {provenance()['head_bias']:g}; "
                  "metrics.iqa.tiny_musiq) as a plain state dict, pyiqa's file format")
    stats = "shape, mean, RMS and 256 seeded values per frame vs the official run's"
    return [
        parity_table.compare(
            BACKEND, "preprocess", *_stats(frames, "musiq/input"),
            compared="the network input of imaging_quality.compute (int() sizes of the "
            "'longer' resize to 512, bilinear without antialias, / 255) vs the official "
            "transform's: " + stats, **common),
        parity_table.compare(
            BACKEND, "preprocess", *_stats(patches, "musiq/patches"),
            compared="the stem's 32 x 32 patches (x 2 - 1, 224 / 384 / native scales) vs "
            "the official conv_root input: " + stats, **common),
        parity_table.compare(
            BACKEND, "preprocess", columns,
            [official[f"musiq/columns/{i}"] for i in range(len(columns))],
            compared="the hashed spatial positions, scale ids and mask of every patch vs "
            "the official get_multiscale_patches columns, every element", **common),
        parity_table.compare(
            BACKEND, "features", cls, official["musiq/cls"],
            compared="the encoder output's class token (frames batched) vs the official "
            "one (one frame per call), every element", **common),
        parity_table.compare(
            BACKEND, "score", [scores, np.array(values)],
            [official["musiq/frame_scores"], official["musiq/video_results"]],
            compared="MUSIQ's frame scores and imaging_quality.compute's value (mean, 0-100) "
            "vs the official model outputs and video_results", **common)]
