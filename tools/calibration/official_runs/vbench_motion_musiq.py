"""The official side of the VBench AMT-S, RAFT and MUSIQ parity checks; runs OUTSIDE the
repository.

VBench's motion_smoothness (AMT-S), dynamic_degree (RAFT, raft-things) and
imaging_quality (pyiqa's MUSIQ, VBench's default `longer` preprocessing), Vchitect/VBench
@45e79ec = the vbench 0.1.5 wheel's scoring code, with pyiqa 0.1.16's musiq_arch, run on
seeded random FULL-SIZE weights in the official file formats: `raft-things.pth`
(tools.calibration.vbench_motion_weights.write_raft, seed RAFT_SEED: tiny_raft_things'
state with a calmer flow head), `amt-s.pth`
(metrics.frame_interpolation.tiny_amt.write_official_file, seed AMT_SEED) and
`musiq_spaq_ckpt-358bb6af.pth` (metrics.iqa.tiny_musiq.write_checkpoint, SPAQ config,
seed MUSIQ_SEED, head bias 50), each read by the official loader (`DynamicDegree(args,
"cpu")` as compute_dynamic_degree builds it, `MotionSmoothness(cfgs/AMT-S.yaml, ckpt,
"cpu")`, `MUSIQ(pretrained_model_path=...)` then `.training = False` as
compute_imaging_quality does). How vbench_motion_official.* and vbench_musiq_official.*
were produced (2026-12-08):

    python3.11 -m venv /tmp/vbparity_venv
    # the lock's wheels (torch 2.14.1, torchvision 0.29.1, numpy 2.4.1, opencv-python
    # 4.14.0.94, scipy, pillow, easydict 1.14, omegaconf 2.4.0, tqdm, huggingface_hub)
    /tmp/vbparity_venv/bin/pip install vbench==0.1.5 pyiqa==0.1.16 --no-deps
    /tmp/vbparity_venv/bin/python tools/calibration/official_runs/vbench_motion_musiq.py \\
        /tmp/vbparity_work tools/calibration

Inputs (RGB): motion on one room clip of //tools/fixtures' scene.render_clip (MOTION_*
below); MUSIQ on the first two frames of the 224x224 and 641x361 clips of
tools/calibration/frames.py (the second is the one `longer` resizes, to 288x512).
motion_smoothness and dynamic_degree read each clip as an image folder of lossless PNGs
(their official `get_frames_from_img_folder`: cv2.imread + BGR2RGB, no frame
subsampling; at worldeval's fps 8 the video path keeps every frame too);
imaging_quality's `load_video` gets the frames from a `decord` stand-in (the official
`load_video` and everything after it unchanged). `decord` is imported by vbench.utils
only; pyiqa's package __init__ files (downloads, every other metric) are not run: only
musiq_arch, arch_util, matlab_utils, data/multiscale_trans_util and utils/registry load
(pyiqa.utils.download_util and huggingface_hub are stand-ins: module-level URL text only,
the weights come from the local file).

Recorded by hooks that change nothing: RAFT's feature-network input (the normalised,
InputPadder-padded pair) and the last `flow_up`, each pair's get_score; AMT-S's padded
inputs and `imgt_pred`, the uint8 midpoints and each get_diff; MUSIQ's input frame, the
patch tensor its conv_root gets, the spatial / scale / mask columns, the encoder output's
class token, each frame's score; the per-video dicts. Tensors are stored as shape, sum,
sum of squares and STAT_VALUES seeded values (official_numbers' CSV format, frame = the
network call's index); every element (npz) of the AMT-S midpoints (uint8), MUSIQ's
columns and class tokens, and the scores.
"""

import csv
import glob
import hashlib
import json
import os
import pathlib
import sys
import types

import cv2
import numpy as np
import torch

RAFT_SEED = 21
AMT_SEED = 22
MUSIQ_SEED = 0
# Motion: the first 3 of 5 frames of a room clip (seed 11) at 131x121: the pan out to
# its peak, so no two frames are equal (a 3-frame clip pans out and back: frame 2 would
# repeat frame 0); odd sides exercise both paddings (RAFT to 136x128,
# AMT-S to 144x128) at about the smallest size both networks take (a full-size RAFT
# pair costs seconds on a CPU).
MOTION_HW = (121, 131)
MOTION_SEED = 11
MOTION_FRAMES = 3
MOTION_RENDERED = 5
MUSIQ_CLIPS = (1, 3)      # frames.SIZES indices: 224x224 (no resize), 641x361 (resized)
MUSIQ_FRAMES = 2          # the first two frames of each (the third repeats the first)
STAT_SEED = 4321
STAT_VALUES = 256
VBENCH = "Vchitect/VBench 45e79ec14e69a2187202c675d2dbce1a71843d53 (vbench 0.1.5 wheel)"
PYIQA = "pyiqa 0.1.16 (PyPI wheel): pyiqa/archs/musiq_arch.py"


def _stubs(site: str, videos: dict) -> None:
    """decord (videos by path) and pyiqa's package roots without their __init__ files."""
    from tools.calibration.official_runs import vbench_clip_dino  # noqa: E402  (repo on sys.path)
    vbench_clip_dino.decord_stand_in(videos)
    for name in ("pyiqa", "pyiqa.utils", "pyiqa.archs", "pyiqa.data"):
        module = types.ModuleType(name)
        module.__path__ = [os.path.join(site, *name.split("."))]
        sys.modules[name] = module
    download = types.ModuleType("pyiqa.utils.download_util")
    download.load_file_from_url = lambda *a, **k: (_ for _ in ()).throw(
        RuntimeError("no downloads"))
    sys.modules["pyiqa.utils.download_util"] = download
    hub = types.ModuleType("huggingface_hub")  # arch_util's URL helper only
    hub.hf_hub_url = lambda repo_id, filename: f"hf://{repo_id}/{filename}"  # text only
    sys.modules["huggingface_hub"] = hub


class Table:
    """official_numbers' CSV rows and the npz record."""

    def __init__(self):
        self.rows, self.record = [], {}
        self.rng = np.random.default_rng(STAT_SEED)

    def stats(self, frame: int, name: str, tensor) -> None:
        t = tensor.detach().double().numpy() if hasattr(tensor, "detach") else \
            np.asarray(tensor, np.float64)
        flat, shape = t.ravel(), "x".join(map(str, t.shape))
        self.rows.append((frame, name, shape, "sum", repr(float(flat.sum()))))
        self.rows.append((frame, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(self.rng.choice(flat.size, min(STAT_VALUES, flat.size), replace=False)):
            self.rows.append((frame, name, shape, f"at:{k}", repr(float(flat[k]))))

    def write(self, prefix: pathlib.Path, provenance: dict) -> None:
        with open(prefix.with_suffix(".csv"), "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(("frame", "tensor", "shape", "stat", "value"))
            writer.writerows(self.rows)
        np.savez_compressed(prefix.with_suffix(".npz"), **self.record)
        prefix.with_suffix(".json").write_text(json.dumps(provenance, indent=1) + "\n",
                                               encoding="utf-8")


def _folder(work: pathlib.Path, index: int, rgb: np.ndarray) -> str:
    folder = work / f"clip{index}"
    folder.mkdir(parents=True, exist_ok=True)
    for old in glob.glob(str(folder / "*.png")):
        os.remove(old)
    for t, frame in enumerate(rgb):  # lossless: cv2.imread gives these pixels back
        cv2.imwrite(str(folder / f"{t:03d}.png"), np.ascontiguousarray(frame[..., ::-1]))
    return str(folder)


def _raft(work, clips, table):
    from vbench import dynamic_degree  # pylint: disable=import-outside-toplevel
    from easydict import EasyDict as edict  # pylint: disable=import-outside-toplevel
    from tools.calibration import vbench_motion_weights  # pylint: disable=import-outside-toplevel
    path = work / "raft-things.pth"
    vbench_motion_weights.write_raft(path, RAFT_SEED)
    dynamic = dynamic_degree.DynamicDegree(edict({"model": str(path), "small": False,
                                                  "mixed_precision": False,
                                                  "alternate_corr": False}), "cpu")
    inputs, flows, scores = [], [], []
    dynamic.model.fnet.register_forward_pre_hook(
        lambda m, args: inputs.append(torch.cat(args[0], 0).detach().clone()))
    dynamic.model.register_forward_hook(lambda m, a, out: flows.append(out[1].detach().clone()))
    get_score = dynamic.get_score
    dynamic.get_score = lambda img, flo: scores.append(get_score(img, flo)) or scores[-1]
    results, thres, count = [], [], []
    results.append(float(dynamic.infer(_folder(work, 0, clips[0]))))
    thres.append(dynamic.params["thres"])
    count.append(dynamic.params["count_num"])
    for i, (x, f) in enumerate(zip(inputs, flows)):
        table.stats(i, "raft/input", x)
        table.stats(i, "raft/flow_up", f)
    table.record.update({"raft/pair_scores": np.array(scores), "raft/thres": np.array(thres),
                         "raft/count_num": np.array(count),
                         "raft/video_results": np.array(results)})


def _amt(work, clips, table, vbench_dir):
    from vbench import motion_smoothness  # pylint: disable=import-outside-toplevel
    from metrics.frame_interpolation import tiny_amt  # pylint: disable=import-outside-toplevel
    path = work / "amt-s.pth"
    tiny_amt.write_official_file(path, seed=AMT_SEED)
    motion = motion_smoothness.MotionSmoothness(
        os.path.join(vbench_dir, "third_party/amt/cfgs/AMT-S.yaml"), str(path), "cpu")
    calls, diffs, middles = [], [], []

    def keep(_, args, kwargs, out):
        calls.append((args[0].detach().clone(), args[1].detach().clone(),
                      kwargs["scale_factor"], out["imgt_pred"].detach().clone()))
    motion.model.register_forward_hook(keep, with_kwargs=True)
    get_diff = motion.get_diff

    def diff(original, interpolated):
        middles.append(interpolated.copy())
        diffs.append(float(get_diff(original, interpolated)))
        return diffs[-1]
    motion.get_diff = diff
    results = [float(motion.motion_score(_folder(work, 0, clips[0])))]
    for i, (in0, in1, scale, pred) in enumerate(calls):
        table.stats(i, "amt/in0", in0)
        table.stats(i, "amt/in1", in1)
        table.stats(i, "amt/imgt_pred", pred)
        table.stats(i, "amt/midpoint", middles[i])
    table.record.update({"amt/midpoints": np.stack(middles),  # uint8, every element
                         "amt/scale_factor": np.array([c[2] for c in calls], np.float64),
                         "amt/pair_absdiff_means": np.array(diffs),
                         "amt/video_results": np.array(results)})


def _musiq(work, videos, table):
    # pylint: disable=import-outside-toplevel
    from pyiqa.archs.musiq_arch import MUSIQ
    from vbench import imaging_quality
    from metrics.iqa import musiq as ours
    from metrics.iqa import tiny_musiq
    path = work / "musiq_spaq_ckpt-358bb6af.pth"
    tiny_musiq.write_checkpoint(path, ours.SPAQ, seed=MUSIQ_SEED, head_bias=50.0)
    model = MUSIQ(pretrained_model_path=str(path))
    model.to("cpu")
    model.training = False
    frames, patches, tokens, scores = [], [], [], []
    model.register_forward_pre_hook(lambda m, args: frames.append(args[0].detach().clone()))
    model.conv_root.register_forward_pre_hook(
        lambda m, args: patches.append(args[0].detach().clone()))
    model.transformer_encoder.register_forward_hook(
        lambda m, a, out: tokens.append(out.detach().clone()))
    model.register_forward_hook(lambda m, a, out: scores.append(float(out)))
    columns = []
    get_patches = sys.modules[MUSIQ.__module__].get_multiscale_patches

    def multiscale(*args, **kwargs):
        out = get_patches(*args, **kwargs)
        columns.append(out[0, :, -3:].detach().clone())
        return out
    sys.modules[MUSIQ.__module__].get_multiscale_patches = multiscale
    _, results = imaging_quality.technical_quality(model, list(videos), "cpu")
    for i, (x, p) in enumerate(zip(frames, patches)):
        table.stats(i, "musiq/input", x[0])
        table.stats(i, "musiq/patches", p)
        table.record[f"musiq/columns/{i}"] = columns[i].numpy().T  # spatial, scale, mask
    table.record.update({
        "musiq/cls": torch.cat([t[:, 0] for t in tokens]).numpy(),
        "musiq/frame_scores": np.array(scores),
        "musiq/video_results": np.array([r["video_results"] for r in results])})


def _fingerprint(state) -> str:
    """tools.calibration.vbench_weights.fingerprint of a torch state dict."""
    from tools.calibration import vbench_weights  # pylint: disable=import-outside-toplevel
    return vbench_weights.fingerprint({k: v.numpy() for k, v in state.items()})


def _provenance(clips, extra) -> dict:
    return dict({
        "how_produced": __doc__.split("How vbench_motion")[0].strip() + "\n\n"
                        + __doc__.split("were produced")[1].strip(),
        "script": "tools/calibration/official_runs/vbench_motion_musiq.py",
        "upstream": {"vbench": VBENCH, "pyiqa": PYIQA},
        "torch": torch.__version__, "numpy": np.__version__, "opencv": cv2.__version__,
        "stat_seed": STAT_SEED, "stat_values": STAT_VALUES,
        "frames_sha256": [hashlib.sha256(c.tobytes()).hexdigest() for c in clips],
    }, **extra)


def main(work, out_dir, only="motion,musiq"):
    repo = pathlib.Path(__file__).resolve().parents[3]
    sys.path.insert(0, str(repo))
    # pylint: disable=import-outside-toplevel
    import importlib.util
    from metrics.frame_interpolation import tiny_amt
    from metrics.iqa import musiq as ours
    from metrics.iqa import tiny_musiq
    from tools.calibration import frames as frames_lib
    from tools.calibration import vbench_motion_weights
    from tools.fixtures import scene
    vbench_dir = importlib.util.find_spec("vbench").submodule_search_locations[0]
    work, out_dir = pathlib.Path(work), pathlib.Path(out_dir)
    work.mkdir(parents=True, exist_ok=True)
    bgr = scene.render_clip(MOTION_RENDERED, *MOTION_HW, MOTION_SEED)[0][:MOTION_FRAMES]
    motion_clip = np.ascontiguousarray(bgr[..., ::-1])
    rooms = [np.ascontiguousarray(c[..., ::-1]) for c in frames_lib.frames_by_size()]
    musiq_clips = [rooms[i][:MUSIQ_FRAMES] for i in MUSIQ_CLIPS]
    videos = {f"/videos/clip{i}.mp4": c for i, c in zip(MUSIQ_CLIPS, musiq_clips)}
    _stubs(os.path.dirname(vbench_dir), videos)
    torch.set_grad_enabled(False)
    if "motion" in only:
        motion = Table()
        _raft(work, [motion_clip], motion)
        _amt(work, [motion_clip], motion, vbench_dir)
        motion.write(out_dir / "vbench_motion_official", _provenance([motion_clip], {
            "clip": {"height": MOTION_HW[0], "width": MOTION_HW[1], "frames": MOTION_FRAMES,
                     "seed": MOTION_SEED, "rendered": MOTION_RENDERED},
            "seeds": {"raft": RAFT_SEED, "amt": AMT_SEED},
            "weights_fingerprint": {
                "raft": _fingerprint(vbench_motion_weights.raft_state(RAFT_SEED)),
                "amt": _fingerprint(tiny_amt.random_official_state(AMT_SEED))},
            "frame_index": "CSV frame = the network call: RAFT pair k, AMT-S midpoint k"}))
        print(f"motion: {len(motion.rows)} rows")
    if "musiq" in only:
        iqa = Table()
        _musiq(work, videos, iqa)
        iqa.write(out_dir / "vbench_musiq_official", _provenance(musiq_clips, {
            "clips": list(MUSIQ_CLIPS), "frames_per_clip": MUSIQ_FRAMES,
            "seeds": {"musiq": MUSIQ_SEED}, "head_bias": 50.0,
            "weights_fingerprint": {"musiq": _fingerprint(tiny_musiq.random_state_dict(
                ours.SPAQ, MUSIQ_SEED, 50.0))},
            "frame_index": "CSV frame = the MUSIQ call: frame k of the clips in order"}))
        print(f"musiq: {len(iqa.rows)} rows; torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
