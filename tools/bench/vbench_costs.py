"""Forward FLOPs of VBench's ten computed dimensions per video, per prompt set of the
official suite, and for the whole standard suite (946 prompts x 5 videos); a benchmark
script, never run in CI.

    ./bazelw run //tools/bench:vbench_costs -- --output=$PWD/tools/bench/vbench_costs.json

Each network is built at its full official size with random weights (model_cost_cases'
Case/Call types, counted by model_costs.measure: the `meta` device where the forward
allows, else the CPU; matrix products, convolutions and attention only) for the calls one
video makes in OUR runner (float32 everywhere), at two typical video shapes:

* subject_consistency: DINO ViT-B/16 once per frame, dino_transform(224) (shorter side to
  224, no crop: 224x358 for 16:10, 224x336 for 3:2).
* background_consistency: CLIP ViT-B/32 image tower once per frame (224x224).
* appearance_style: the same image calls plus ONE text call (ours encodes the style once;
  the official CLIP.forward re-encodes it with every frame: `official_text_calls`).
* aesthetic_quality: CLIP ViT-L/14 image tower once per frame (the linear head is 1.5 kFLOP).
* imaging_quality: MUSIQ-SPAQ once per frame at the 'longer' size (longer side <= 512).
* motion_smoothness: AMT-S on consecutive pairs of frames[::2], padded to a multiple of 16.
* dynamic_degree: RAFT (large), 20 updates, on consecutive pairs of every
  max(1, round(fps / 8))-th frame, padded to a multiple of 8.
* temporal_style / overall_consistency: ViCLIP-L/14 on 8 frames + one 32-token caption.
* temporal_flickering: no network.

In vbench_standard a video is scored only on the dimensions its prompt lists, so the suite's
cost is 5 x sum over its prompt sets (the distinct dimension lists, counted in the pinned
VBench_full_info.json) of count x cost; prompts listing none of the ten (GRiT, Tag2Text,
UMT dimensions) cost nothing here.
"""

import json
import sys

from absl import app
from absl import flags
import torch

from benchmarks.vbench.suite import prompt_suite
from tools.bench import model_costs
from tools.bench.model_cost_cases import Call, Case, zeros

TEN = ("subject_consistency", "background_consistency", "temporal_flickering",
       "motion_smoothness", "dynamic_degree", "aesthetic_quality", "imaging_quality",
       "appearance_style", "temporal_style", "overall_consistency")
SHAPES = {  # name: (frames, height, width, fps)
    "16x320x512@8": (16, 320, 512, 8.0),   # the side-by-side's videos (LaVie-like)
    "49x480x720@8": (49, 480, 720, 8.0),   # CogVideoX-like, as VMBench's projection
}
VIDEOS_PER_PROMPT = 5



def _pad(x: int, multiple: int) -> int:
    return -(-x // multiple) * multiple


def call_counts(frames: int, height: int, width: int, fps: float) -> dict:
    """{model: (count per video, input shape)} of one video of this shape."""
    scale = 512 / max(height, width)
    h_iqa, w_iqa = ((int(height * scale), int(width * scale)) if scale < 1
                    else (height, width))
    short = min(height, width)
    h_dino, w_dino = ((224, int(224 * width / height)) if height == short
                      else (int(224 * height / width), 224))
    interval = max(1, round(fps / 8))
    return {
        "dino": (frames, (h_dino, w_dino)),
        "clip_b32_image": (frames, (224, 224)),
        "clip_b32_text": (1, (77,)),
        "clip_l14_image": (frames, (224, 224)),
        "musiq": (frames, (h_iqa, w_iqa)),
        "amt": (len(range(0, frames, 2)) - 1, (_pad(height, 16), _pad(width, 16))),
        "raft": (len(range(0, frames, interval)) - 1, (_pad(height, 8), _pad(width, 8))),
        "viclip_video": (1, (8, 224, 224)),
        "viclip_text": (1, (32,)),
    }


DIMENSION_CALLS = {
    "subject_consistency": ("dino",), "background_consistency": ("clip_b32_image",),
    "appearance_style": ("clip_b32_image", "clip_b32_text"),
    "aesthetic_quality": ("clip_l14_image",), "imaging_quality": ("musiq",),
    "motion_smoothness": ("amt",), "dynamic_degree": ("raft",),
    "temporal_style": ("viclip_video", "viclip_text"),
    "overall_consistency": ("viclip_video", "viclip_text"), "temporal_flickering": (),
}


def _clip(vision: bool, width: int, layers: int, patch: int, embed: int):
    from transformers import (  # pylint: disable=import-outside-toplevel
        CLIPTextConfig, CLIPTextModelWithProjection, CLIPVisionConfig,
        CLIPVisionModelWithProjection)
    if vision:
        return CLIPVisionModelWithProjection(CLIPVisionConfig(
            hidden_size=width, intermediate_size=4 * width, num_hidden_layers=layers,
            num_attention_heads=width // 64, patch_size=patch, image_size=224,
            projection_dim=embed, hidden_act="quick_gelu")).eval()
    return CLIPTextModelWithProjection(CLIPTextConfig(
        hidden_size=width, intermediate_size=4 * width, num_hidden_layers=layers,
        num_attention_heads=width // 64, projection_dim=embed, hidden_act="quick_gelu",
        vocab_size=49408, max_position_embeddings=77)).eval()


def _builders():
    # pylint: disable=import-outside-toplevel
    from metrics.dino import vit
    from metrics.frame_interpolation import amt
    from metrics.iqa import musiq
    from metrics.viclip import model as viclip_model
    from torchvision.models.optical_flow import raft_large
    return {
        "dino": lambda: vit.build_vit(vit.VIT_B16).eval(),
        "clip_b32_image": lambda: _clip(True, 768, 12, 32, 512),
        "clip_b32_text": lambda: _clip(False, 512, 12, 32, 512),
        "clip_l14_image": lambda: _clip(True, 1024, 24, 14, 768),
        "musiq": lambda: musiq.Musiq(musiq.SPAQ).eval(),
        "amt": lambda: amt.AmtS().eval(),
        "raft": lambda: raft_large(weights=None, progress=False).eval(),
        "viclip_video": lambda: viclip_model.ViClip(viclip_model.VICLIP_L14).eval(),
        "viclip_text": lambda: viclip_model.ViClip(viclip_model.VICLIP_L14).eval(),
    }


def _run(model_name: str, shape: tuple):
    """One forward of `model_name` on an input of `shape` (call_counts' second item)."""
    def run(model, device):
        # pylint: disable=import-outside-toplevel
        if model_name == "dino":
            from metrics.dino import vit
            vit.class_token(model, zeros(device, 1, 3, *shape))
        elif model_name.endswith("_image"):
            model(pixel_values=zeros(device, 1, 3, *shape))
        elif model_name == "clip_b32_text":
            model(input_ids=torch.zeros((1, 77), dtype=torch.long, device=device))
        elif model_name == "musiq":
            model(zeros(device, 1, 3, *shape))
        elif model_name == "amt":
            model(zeros(device, 1, 3, *shape), zeros(device, 1, 3, *shape),
                  zeros(device, 1, 1, 1, 1) + 0.5)
        elif model_name == "raft":
            model(zeros(device, 1, 3, *shape), zeros(device, 1, 3, *shape),
                  num_flow_updates=20)
        elif model_name == "viclip_video":
            model.encode_vision(zeros(device, 1, *shape[:1], 3, *shape[1:]))
        else:
            model.encode_text(torch.zeros((1, 32), dtype=torch.long, device=device))
    return run


def cases():
    """One Case per network, one Call per video shape (count = calls per video)."""
    builders = _builders()
    out = []
    for name, build in builders.items():
        calls = tuple(
            Call(shape_name, call_counts(*shape)[name][0],
                 _run(name, call_counts(*shape)[name][1]))
            for shape_name, shape in SHAPES.items())
        out.append(Case(name, "vbench", "", "fp32 (ours)", build, calls,
                        "; ".join(f"{s}: {call_counts(*v)[name]}" for s, v in SHAPES.items()),
                        devices=("meta", "cpu")))
    return out


def prompt_sets() -> dict:
    """{'+'.join(sorted dims) : prompts} over the official suite (the ten dimensions only)."""
    sets = {}
    for entry in prompt_suite.load().entries:
        dims = sorted(set(entry.dimension) & set(TEN))
        key = "+".join(dims) if dims else "(none of the ten)"
        sets[key] = sets.get(key, 0) + 1
    return sets


def summarise(rows) -> dict:
    """Per shape: GFLOPs per call, per dimension, per prompt-set video, and the suite."""
    per_call = {r["model"]: {c["label"]: c["gflops_per_call"] for c in r.get("calls", [])}
                for r in rows}
    sets = prompt_sets()
    out = {"prompt_sets": sets, "shapes": {}}
    for shape_name, shape in SHAPES.items():
        counts = call_counts(*shape)
        model = {m: counts[m][0] * per_call[m][shape_name] for m in counts}
        dims = {d: sum(model[m] for m in ms) for d, ms in DIMENSION_CALLS.items()}
        by_set = {k: sum(dims[d] for d in k.split("+") if d in dims) for k in sets}
        total = VIDEOS_PER_PROMPT * sum(sets[k] * by_set[k] for k in sets)
        official_extra = (shape[0] - 1) * per_call["clip_b32_text"][shape_name]
        out["shapes"][shape_name] = {
            "gflops_per_call": {m: per_call[m][shape_name] for m in counts},
            "calls_per_video": {m: counts[m][0] for m in counts},
            "gflops_per_video_by_dimension": dims, "gflops_per_video_by_prompt_set": by_set,
            "suite_tflops": total / 1e3,
            "official_text_calls_extra_gflops_per_appearance_video": official_extra}
    return out


def main(argv):
    del argv
    rows = []
    for case in cases():
        rows.append(model_costs.measure(case))
        print(f"counted {case.name} on {rows[-1].get('counted_on')}", file=sys.stderr,
              flush=True)
    summary = summarise(rows)
    for shape_name, s in summary["shapes"].items():
        print(f"{shape_name}: suite {s['suite_tflops']:.0f} TFLOPs")
        for k, v in s["gflops_per_video_by_prompt_set"].items():
            print(f"  {summary['prompt_sets'][k]:4d} prompts  {v:9.1f} GFLOPs/video  {k}")
    if flags.FLAGS.output:  # model_costs' --output flag
        with open(flags.FLAGS.output, "w", encoding="utf-8") as f:
            json.dump({"torch": torch.__version__, "flop_counter": "FlopCounterMode",
                       "shapes": SHAPES, "rows": rows, **summary}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    app.run(main)
