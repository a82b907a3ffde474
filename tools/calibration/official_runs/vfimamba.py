"""The official side of the VFIMamba / motion-smoothness parity check; runs OUTSIDE the
repository. How vfimamba_official.csv and the full-size key list were produced (2026-12-01):

    git --git-dir=<MCG-NJU/VFIMamba mirror> archive 8df805e model config.py \\
        Trainer_finetune.py benchmark/utils/padder.py | tar -x -C /tmp/vfm-official
    python3.11 -m venv /tmp/vfimamba-venv   # + base.pth -> the locked wheels' site folders
    /tmp/vfimamba-venv/bin/pip install --no-deps einops torchmetrics==1.9.0 \\
        lightning-utilities wheel
    MAMBA_SKIP_CUDA_BUILD=TRUE /tmp/vfimamba-venv/bin/pip download --no-deps \\
        --no-binary=:all: --no-build-isolation -d /tmp/vfm-dl mamba-ssm==2.3.2.post1
    tar -xzf /tmp/vfm-dl/mamba_ssm-2.3.2.post1.tar.gz -C /tmp/vfm-dl   # read, never built
    bazel run //tools/calibration:official_run_inputs -- --only=vfimamba \\
        --output_dir=/tmp/vfm-official/parity_in
    cd /tmp/vfm-official && /tmp/vfimamba-venv/bin/python <repo>/tools/calibration/official_runs/vfimamba.py \\
        /tmp/vfm-official /tmp/vfm-dl/mamba_ssm-2.3.2.post1 /tmp/vfm-official/parity_in \\
        <repo>/tools/calibration/vfimamba_official.csv \\
        <repo>/metrics/interpolation/testdata/vfimamba_f32_state_dict_shapes.json

What is official and what is not:
  scan     mamba-ssm has no wheel on PyPI (sdist only, compiled against CUDA), so its
           `selective_scan_fn` cannot run here; the sdist's own pure-PyTorch
           `selective_scan_ref` (ops/selective_scan_interface.py, the function executed
           unchanged from its source) is installed as `mamba_ssm.ops.selective_scan_interface
           .selective_scan_fn` for the official model, and also run on the stored scan inputs;
  model    config.init_model_config(F, depth) with TINY's F=4, depth 1,1,1,1,1 through
           Trainer_finetune.Model (its .to("cuda") skipped: CPU); full size (F=32, depth
           2,2,2,3,3) built once for the key/shape list (weights not written);
  loader   Model.load_model(name) reading ckpt/<name>.pkl (the official convert +
           load_state_dict(strict=True)) from the input folder;
  frames   the stored BGR clips (what cv2.imread gives), even pairs vs odd frames as in
           WorldScore's MotionSmoothnessMetric._compute_scores, with its tensor
           conversion (torch.tensor(I.transpose(2, 0, 1)) / 255.), InputPadder(divisor=32),
           inference(I0, I2, True, TTA=True, fast_TTA=True, scale=0.0), unpad, (x * 255.0)
           .astype(np.uint8);
  scores   np.mean((mid - gt) ** 2) on the uint8 arrays; torchmetrics
           StructuralSimilarityIndexMeasure() and LearnedPerceptualImagePatchSimilarity(
           net_type="alex") on ToTensor of both (the official wrappers); LPIPS's
           torchvision AlexNet "pretrained" file is the stored random trunk (its classifier
           from a fresh alexnet(), unused) saved as TORCH_HOME/hub/checkpoints/
           alexnet-owt-7be5be79.pth, the lin weights torchmetrics' own bundled alex.pth.
"""

import ast
import csv
import json
import pathlib
import sys
import types

import numpy as np
import torch


def _install_scan(mamba_dir: pathlib.Path):
    import torch.nn.functional as F  # pylint: disable=import-outside-toplevel
    from einops import rearrange, repeat  # pylint: disable=import-outside-toplevel
    source = mamba_dir / "mamba_ssm" / "ops" / "selective_scan_interface.py"
    tree = ast.parse(source.read_text())
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef)
                and n.name == "selective_scan_ref")
    namespace = {"torch": torch, "F": F, "rearrange": rearrange, "repeat": repeat}
    exec(compile(ast.Module(body=[node], type_ignores=[]), str(source), "exec"), namespace)  # pylint: disable=exec-used
    for name in ("mamba_ssm", "mamba_ssm.ops"):
        sys.modules[name] = types.ModuleType(name)
    interface = types.ModuleType("mamba_ssm.ops.selective_scan_interface")
    interface.selective_scan_fn = interface.selective_scan_ref = namespace["selective_scan_ref"]
    sys.modules[interface.__name__] = interface
    return namespace["selective_scan_ref"]


def _model(config, trainer, F, depth):
    config.MODEL_CONFIG["MODEL_ARCH"] = config.init_model_config(F=F, depth=depth)
    trainer.MODEL_CONFIG["MODEL_ARCH"] = config.MODEL_CONFIG["MODEL_ARCH"]
    trainer.Model.device = lambda self: None  # CPU: the official .to("cuda") skipped
    return trainer.Model(-1)


def main(official_dir, mamba_dir, inputs, out_csv, out_json):
    official_dir, inputs = pathlib.Path(official_dir), pathlib.Path(inputs)
    scan_ref = _install_scan(pathlib.Path(mamba_dir))
    sys.path.insert(0, str(official_dir))
    import config  # pylint: disable=import-outside-toplevel,import-error
    import Trainer_finetune as trainer  # pylint: disable=import-outside-toplevel,import-error
    from benchmark.utils.padder import InputPadder  # pylint: disable=import-outside-toplevel,import-error
    from torchmetrics.image import StructuralSimilarityIndexMeasure  # pylint: disable=import-outside-toplevel
    from torchvision.transforms import ToTensor  # pylint: disable=import-outside-toplevel
    import torchvision  # pylint: disable=import-outside-toplevel
    import os  # pylint: disable=import-outside-toplevel
    torch_home = inputs / "torch_home"
    (torch_home / "hub" / "checkpoints").mkdir(parents=True, exist_ok=True)
    alexnet = torchvision.models.alexnet(weights=None).state_dict()
    alexnet.update(torch.load(inputs / "lpips" / "alexnet" / "alexnet-owt-7be5be79.pth"))
    torch.save(alexnet, torch_home / "hub" / "checkpoints" / "alexnet-owt-7be5be79.pth")
    os.environ["TORCH_HOME"] = str(torch_home)
    from torchmetrics.image.lpip import LearnedPerceptualImagePatchSimilarity  # pylint: disable=import-outside-toplevel
    lpips_metric = LearnedPerceptualImagePatchSimilarity(net_type="alex")

    full = _model(config, trainer, 32, [2, 2, 2, 3, 3])
    shapes = {k: list(v.shape) for k, v in full.net.state_dict().items()}
    pathlib.Path(out_json).write_text(json.dumps(shapes, indent=1) + "\n")
    del full
    model = _model(config, trainer, 4, [1, 1, 1, 1, 1])
    ckpt = inputs / "ckpt"
    ckpt.mkdir(exist_ok=True)
    (ckpt / "VFIMamba.pkl").write_bytes((inputs / "VFIMamba.pkl").read_bytes())
    cwd = pathlib.Path.cwd()
    os.chdir(inputs)
    try:
        model.load_model("VFIMamba")  # reads ckpt/VFIMamba.pkl
    finally:
        os.chdir(cwd)
    model.eval()
    ssim = StructuralSimilarityIndexMeasure()
    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, name, t, sampled):
        t = np.asarray(t, dtype=np.float64)
        flat = t.ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        picks = sorted(rng.choice(flat.size, sampled, replace=False)) if sampled else \
            range(flat.size)
        for k in picks:
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    clips = np.load(inputs / "vfimamba_clips.npz")
    k = 0
    for name in sorted(clips.files):
        frames = list(clips[name])
        even, odd = frames[::2], frames[1::2]
        for i, (image1, image2) in enumerate(zip(even[:-1], even[1:])):
            gt = odd[i]
            i0 = (torch.tensor(image1.transpose(2, 0, 1)) / 255.).unsqueeze(0)
            i2 = (torch.tensor(image2.transpose(2, 0, 1)) / 255.).unsqueeze(0)
            padder = InputPadder(i0.shape, divisor=32)
            i0, i2 = padder.pad(i0, i2)
            stats(k, "padded_pair", torch.cat([i0, i2], 1).numpy(), 64)
            pred = padder.unpad(model.inference(i0, i2, True, TTA=True, fast_TTA=True, scale=0.0))
            stats(k, "prediction", pred.numpy(), 256)
            mid = (pred[0].detach().cpu().numpy().transpose(1, 2, 0) * 255.0).astype(np.uint8)
            mse = np.mean((mid - gt) ** 2)
            a, b = ToTensor()(mid).unsqueeze(0), ToTensor()(gt).unsqueeze(0)
            stats(k, "scores", np.array([mse, ssim(a, b).item(), lpips_metric(a, b).item()]), 0)
            k += 1
    scan = {n: torch.from_numpy(v) for n, v in np.load(inputs / "vfimamba_scan.npz").items()}
    stats(0, "scan", scan_ref(**scan, delta_softplus=True).numpy(), 0)
    with open(out_csv, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, {k} pairs, {len(shapes)} full-size tensors, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:6])
