"""The official side of the VBench CLIP / DINO parity checks; runs OUTSIDE the repository.

VBench's background_consistency, appearance_style, aesthetic_quality and
subject_consistency (Vchitect/VBench @45e79ec = the vbench 0.1.5 wheel's scoring code)
run on seeded random FULL-SIZE weights (tools/calibration/vbench_weights.py) through the
official loaders in VBench's `local=True` mode: openai/CLIP's `clip.load(<file>)`
(jit=False, device "cpu", so float32: the CUDA path would keep float16), the DINO hub
model `torch.hub.load(<dino checkout>, "dino_vitb16", source="local", ...)` whose
weights come from the hub cache's checkpoints/dino_vitbase16_pretrain.pth, and
`get_aesthetic_model(<folder>)` reading <folder>/sa_0_4_vit_l_14_linear.pth. How
vbench_official.{csv,npz,json} were produced (2026-12-07):

    python3.11 -m venv /tmp/vbcd_scratch/venv
    /tmp/vbcd_scratch/venv/bin/pip install torch==2.14.1 torchvision==0.29.1
        # (the run reports torch 2.14.1+cu130; everything ran on the CPU)
    /tmp/vbcd_scratch/venv/bin/pip install numpy==2.4.1 pillow ftfy regex tqdm packaging \\
        safetensors opencv-python-headless==4.14.0.94
    git -C <openai/CLIP> archive d05afc4 clip | tar -x -C /tmp/vbcd_scratch/src
    git -C <facebookresearch/dino> archive 7c446df hubconf.py vision_transformer.py \\
        utils.py | tar -x -C /tmp/vbcd_scratch/dino
    /tmp/vbcd_scratch/venv/bin/python tools/calibration/official_runs/vbench_clip_dino.py \\
        /tmp/vbw/src /tmp/vbcd_scratch/src /tmp/vbcd_scratch/dino /tmp/vbcd_scratch/work \\
        tools/calibration/vbench_official

(/tmp/vbw/src: the unpacked vbench-0.1.5 wheel; this repository on sys.path for the
weights and the frames.) Only the decode is replaced: `decord` is a stand-in whose
VideoReader returns the stored RGB frames of a "video path" (what decord's native bridge
returns for a lossless video), so the official `load_video` (float32 (T, C, H, W), or the
uint8 array for appearance_style) and everything after it run unchanged. Recorded by
wrapping the models' entry points without changing them: every tensor the networks got
(stored as shape, sum, sum of squares and 64 seeded values per frame in the CSV), their
outputs L2-normalised as the official code normalises them, the head's scores, the text
tokens, and the per-video dicts (npz).
"""

import csv
import json
import pathlib
import sys
import types

import numpy as np
import torch
import torch.nn.functional as F

STYLES = ("oil painting", "black and white", "watercolor painting", "pixel art")
AESTHETIC_VIDEO = 3   # the 641x361 clip
AESTHETIC_FRAMES = 2  # its first two frames (a full-size ViT-L/14 forward is ~80 GFLOP)
STAT_SEED = 1234
STAT_VALUES = 64


def decord_stand_in(videos):
    """Installs a `decord` whose VideoReader hands back `videos[path]` (also used by
    vbench_motion_musiq.py)."""
    class VideoReader:  # pylint: disable=too-few-public-methods
        def __init__(self, path, num_threads=1, **_):
            del num_threads
            self.frames = videos[path]

        def __len__(self):
            return len(self.frames)

        def get_batch(self, indices):
            return types.SimpleNamespace(asnumpy=lambda: self.frames[list(indices)].copy())

    module = types.ModuleType("decord")
    module.VideoReader = VideoReader
    module.cpu = lambda *a, **k: None
    module.bridge = types.SimpleNamespace(set_bridge=lambda *_: None)
    sys.modules["decord"] = module


def _torchscript_archive(state, path):
    """The tensors as a TorchScript archive (float16), the format of OpenAI's ViT-*.pt:
    clip.load(path) takes `torch.jit.load(path).state_dict()` (its torch.load fallback
    for a plain state dict fails under torch 2.x: it re-reads the file from where
    torch.jit.load stopped)."""
    root = torch.nn.Module()
    for name, value in state.items():
        *parents, leaf = name.split(".")
        module = root
        for part in parents:
            if not hasattr(module, part):
                module.add_module(part, torch.nn.Module())
            module = getattr(module, part)
        module.register_parameter(leaf, torch.nn.Parameter(
            torch.from_numpy(value).half(), requires_grad=False))
    root.forward = lambda x: x
    traced = torch.jit.trace(root, torch.zeros(1), check_trace=False)
    torch.jit.save(traced, str(path))
    loaded = torch.jit.load(str(path), map_location="cpu").state_dict()
    if set(loaded) != set(state) or any(
            not np.array_equal(loaded[k].float().numpy(), v) for k, v in state.items()):
        raise AssertionError(f"{path} does not hold the seeded weights")


class Recorder:
    """Calls of `fn`: inputs and outputs, detached copies."""

    def __init__(self, fn):
        self.fn, self.inputs, self.outputs = fn, [], []

    def __call__(self, x, *args, **kwargs):
        out = self.fn(x, *args, **kwargs)
        self.inputs.append(x.detach().clone())
        self.outputs.append(out.detach().clone())
        return out


def main(vbench_src, clip_src, dino_src, work, out_prefix):
    repo = pathlib.Path(__file__).resolve().parents[3]
    for path in (vbench_src, clip_src, str(repo)):
        sys.path.insert(0, path)
    # pylint: disable=import-outside-toplevel
    from tools.calibration import frames as frames_lib
    from tools.calibration import vbench_weights as w
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    clips = [np.ascontiguousarray(c[..., ::-1]) for c in frames_lib.frames_by_size()]
    paths = [f"/videos/clip{i}.mp4" for i in range(len(clips))]
    aesthetic_path = "/videos/aesthetic.mp4"
    videos = dict(zip(paths, clips))
    videos[aesthetic_path] = clips[AESTHETIC_VIDEO][:AESTHETIC_FRAMES]
    decord_stand_in(videos)

    import clip
    from vbench import aesthetic_quality, appearance_style, background_consistency
    from vbench import subject_consistency

    b32, l14 = work / "ViT-B-32.pt", work / "ViT-L-14.pt"
    _torchscript_archive(w.clip_state(w.VIT_B32), b32)
    _torchscript_archive(w.clip_state(w.VIT_L14), l14)
    (work / "hub" / "checkpoints").mkdir(parents=True, exist_ok=True)
    torch.save({k: torch.from_numpy(v) for k, v in w.dino_state().items()},
               work / "hub" / "checkpoints" / "dino_vitbase16_pretrain.pth")
    aes_dir = work / "aesthetic_model" / "emb_reader"
    aes_dir.mkdir(parents=True, exist_ok=True)
    torch.save({k: torch.from_numpy(v) for k, v in w.head_state().items()},
               aes_dir / "sa_0_4_vit_l_14_linear.pth")

    record, rows = {}, []
    rng = np.random.default_rng(STAT_SEED)

    def stats(frame, name, t):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((frame, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((frame, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, STAT_VALUES, replace=False)):
            rows.append((frame, name, shape, f"at:{k}", repr(float(flat[k]))))

    with torch.no_grad():
        # background_consistency: one encode_image call per video.
        model, preprocess = clip.load(str(b32), device="cpu")
        model.encode_image = Recorder(model.encode_image)
        _, results = background_consistency.background_consistency(
            model, preprocess, paths, "cpu", False)
        pixels = torch.cat(model.encode_image.inputs).numpy()
        for i, p in enumerate(pixels):
            stats(i, "clip_transform", p)
        record["background/features"] = F.normalize(
            torch.cat(model.encode_image.outputs), dim=-1, p=2).numpy()
        for key in ("video_results", "video_sim", "cnt_per_video"):
            record[f"background/{key}"] = np.array([r[key] for r in results], np.float64)

        # appearance_style: clip_model(image, text) one frame at a time.
        model, _ = clip.load(device="cpu", name=str(b32))
        model.encode_image = Recorder(model.encode_image)
        model.encode_text = Recorder(model.encode_text)
        entries = [{"auxiliary_info": {"appearance_style": s}, "video_list": [p]}
                   for s, p in zip(STYLES, paths)]
        _, results = appearance_style.appearance_style(model, entries, "cpu")
        for i, p in enumerate(torch.cat(model.encode_image.inputs).numpy()):
            stats(i, "clip_transform_Image", p)
        image = torch.cat(model.encode_image.outputs)
        text = torch.cat(model.encode_text.outputs)
        record["style/image_features"] = (image / image.norm(dim=1, keepdim=True)).numpy()
        record["style/text_features"] = (text / text.norm(dim=1, keepdim=True)).numpy()
        record["style/tokens"] = torch.cat(model.encode_text.inputs).numpy()
        record["style/frame_results"] = np.array(
            [v for r in results for v in r["frame_results"]], np.float64)
        record["style/video_results"] = np.array([r["video_results"] for r in results])
        record["style/cur_sim"] = np.array([r["cur_sim"] for r in results], np.float64)
        record["style/logit_scale_exp"] = np.array(float(model.logit_scale.exp()))

        # aesthetic_quality: ViT-L/14 + the linear head, batches of 32 frames.
        head = aesthetic_quality.get_aesthetic_model(str(aes_dir))
        scores = []
        head.register_forward_hook(lambda m, i, o: scores.append(o.detach().clone()))
        model, _ = clip.load(str(l14), device="cpu")
        model.encode_image = Recorder(model.encode_image)
        _, results = aesthetic_quality.laion_aesthetic(head, model, [aesthetic_path], "cpu")
        for i, p in enumerate(torch.cat(model.encode_image.inputs).numpy()):
            stats(100 + i, "clip_transform", p)
        record["aesthetic/features"] = F.normalize(
            torch.cat(model.encode_image.outputs).to(torch.float32), dim=-1, p=2).numpy()
        record["aesthetic/head_scores"] = torch.cat(scores).squeeze(-1).numpy()
        record["aesthetic/video_results"] = np.array([r["video_results"] for r in results])

        # subject_consistency: the DINO hub model one frame at a time.
        torch.hub.set_dir(str(work / "hub"))
        dino = torch.hub.load(repo_or_dir=dino_src, model="dino_vitb16", source="local",
                              path=str(work / "unused.pth"), read_frame=False)
        inputs, outputs = [], []

        def keep(module, args, output):  # returns None: the output is left as it is
            del module
            inputs.append(args[0].detach().clone())
            outputs.append(output.detach().clone())
        dino.register_forward_hook(keep)
        _, results = subject_consistency.subject_consistency(dino, paths, "cpu", False)
        for i, p in enumerate(inputs):  # (1, 3, 224, W): no crop, sizes differ
            stats(i, "dino_transform", p[0].numpy())
        record["subject/features"] = F.normalize(torch.cat(outputs), dim=-1, p=2).numpy()
        record["subject/video_results"] = np.array([r["video_results"] for r in results])

    out_prefix = pathlib.Path(out_prefix)
    with open(out_prefix.with_suffix(".csv"), "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    np.savez_compressed(out_prefix.with_suffix(".npz"), **record)
    provenance = {
        "how_produced": __doc__.split("How vbench")[0].strip(),
        "script": "tools/calibration/official_runs/vbench_clip_dino.py",
        "upstream": {"vbench": "Vchitect/VBench 45e79ec14e69a2187202c675d2dbce1a71843d53 "
                               "(vbench 0.1.5 wheel)",
                     "clip": "openai/CLIP d05afc436d78f1c48dc0dbf8e5980a9d471f35f6",
                     "dino": "facebookresearch/dino 7c446df5b9f45747937fb0d72314eb9f7b66930a"},
        "torch": torch.__version__, "numpy": np.__version__,
        "seeds": {"clip": w.CLIP_SEED, "dino": w.DINO_SEED, "head": w.HEAD_SEED,
                  "frames": frames_lib.SEED, "stats": STAT_SEED},
        "weights_fingerprint": {
            "ViT-B/32": w.fingerprint(w.clip_state(w.VIT_B32)),
            "ViT-L/14 visual": w.fingerprint(w.clip_state(w.VIT_L14, ("visual",))),
            "dino_vitb16": w.fingerprint(w.dino_state()),
            "laion_linear": w.fingerprint(w.head_state())},
        "frames_sha256": [__import__("hashlib").sha256(c.tobytes()).hexdigest() for c in clips],
        "styles": list(STYLES), "aesthetic": {"clip": AESTHETIC_VIDEO,
                                              "frames": AESTHETIC_FRAMES},
        "frame_index": "CSV frame = index over the 4 clips' 12 frames; 100 + i: the "
                       "aesthetic video's frame i",
    }
    out_prefix.with_suffix(".json").write_text(json.dumps(provenance, indent=1) + "\n",
                                               encoding="utf-8")
    print(f"{len(rows)} rows; torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:6])
