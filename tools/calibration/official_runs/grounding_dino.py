"""The official side of the GroundingDINO parity check; runs OUTSIDE the repository.

The official code is the GroundingDINO that VMBench vendors and runs
(Grounded-Segment-Anything/GroundingDINO in AMAP-ML/VMBench at c278a73, patched there
to take a local BERT path); no GroundingDINO package can be locked (groundingdino-py
is an sdist with a C++/CUDA op). How grounding_dino_official.csv and
metrics/detection/testdata/groundingdino_swinb_keys.json were produced (2026-12-01):

    # the vendored tree, from the bare mirror of AMAP-ML/VMBench
    G="git --git-dir=<mirror>/AMAP-ML+VMBench/repo"
    for f in $($G ls-tree -r --name-only HEAD Grounded-Segment-Anything/GroundingDINO); do
        mkdir -p /tmp/gdsam_src/$(dirname $f); $G show HEAD:$f > /tmp/gdsam_src/$f; done
    # a virtualenv on top of /tmp/iqa (torch 2.14.1, torchvision 0.29.1, numpy 2.3.5,
    # pillow, opencv) with the versions VMBench's environment pins (Q-Align: transformers
    # 4.36.1, tokenizers 0.15.0, timm 0.6.13) and slconfig's needs:
    python3.11 -m venv /tmp/gdsam-venv
    echo /tmp/iqa/lib/python3.11/site-packages > /tmp/gdsam-venv/lib/python3.11/site-packages/base.pth
    /tmp/gdsam-venv/bin/pip install --no-deps transformers==4.36.1 tokenizers==0.15.0 \\
        timm==0.6.13 huggingface_hub==0.20.3 safetensors==0.4.1 addict yapf platformdirs
    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in
    S=/tmp/gdsam_src/Grounded-Segment-Anything/GroundingDINO
    /tmp/gdsam-venv/bin/python tools/calibration/official_runs/grounding_dino.py parity $S \\
        /tmp/parity_in tools/calibration/grounding_dino_official.csv
    /tmp/gdsam-venv/bin/python tools/calibration/official_runs/grounding_dino.py keys $S \\
        /tmp/parity_in metrics/detection/testdata/groundingdino_swinb_keys.json
    # Swin-T OGC (2026-12-01): the same code as WorldScore vendors it
    # (worldscore/benchmark/metrics/third_party/groundingdino of haoyi-duan/WorldScore
    # @344983c, extracted file by file to /tmp/wsobj_gd/.../third_party; its model files
    # (groundingdino.py, transformer.py, bertwarper.py, fuse_modules.py, ms_deform_attn.py,
    # backbone/*.py, util/utils.py, datasets/transforms.py) differ from VMBench's copy in
    # whitespace only), with its own config:
    /tmp/gdsam-venv/bin/python tools/calibration/official_runs/grounding_dino.py keys \\
        /tmp/wsobj_gd/worldscore/benchmark/metrics/third_party /tmp/parity_in \\
        metrics/detection/testdata/groundingdino_swint_ogc_keys.json GroundingDINO_SwinT_OGC.py

Only the official code runs here: `build_model(SLConfig.fromfile(GroundingDINO_SwinB.py))`
with the numbers of grounding_dino_arch.json (what metrics/detection/tiny_grounding_dino
shrinks: hidden_dim, dim_feedforward, nheads, enc/dec layers, num_queries, and the Swin
width/depths/heads, given to the official `SwinTransformer` class in place of the
swin_B_384_22k entry of `build_swin_transformer`), the BERT from the tiny folder,
`load_state_dict(clean_state_dict(torch.load(f)["model"]), strict=False)` (printed), the
transform of perceptible_amplitude_score.load_video on cv2 BGR->RGB frames, and
get_grounding_output's steps (written out: that script imports CoTracker and SAM at
module level). Its `visualizer` module (matplotlib, pycocotools; unused) is stubbed.
Deformable attention is the official pure-PyTorch path (CPU; no `_C` op). `keys` lists
the official full-size Swin-B model's state dict (names and shapes; BERT: the
bert-base-uncased architecture, `BertConfig()`, with random weights).
"""

import csv
import json
import pathlib
import sys
import types

import cv2
import numpy as np
from PIL import Image
import torch


def _import_official(src):
    sys.path.insert(0, str(src))
    stub = types.ModuleType("groundingdino.util.visualizer")
    stub.COCOVisualizer = object
    sys.modules["groundingdino.util.visualizer"] = stub
    # pylint: disable=import-outside-toplevel  (the tree is on sys.path only from here)
    import groundingdino.datasets.transforms as T
    from groundingdino.models import build_model
    from groundingdino.models.GroundingDINO.backbone import backbone as backbone_module
    from groundingdino.models.GroundingDINO.backbone.swin_transformer import SwinTransformer
    from groundingdino.util import get_tokenlizer
    from groundingdino.util.slconfig import SLConfig
    from groundingdino.util.utils import clean_state_dict, get_phrases_from_posmap
    return types.SimpleNamespace(**locals())


def _build(official, src, bert_dir, arch=None, config="GroundingDINO_SwinB.py"):
    args = official.SLConfig.fromfile(str(pathlib.Path(src) / "groundingdino/config" / config))
    args.device = "cpu"
    args.bert_base_uncased_path = str(bert_dir)
    if arch is not None:
        for key in ("hidden_dim", "dim_feedforward", "nheads", "enc_layers", "dec_layers",
                    "num_queries"):
            setattr(args, key, arch[key])
        swin = dict(embed_dim=arch["swin_embed_dim"], depths=arch["swin_depths"],
                    num_heads=arch["swin_num_heads"], window_size=arch["swin_window_size"])
        official.backbone_module.build_swin_transformer = (
            lambda name, pretrain_img_size, **kw: official.SwinTransformer(
                pretrain_img_size=pretrain_img_size, **swin, **kw))
    return official.build_model(args)


def keys(src, inputs, out_path, config="GroundingDINO_SwinB.py"):
    official = _import_official(src)
    from transformers import BertConfig, BertModel  # pylint: disable=import-outside-toplevel
    official.get_tokenlizer.get_pretrained_language_model = lambda *a: BertModel(BertConfig())
    model = _build(official, src, pathlib.Path(inputs) / "bert-base-uncased", config=config)
    shapes = {k: list(v.shape) for k, v in model.state_dict().items()}
    text = "{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in shapes.items())
    pathlib.Path(out_path).write_text(text + "\n}\n", encoding="utf-8")
    print(f"{len(shapes)} tensors, {sum(int(np.prod(s)) for s in shapes.values())} values")


def parity(src, inputs, out_path):
    official = _import_official(src)
    inputs = pathlib.Path(inputs)
    spec = json.loads((inputs / "grounding_dino_arch.json").read_text(encoding="utf-8"))
    model = _build(official, src, inputs / "bert-base-uncased", spec["arch"])
    checkpoint = torch.load(inputs / spec["checkpoint"], map_location="cpu")
    print(model.load_state_dict(official.clean_state_dict(checkpoint["model"]), strict=False))
    model.eval()
    transform = official.T.Compose([
        official.T.RandomResize([800], max_size=1333), official.T.ToTensor(),
        official.T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    frames = np.load(inputs / "frames.npy", allow_pickle=True)
    rng = np.random.default_rng(1234)
    rows = []

    def stats(i, name, t):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, min(32, flat.size), replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    def every(i, name, t):
        for k, v in enumerate(t.astype(np.float64).ravel()):
            rows.append((i, name, "x".join(map(str, t.shape)), f"at:{k}", repr(float(v))))

    box_threshold, text_threshold = spec["box_threshold"], spec["text_threshold"]
    with torch.no_grad():
        for i in spec["frames"]:
            frame = frames[i]
            image, _ = transform(Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)), None)
            stats(i, "pixel_values", image.numpy())
            for c, caption in enumerate(spec["captions"]):
                caption = caption.lower().strip()
                if not caption.endswith("."):
                    caption = caption + "."
                outputs = model(image[None], captions=[caption])
                logits = outputs["pred_logits"].sigmoid()[0]
                boxes = outputs["pred_boxes"][0]
                tokenized = model.tokenizer(caption)
                n = len(tokenized["input_ids"])
                stats(i, f"c{c}:pred_logits", outputs["pred_logits"][0, :, :n].numpy())
                stats(i, f"c{c}:pred_boxes", boxes.numpy())
                keep = logits.max(dim=1)[0] > box_threshold
                rows.append((i, f"c{c}:kept_count", "", "value", repr(float(keep.sum()))))
                every(i, f"c{c}:kept_boxes", boxes[keep].numpy())
                every(i, f"c{c}:kept_scores", logits[keep].max(dim=1)[0].numpy())
                every(i, f"c{c}:kept_tokens", (logits[keep][:, :n] > text_threshold).numpy())
                phrases = [official.get_phrases_from_posmap(p > text_threshold, tokenized,
                                                            model.tokenizer)
                           for p in logits[keep]]
                margin = (logits.max(dim=1)[0] - box_threshold).abs().min().item()
                print(f"frame {i} caption {caption!r}: kept {int(keep.sum())}, box margin "
                      f"{margin:.2e}, phrases {sorted(set(phrases))}")
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    {"keys": keys, "parity": parity}[sys.argv[1]](*sys.argv[2:6])
