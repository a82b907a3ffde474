"""The official side of the SAM 2.1 motion-accuracy tracking check; runs OUTSIDE the
repository.

The official code is haoyi-duan/WorldScore @344983c:
worldscore/benchmark/metrics/third_party/motion_accuracy_metrics.py (`vos_inference`)
and the sam2 package vendored beside it. How sam2_motion_official.npz was produced
(2026-12-07, on the case sam2_motion_parity describes: seed 4 weights, 640x480 frames,
two box masks; it replaced a 128x96, seed 0 case whose dilated masks were all ones on 3
of 4 frames), in a virtualenv of the locked wheels Bazel installed (torch 2.14.1+cu130
on a CPU-only machine, numpy, pillow, opencv-python, tqdm, pyyaml) plus
`pip install hydra-core iopath`, with no CUDA extension (`sam2._C` absent):

    python3.11 -m venv /tmp/wsmotion-venv
    ls -d ~/.cache/bazel/_bazel_root/<output base>/external/pypi__*/site \\
        > /tmp/wsmotion-venv/lib/python3.11/site-packages/base.pth
    /tmp/wsmotion-venv/bin/pip install hydra-core iopath
    G="git --git-dir=<WorldScore mirror>"; P=worldscore/benchmark/metrics/third_party
    for f in $($G ls-tree -r --name-only 344983c $P/sam2 | grep -E '\\.(py|yaml)$') \\
             $P/motion_accuracy_metrics.py; do
      mkdir -p /tmp/ws_src/$(dirname ${f#$P/}); $G show 344983c:$f > /tmp/ws_src/${f#$P/}; done
    bazel run //tools/calibration:official_run_inputs -- --only=sam2_motion \\
        --output_dir=/tmp/sam2_motion_in
    /tmp/wsmotion-venv/bin/python tools/calibration/official_runs/sam2_motion.py /tmp/ws_src \\
        /tmp/sam2_motion_in $PWD/tools/calibration/sam2_motion_official.npz

The predictor is built as MotionAccuracyMetric builds it (sam2.1_hiera_b+.yaml,
`apply_postprocessing=False`, `++model.non_overlap_masks=false`) plus the tiny overrides
in motion_inputs.json and `device="cpu"`; `vos_inference(predictor, frames/, masks/,
score_thresh=0.0, per_obj_png_file=True)` is called twice: as is (the dilated masks),
and with the module's `cv2.dilate` replaced by the identity (the unions). Its
`@torch.autocast("cuda", bfloat16)` is inactive on the CPU. The run prints the unions'
coverage: "4 frames, union coverage [0.108, 0.233, 0.222, 0.246], torch 2.14.1+cu130"
(the dilated masks cover 0.144, 0.790, 0.789, 0.807); a second run, on inputs written
again, gave a byte-identical file. Stand-ins, only for imports
the module makes and `vos_inference` never uses: SEA-RAFT (`core.*`), GroundingDINO,
spaCy and `worldscore.benchmark.metrics.base_metrics`, as empty modules.
"""

import pathlib
import sys
import types

import numpy as np


def _stub_imports():
    names = ("core", "core.raft", "core.utils", "core.utils.utils", "core.parser",
             "groundingdino", "groundingdino.datasets", "groundingdino.datasets.transforms",
             "groundingdino.models", "groundingdino.util", "groundingdino.util.slconfig",
             "groundingdino.util.utils", "spacy", "worldscore", "worldscore.benchmark",
             "worldscore.benchmark.metrics", "worldscore.benchmark.metrics.base_metrics")
    for name in names:
        sys.modules[name] = types.ModuleType(name)
    for module, attr in (("core.raft", "RAFT"), ("core.utils.utils", "load_ckpt"),
                         ("core.parser", "parse_args"), ("groundingdino.models", "build_model"),
                         ("groundingdino.util.slconfig", "SLConfig"),
                         ("groundingdino.util.utils", "clean_state_dict"),
                         ("groundingdino.util.utils", "get_phrases_from_posmap")):
        setattr(sys.modules[module], attr, None)
    sys.modules["spacy"].load = lambda name: None
    sys.modules["worldscore.benchmark.metrics.base_metrics"].BaseMetric = object


class _NoDilation:
    """cv2 with `dilate` the identity."""

    def __init__(self, cv2):
        self._cv2 = cv2

    def __getattr__(self, name):
        return getattr(self._cv2, name)

    @staticmethod
    def dilate(mask, kernel, iterations=1):
        del kernel, iterations
        return mask


def main(source, inputs, out_path):
    sys.path.insert(0, source)
    _stub_imports()
    # pylint: disable=import-outside-toplevel  (the official tree is on sys.path only here)
    import json
    import torch
    import motion_accuracy_metrics as official
    from sam2.build_sam import build_sam2_video_predictor
    from sam2.utils.misc import load_video_frames
    inputs = pathlib.Path(inputs)
    spec = json.loads((inputs / "motion_inputs.json").read_text())
    predictor = build_sam2_video_predictor(
        "configs/sam2.1/sam2.1_hiera_b+.yaml", str(inputs / "tiny_sam2.pt"), device="cpu",
        apply_postprocessing=False, hydra_overrides_extra=spec["overrides"])
    frames, masks = str(inputs / "frames"), str(inputs / "masks")
    pixels, _, _ = load_video_frames(video_path=frames, image_size=predictor.image_size,
                                     offload_video_to_cpu=True, compute_device="cpu")
    pixels = pixels.numpy().astype(np.float64)
    index = np.sort(np.random.default_rng(1234).choice(pixels[0].size, 32, replace=False))
    stats = np.stack([np.concatenate([[p.mean(), np.sqrt((p ** 2).mean())], p.ravel()[index]])
                      for p in pixels])
    dilated = official.vos_inference(predictor, frames, masks, score_thresh=0.0,
                                     per_obj_png_file=True)
    official.cv2 = _NoDilation(official.cv2)
    unions = official.vos_inference(predictor, frames, masks, score_thresh=0.0,
                                    per_obj_png_file=True)
    np.savez_compressed(out_path, pixel_index=index, pixel_stats=stats,
                        mask_shape=np.array(dilated[0].shape),
                        dilated=np.packbits(np.stack(dilated)),
                        unions=np.packbits(np.stack(unions)))
    print(f"{len(dilated)} frames, union coverage {[round(float(u.mean()), 3) for u in unions]}, "
          f"torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
