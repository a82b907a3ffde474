"""The official side of the MapAnything (CameraControllability) parity check; runs OUTSIDE
the repository.

MapAnything is not on PyPI (github.com/facebookresearch/map-anything, read at f7ebafb);
its encoder code is torch.hub code (github.com/facebookresearch/dinov2, b8931f7). How
mapanything_official.csv was produced (2026-12-01, CPU, no network):

    python3.11 -m venv /tmp/mapany-venv
    # base.pth: the locked wheels' site folders of the worktree's Bazel output base
    #   (external/pypi__*/site: torch 2.14.1, torchvision, numpy 2.4.1, opencv 4.14,
    #   huggingface_hub 2.4.0, safetensors, pillow, pyyaml, ...), one per line
    git --git-dir=<map-anything mirror> archive f7ebafb mapanything configs pyproject.toml \\
        | tar -x -C /tmp/mapany-src
    git --git-dir=<dinov2 mirror> archive b8931f7 \\
        | tar -x -C /tmp/mapany-hub/facebookresearch_dinov2_main   # a torch.hub cache
    git --git-dir=<MemoBench mirror> archive f4edb0c evaluation/automated \\
        | tar -x -C /tmp/mapany-memobench
    /tmp/mapany-venv/bin/pip install --no-deps uniception==0.1.7 /tmp/mapany-src
    #   uniception-0.1.7-py3-none-any.whl sha256
    #   947bf25e33c64f50f72d815f8f71d85b531e6fa2259369b1d7558c1693029e61
    /tmp/mapany-venv/bin/pip install hydra-core   # 1.3.8, omegaconf 2.3.1, antlr4 4.9.3
    /tmp/mapany-venv/bin/pip install --no-deps einops jaxtyping   # 0.8.2, 0.3.11
    bazel run //tools/calibration:official_run_inputs -- --only=mapanything --output_dir=/tmp/mapany-in
    PYTHONPATH=$PWD /tmp/mapany-venv/bin/python tools/calibration/official_runs/mapanything.py \\
        /tmp/mapany-src /tmp/mapany-hub /tmp/mapany-memobench /tmp/mapany-in \\
        tools/calibration/mapanything_official.csv

(`mapanything.models` and `mapanything.utils.image` import with only these; the other
declared requirements of map-anything (rerun-sdk, trimesh, tensorboard, plyfile, ...) and
uniception (matplotlib, scikit-learn, torchmetrics, minio, ...) are not installed). The
script writes the model snapshot into <inputs>/snapshot/ (~62 MB); 30 s, 1.4 GB peak RSS.
The model: the package's own hydra composition of `model=mapanything` with the Apache
benchmark script's `model/task=images_only model.encoder.uses_torch_hub=false`, shrunk
(DINOv2 small with 1 block, 2 alternating-attention layers of width 64 / 2 heads, DPT
features 32, dense geometric-input encoders 16 wide) and `torch_hub_pretrained=false`
(the DINOv2 encoder's own flag: the hub code is read from the cache above, no weights
downloaded), built by `mapanything.models.init_model` with seed 0, every parameter plus
seeded noise (std 0.02), saved by huggingface_hub's `save_pretrained` (config.json +
model.safetensors) and loaded back by `MapAnything.from_pretrained`. MemoBench's
`camera_controllability_score` then runs on each clip as shipped (its FrameReader; its
`_load_mapanything` cache is pre-set to that model because its hub id cannot be
downloaded here), and worldeval's `mapanything_poses.load_mapanything` +
`estimate_poses` on the same snapshot and frames.
"""

import csv
import pathlib
import sys

import cv2
import numpy as np
import torch

SEED = 0
NOISE = 0.02
OVERRIDES = ["model=mapanything", "model/task=images_only", "model.encoder.uses_torch_hub=false",
             "model.encoder.size=small", "model.encoder.keep_first_n_layers=1",
             "+model.encoder.torch_hub_pretrained=false",
             "model.info_sharing.module_args.depth=2", "model.info_sharing.module_args.dim=64",
             "model.info_sharing.module_args.num_heads=2",
             "model.info_sharing.module_args.indices=[0,1]",
             "model.pred_head.feature_head.feature_dim=32",
             "+model.task.ray_dirs_encoder_config.intermediate_dims=[16,16,16]",
             "+model.task.depth_encoder_config.intermediate_dims=[16,16,16]"]


def build_snapshot(src, folder):
    """The tiny random model saved in the from_pretrained layout; returns the folder."""
    # pylint: disable=import-outside-toplevel  (installed in the scratch venv only)
    import hydra
    from omegaconf import OmegaConf
    from mapanything.models import init_model
    hydra.core.global_hydra.GlobalHydra.instance().clear()
    hydra.initialize_config_dir(version_base=None, config_dir=str(pathlib.Path(src) / "configs"))
    cfg = hydra.compose(config_name="dense_n_view_benchmark", overrides=OVERRIDES)
    torch.manual_seed(SEED)
    model = init_model(cfg.model.model_str, cfg.model.model_config, torch_hub_force_reload=False)
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(torch.randn(parameter.shape, generator=generator) * NOISE)
    # The constructor adds a class (the MLP layer) to its config dicts, which
    # save_pretrained cannot write; the saved config is the composed one.
    config = OmegaConf.to_container(cfg.model.model_config, resolve=True)
    model.save_pretrained(str(folder), config=config)
    return model


def main(src, hub, memobench, inputs, out_path):
    sys.path.insert(0, str(pathlib.Path(memobench) / "evaluation"))
    # pylint: disable=import-outside-toplevel
    from automated.io.frames import FrameReader
    from automated.metrics import camera_controllability as official
    from mapanything.models import MapAnything
    from metrics.camera import mapanything_poses
    torch.hub.set_dir(str(hub))
    inputs, snapshot = pathlib.Path(inputs), pathlib.Path(inputs) / "snapshot"
    built = build_snapshot(src, snapshot)
    theirs_model = MapAnything.from_pretrained(str(snapshot)).to("cpu").eval()
    ours_model = mapanything_poses.load_mapanything(snapshot, "cpu")
    for name, tensor in built.state_dict().items():
        assert torch.equal(tensor, theirs_model.state_dict()[name]), name
    official._mapanything_model, official._mapanything_device = theirs_model, "cpu"

    recorded = []
    for model in (theirs_model, ours_model):
        def infer(views, _orig=model.infer, **kwargs):
            recorded.append(([v["img"].clone() for v in views], kwargs))
            return _orig(views, **kwargs)
        model.infer = infer
    estimated = []
    original_estimate = official._estimate_poses_mapanything

    def estimate(*args, **kwargs):
        estimated.append(original_estimate(*args, **kwargs))
        return estimated[-1]
    official._estimate_poses_mapanything = estimate

    rng = np.random.default_rng(1234)
    rows, frame0 = [], 0

    def stats(i, name, t, picks=None):
        """Sum, sum of squares and the values at `picks`; every element without picks."""
        flat = np.asarray(t, dtype=np.float64).ravel()
        shape = "x".join(map(str, np.shape(t)))
        if picks is not None:
            rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
            rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        rows.extend((i, name, shape, f"at:{k}", repr(float(flat[k])))
                    for k in (range(flat.size) if picks is None else picks))

    for k in range(4):
        clip = inputs / f"clip{k}"
        reader = FrameReader(str(clip / "frames"), max_side=10 ** 6)  # no resize here
        gt = official._resample(np.load(clip / "gt_poses.npy"), reader.num_frames)
        official.round = lambda x, ndigits=None: x  # unrounded values, arithmetic unchanged
        unrounded = official.camera_controllability_score(reader, gt, None, device="cpu")
        del official.round
        rounded = official.camera_controllability_score(reader, gt, None, device="cpu")
        assert np.array_equal(estimated[-1], estimated[-2])
        paths = sorted((clip / "frames").iterdir())
        frames = np.stack([cv2.imread(str(p)) for p in paths])
        ours = mapanything_poses.estimate_poses(ours_model, frames)
        (views_theirs, kw_theirs), (views_ours, kw_ours) = recorded[-3], recorded[-1]
        assert kw_ours == kw_theirs, (kw_ours, kw_theirs)
        for i in range(reader.num_frames):
            picks = sorted(rng.choice(views_theirs[i][0].numel(), 32, replace=False))
            stats(frame0 + i, "views_official", views_theirs[i][0].numpy(), picks)
            stats(frame0 + i, "views_ours", views_ours[i][0].numpy(), picks)  # same positions
            stats(frame0 + i, "pose_official", estimated[-1][i])
            stats(frame0 + i, "pose_ours", ours[i])
        names = {"camera_controllability": "coverage", "ate_rot_deg": "ate_rot_deg",
                 "total_gt_rotation_deg": "total_gt_rot_deg",
                 "mean_rot_error_deg": "mean_rot_error_deg"}
        for key, name in names.items():
            rows.append((k, f"clip_{name}", "", "value", repr(float(unrounded[key]))))
            rows.append((k, f"clip_{name}_rounded", "", "value", repr(float(rounded[key]))))
        print(f"clip {k}: {len(frames)} frames {frames.shape[1:3]}, views "
              f"{tuple(views_ours[0].shape)}, max |pose diff| "
              f"{np.abs(ours - estimated[-1]).max():.3g}, {unrounded}")
        frame0 += reader.num_frames
    with open(out_path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {out_path}")


if __name__ == "__main__":
    # This file's folder is sys.path[0] and its name would shadow the package.
    _HERE = pathlib.Path(__file__).resolve().parent
    sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]
    main(*sys.argv[1:6])
