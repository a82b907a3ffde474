"""The official side of the OIS (RTMDet-m + RTMPose-m) parity check; runs OUTSIDE the
repository.

The official code is what VMBench's object_integrity_score.py (AMAP-ML/VMBench @c278a73)
calls: mmdet 3.2.0 `init_detector` / `inference_detector` and mmpose 1.3.2 (the version
VMBench vendors; its Python files equal the PyPI wheel's) `init_model` /
`inference_topdown`, with the two config files the script's defaults name. mmcv 2.1.0
has no wheel for torch 2.14, so mmcv-lite 2.1.0 (the same Python code without compiled
ops) is used and its `mmcv._ext` is a stand-in whose only op, `nms`, is torchvision's
(mmcv's nms with offset 0 has the same definition); xtcocotools (dataset code, unused
here, built for numpy 1.x) is stubbed. How ois_official.csv was produced (2026-12-01):

    python3.11 -m venv /tmp/ois-off-venv      # + base.pth: the locked wheels' site dirs
    pip download mmdet==3.2.0 mmcv-lite==2.1.0 mmengine==0.10.7 mmpose==1.3.2 --no-deps
    /tmp/ois-off-venv/bin/pip install --no-deps <those four wheels>
    /tmp/ois-off-venv/bin/pip install addict yapf termcolor json_tricks munkres \\
        matplotlib shapely terminaltables pycocotools six tqdm
    mkdir -p /tmp/ois-cfg && cd /tmp/ois-cfg && for f in \\
        demo/mmdetection_cfg/rtmdet_m_640-8xb32_coco-person.py \\
        configs/body_2d_keypoint/rtmpose/body8/rtmpose-m_8xb256-420e_body8-256x192.py \\
        configs/_base_/default_runtime.py; do mkdir -p $(dirname $f); \\
        git --git-dir=<VMBench mirror> show HEAD:mmpose/$f > $f; done
    mkdir -p bench_utils && git --git-dir=<VMBench mirror> show HEAD:bench_utils/pose_utils.py \\
        > bench_utils/pose_utils.py
    bazel run //tools/calibration:official_run_inputs -- --only=ois --output_dir=/tmp/ois_in
    cd /tmp/ois-cfg && /tmp/ois-off-venv/bin/python <repo>/tools/calibration/official_runs/ois_rtm.py \\
        /tmp/ois_in <repo>/tools/calibration/ois_official.csv

Per detector file (det.pth: persons found; det_none.pth: none, the whole-image path) and
frame, the steps of process_one_image: inference_detector, label 0 and score > 0.3,
mmpose's nms at 0.3, inference_topdown, split_instances; instance 0 is recorded, with
forward hooks on the detector's backbone input and bbox_head outputs and the pose
model's backbone input, and a wrapper on its head's forward (both flip-test calls).
"""

import csv
import importlib.machinery
import pathlib
import sys
import types

import numpy as np
import torch
import torchvision


def _stand_ins():
    ext = types.ModuleType("mmcv._ext")
    ext.__spec__ = importlib.machinery.ModuleSpec("mmcv._ext", None)

    def nms(boxes, scores, iou_threshold, offset):
        assert offset == 0
        return torchvision.ops.nms(boxes.float(), scores.float(), float(iou_threshold))

    class Ext(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)

            def missing(*args, **kwargs):
                raise RuntimeError(f"mmcv op {name} is not available in this run")
            return missing
    ext.__class__ = Ext
    ext.nms = nms
    sys.modules["mmcv._ext"] = ext
    for name in ("xtcocotools", "xtcocotools.coco", "xtcocotools.cocoeval",
                 "xtcocotools.mask"):
        stub = types.ModuleType(name)
        stub.COCO = stub.COCOeval = type("Unused", (), {})
        sys.modules[name] = stub


def main(inputs, out_path):
    _stand_ins()
    from mmdet.apis import inference_detector, init_detector  # pylint: disable=import-outside-toplevel
    from mmpose.apis import inference_topdown, init_model  # pylint: disable=import-outside-toplevel
    from mmpose.evaluation.functional import nms  # pylint: disable=import-outside-toplevel
    from mmpose.structures import merge_data_samples, split_instances  # pylint: disable=import-outside-toplevel
    from mmpose.utils import adapt_mmdet_pipeline  # pylint: disable=import-outside-toplevel
    sys.path.insert(0, ".")  # bench_utils/pose_utils.py, extracted from the mirror
    from bench_utils import pose_utils  # pylint: disable=import-outside-toplevel

    inputs = pathlib.Path(inputs)
    frames = np.load(inputs / "frames.npy")
    pose = init_model("configs/body_2d_keypoint/rtmpose/body8/"
                      "rtmpose-m_8xb256-420e_body8-256x192.py", str(inputs / "pose.pth"),
                      device="cpu")
    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, name, t, every_value=False):
        flat = np.asarray(t, np.float64).ravel()
        shape = "x".join(map(str, np.shape(t)))
        if not every_value:
            rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
            rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        picks = range(flat.size) if every_value else sorted(
            rng.choice(flat.size, 32, replace=False))
        for k in picks:
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    for offset, det_file in ((0, "det.pth"), (len(frames), "det_none.pth")):
        det = init_detector("demo/mmdetection_cfg/rtmdet_m_640-8xb32_coco-person.py",
                            str(inputs / det_file), device="cpu")
        det.cfg = adapt_mmdet_pipeline(det.cfg)
        rec = {"det_input": [], "det_head": [], "pose_input": [], "pose_head": []}
        hooks = [
            det.backbone.register_forward_hook(
                lambda m, a, o: rec["det_input"].append(a[0][0].clone())),
            det.bbox_head.register_forward_hook(lambda m, a, o: rec["det_head"].append(
                np.concatenate([t[0].ravel().numpy() for g in o for t in g]))),
            pose.backbone.register_forward_hook(
                lambda m, a, o: rec["pose_input"].append(a[0][0].clone())),
        ]
        head_forward = pose.head.forward  # head.predict calls self.forward: wrap it

        def recorded_forward(feats, head_forward=head_forward, rec=rec):
            out = head_forward(feats)
            rec["pose_head"].append([t[0].ravel().numpy() for t in out])
            return out
        pose.head.forward = recorded_forward
        points, scores, listed = [], [], []
        for i, img in enumerate(frames):
            found = inference_detector(det, img).pred_instances.cpu().numpy()
            boxes = np.concatenate((found.bboxes, found.scores[:, None]), axis=1)
            boxes = boxes[np.logical_and(found.labels == 0, found.scores > 0.3)]
            boxes = boxes[nms(boxes, 0.3), :4]
            result = merge_data_samples(inference_topdown(pose, img, boxes))
            instances = split_instances(result.get("pred_instances", None))
            listed.append(dict(frame_id=i + 1, instances=instances))
            first = instances[0]
            points.append(np.array(first["keypoints"]))
            scores.append(np.array(first["keypoint_scores"]))
            h, w = img.shape[:2]
            stats(offset + i, "top_box", boxes[0] if len(boxes) else [0, 0, w, h], True)
        for h in hooks:
            h.remove()
        pose.head.forward = head_forward
        for i in range(len(frames)):
            stats(offset + i, "det_input", rec["det_input"][i].numpy())
            stats(offset + i, "det_head", rec["det_head"][i])
            stats(offset + i, "pose_input", rec["pose_input"][2 * i].numpy())
            stats(offset + i, "pose_head", np.concatenate(
                rec["pose_head"][2 * i] + rec["pose_head"][2 * i + 1]))
            stats(offset + i, "keypoints", points[i], True)
            stats(offset + i, "scores", scores[i], True)
        _, length_score = pose_utils.analyze_lengths_over_time(listed)
        _, angle_score = pose_utils.analyze_joint_angles(listed)
        score = length_score * 0.5 + angle_score * 0.5  # object_integrity_score.py
        stats(offset, "ois", [score], True)
        print(det_file, "OIS", score)
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
