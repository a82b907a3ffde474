"""The official side of the SAM 2.1 parity check; runs OUTSIDE the repository.

The official code is VMBench's vendored Grounded-SAM-2 `sam2` package (VMBench @c278a73;
sam2==1.1.0 on PyPI differs: a newer video predictor, and a sdist only). How
sam2_official.csv was produced (2026-12-01), in a virtualenv /tmp/sam2-venv
(python3.11 -m venv; base.pth -> /tmp/iqa: torch 2.14.1, numpy; plus pip install
hydra-core iopath), with no CUDA extension (`sam2._C` absent):

    git --git-dir=<VMBench mirror> archive c278a73 Grounded-SAM-2/sam2 | tar -x -C /tmp/sam2src
    bazel run //tools/calibration:official_run_inputs -- --only=sam2 --output_dir=/tmp/sam2_in
    /tmp/sam2-venv/bin/python tools/calibration/official_runs/sam2.py \\
        /tmp/sam2src/Grounded-SAM-2 /tmp/sam2_in tools/calibration/sam2_official.csv

Image: `build_sam2(sam2.1_hiera_l.yaml + the tiny overrides in sam2_inputs.json,
tiny_sam2.pt, device="cpu")`, `SAM2ImagePredictor.set_image(rgb)`,
`predict(box=boxes, multimask_output=False, return_logits=True)` per frame.
Video: `build_sam2_video_predictor(...)` with its default post-processing overrides
(`fill_hole_area=8` is then skipped with a warning: no `sam2._C`; the worldeval side runs
with fill_hole_area=0 for this check); `init_state` on the frames worldeval resized
(`video_frames.npy`, see the check's docstring), then as TCS: `reset_state`,
`add_new_mask(s, obj_id, mask)` per object, `propagate_in_video(start_frame_idx=s,
max_frame_num_to_track=step)`; logits > 0 are the masks. The masks themselves (bit-packed)
go beside the CSV, into sam2_official_masks.npz.
"""

import csv
import json
import pathlib
import sys

import numpy as np
import torch


def main(grounded_sam2, inputs, out_path):
    sys.path.insert(0, grounded_sam2)
    # pylint: disable=import-outside-toplevel  (the vendored tree is on sys.path only here)
    import sam2.sam2_video_predictor as video_module
    from sam2.build_sam import build_sam2, build_sam2_video_predictor
    from sam2.sam2_image_predictor import SAM2ImagePredictor
    inputs = pathlib.Path(inputs)
    spec = json.loads((inputs / "sam2_inputs.json").read_text())
    cfg, ckpt = "configs/sam2.1/sam2.1_hiera_l.yaml", str(inputs / "tiny_sam2.pt")
    rng = np.random.default_rng(1234)
    rows, masks_out = [], {}

    def stats(i, name, t):
        flat = np.asarray(t, dtype=np.float64).ravel()
        shape = "x".join(map(str, np.shape(t)))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, min(32, flat.size), replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    image = SAM2ImagePredictor(build_sam2(cfg, ckpt, device="cpu",
                                          hydra_overrides_extra=spec["overrides"]))
    frames = np.load(inputs / "image_frames.npy", allow_pickle=True)
    for i, (rgb, boxes) in enumerate(zip(frames, spec["boxes"])):
        with torch.no_grad():
            image.set_image(rgb)
            stats(i, "image_pixels", image._transforms(rgb).numpy())  # pylint: disable=protected-access
            logits, iou, low = image.predict(box=np.array(boxes, dtype=np.float32),
                                             multimask_output=False, return_logits=True)
        stats(i, "image_low_res_logits", low.reshape(len(boxes), 1, *low.shape[-2:]))
        stats(i, "image_iou", iou.reshape(len(boxes), 1))
        masks = logits.reshape(len(boxes), *rgb.shape[:2]) > 0
        masks_out[f"image_{i}"] = masks

    video_frames = torch.from_numpy(np.load(inputs / "video_frames.npy"))
    clip = np.load(inputs / "video_rgb.npy")
    video_module.load_video_frames = lambda **_: (video_frames, clip.shape[1], clip.shape[2])
    predictor = build_sam2_video_predictor(cfg, ckpt, device="cpu",
                                           hydra_overrides_extra=spec["overrides"])
    state = predictor.init_state("frames", offload_video_to_cpu=True)
    init = np.load(inputs / "video_init_masks.npy")
    start, step = spec["video_start"], spec["video_step"]
    predictor.reset_state(state)
    with torch.inference_mode():
        for obj_id, mask in zip(spec["video_obj_ids"], init):
            predictor.add_new_mask(state, start, obj_id, mask)
        for frame, ids, logits in predictor.propagate_in_video(
                state, max_frame_num_to_track=step, start_frame_idx=start):
            stats(frame, "video_logits", logits.float().numpy())
            masks_out[f"video_{frame}"] = (logits > 0).numpy()[:, 0]
    np.savez_compressed(pathlib.Path(out_path).with_name("sam2_official_masks.npz"),
                        **{k: np.packbits(m) for k, m in masks_out.items()},
                        **{f"{k}_shape": np.array(m.shape) for k, m in masks_out.items()})
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
