"""The official side of the ImageReward parity check; runs OUTSIDE the repository.

image-reward 1.5 cannot be locked (fairscale==0.4.13 has no wheel; it pins timm==0.6.13),
so this ran in a scratch virtualenv (2026-12-01) layered on /tmp/iqa (the locked torch
2.14.1 / torchvision 0.29.1, numpy 2.3.5, pillow, opencv, clip-anytorch):

    python3.11 -m venv /tmp/pmb-ir-venv
    echo /tmp/iqa/lib/python3.11/site-packages \\
        > /tmp/pmb-ir-venv/lib/python3.11/site-packages/base.pth
    /tmp/pmb-ir-venv/bin/pip install --no-deps image-reward==1.5 timm==0.6.13
    /tmp/pmb-ir-venv/bin/pip install transformers==4.44.2   # image-reward: >=4.27.4
    # fairscale shim (the only one): site-packages/fairscale/nn/checkpoint/
    # checkpoint_activations.py defining checkpoint_wrapper(module, ...) that raises
    # RuntimeError. vit.py imports it only to wrap blocks when
    # use_grad_checkpointing=True; ImageReward builds BLIP with vit_grad_ckpt=False.
    bazel run //tools/calibration:official_run_inputs -- --output_dir=/tmp/parity_in
    /tmp/pmb-ir-venv/bin/python tools/calibration/official_runs/imagereward.py \\
        /tmp/parity_in tools/calibration/imagereward_official.csv

Left out: accelerate, datasets and diffusers (image-reward's other requirements) are
imported only by ImageReward/ReFL.py (fine-tuning), which the package __init__ imports;
so the `ImageReward` package is registered without running its __init__ and
`ImageReward.ImageReward` (the model) is imported as is.

The model is `ImageReward(med_config)` as `ImageReward.load` builds it, then
`load_state_dict(ImageReward.pt, strict=False)` and eval(), with three changes for the
tiny random checkpoint (metrics/imagereward/tiny_checkpoint), all sizes only:
create_vit ("large": patch 16, 64-wide heads, qkv bias, drop_path 0.1 = identity in
eval) is called with the checkpoint's width, depth and MLP ratio; the MLP is the
official MLP class at the checkpoint's text width (ImageReward hard-codes 768), and
blip.vision_proj / text_proj (never used by score) are sized as in the file; and
BLIP's init_tokenizer reads the tiny vocab.txt instead of downloading
bert-base-uncased (BertTokenizer.from_pretrained on the folder, same special tokens).
Per frame (BGR -> RGB PIL): `model.preprocess(pil)` (recorded), the MLP input (a
forward pre-hook on model.mlp) and `model.score(prompt, pil)`; per prompt also
`model.inference_rank(prompt, [all frames])`'s rewards.
"""

import csv
import importlib.util
import json
import pathlib
import sys
import types

import cv2
import numpy as np
from PIL import Image
import torch


def _official_model(folder: pathlib.Path):
    spec = importlib.util.find_spec("ImageReward")
    package = types.ModuleType("ImageReward")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules["ImageReward"] = package
    # pylint: disable=import-outside-toplevel  (the bare package exists only from here)
    from ImageReward import ImageReward as image_reward
    from ImageReward.models.BLIP import blip
    from ImageReward.models.BLIP import blip_pretrain
    from ImageReward.models.BLIP.vit import VisionTransformer
    state = torch.load(folder / "image_reward" / "ImageReward.pt", map_location="cpu")
    width = state["blip.visual_encoder.cls_token"].shape[-1]
    depth = len({k.split(".")[3] for k in state if k.startswith("blip.visual_encoder.blocks.")})
    ratio = state["blip.visual_encoder.blocks.0.mlp.fc1.weight"].shape[0] / width

    def create_vit(vit, image_size, use_grad_checkpointing=False, ckpt_layer=0,
                   drop_path_rate=0):
        assert vit == "large", vit
        return VisionTransformer(img_size=image_size, patch_size=16, embed_dim=width,
                                 depth=depth, num_heads=width // 64, mlp_ratio=ratio,
                                 use_grad_checkpointing=use_grad_checkpointing,
                                 ckpt_layer=ckpt_layer, drop_path_rate=0.1), width

    vocab = str(folder / "bert_base_uncased")
    from_pretrained = blip.BertTokenizer.from_pretrained
    blip_pretrain.create_vit = create_vit
    blip.BertTokenizer.from_pretrained = lambda name, **kw: from_pretrained(vocab, **kw)
    model = image_reward.ImageReward(med_config=str(folder / "image_reward" / "med_config.json"),
                                     device="cpu")
    model.mlp = image_reward.MLP(model.blip.text_encoder.config.hidden_size)
    for name in ("vision_proj", "text_proj"):  # unused by score(); sized as in the file
        setattr(model.blip, name, torch.nn.Linear(*state[f"blip.{name}.weight"].shape[::-1]))
    missing, unexpected = model.load_state_dict(state, strict=False)
    print(f"load_state_dict(strict=False): missing {missing}, unexpected {unexpected}")
    if missing:
        raise SystemExit("the tiny checkpoint leaves official weights random")
    return model.eval()


def main(inputs, out_path):
    inputs = pathlib.Path(inputs)
    model = _official_model(inputs / "imagereward")
    prompts = json.loads((inputs / "imagereward_prompts.json").read_text())
    frames = [Image.fromarray(cv2.cvtColor(f, cv2.COLOR_BGR2RGB))
              for f in np.load(inputs / "frames.npy", allow_pickle=True)]
    rng = np.random.default_rng(1234)
    rows, captured = [], []
    model.mlp.register_forward_pre_hook(lambda module, args: captured.append(args[0]))

    def stats(i, name, t):
        flat = t.astype(np.float64).ravel()
        shape = "x".join(map(str, t.shape))
        rows.append((i, name, shape, "sum", repr(float(flat.sum()))))
        rows.append((i, name, shape, "sumsq", repr(float((flat ** 2).sum()))))
        for k in sorted(rng.choice(flat.size, min(32, flat.size), replace=False)):
            rows.append((i, name, shape, f"at:{k}", repr(float(flat[k]))))

    with torch.no_grad():
        for i, pil in enumerate(frames):
            stats(i, "pixel_values", model.preprocess(pil).numpy())
        for j, prompt in enumerate(prompts):
            for i, pil in enumerate(frames):
                captured.clear()
                score = model.score(prompt, pil)
                stats(i, f"mlp_input_p{j}", captured[0][0].numpy())
                rows.append((i, f"score_p{j}", "", "value", repr(float(score))))
            _, rewards = model.inference_rank(prompt, frames)
            for i, value in enumerate(rewards):
                rows.append((i, f"rank_reward_p{j}", "", "value", repr(float(value))))
    with open(out_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(("frame", "tensor", "shape", "stat", "value"))
        writer.writerows(rows)
    print(f"{len(rows)} rows, torch {torch.__version__}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
