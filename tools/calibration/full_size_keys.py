"""Key mapping at full size: the official architectures' tensor names and shapes against
what worldeval's loaders expect, on the meta device (no memory, no weights).

full_size_keys.json holds the official state-dict names and shapes of the architectures
the lock cannot build (official_runs/full_size_keys.py wrote them from the official code:
image-reward 1.5, sam3 0.1.4, the DINOv2 hub code, OpenAI CLIP's RN50). The official
side of CLIP ViT-L/14 is open_clip's ViT-L-14 (locked, test-only), built here. Each
`*_problems` function returns what would make a real checkpoint fail to load (empty when
nothing would); the published configs our side is built with are written out below.
"""

import json
import re
from typing import Dict, List, Tuple

import torch

from benchmarks.common import paths

KEYS_FILE = "tools/calibration/full_size_keys.json"
Shapes = Dict[str, Tuple[int, ...]]

# The configs of the real snapshots (their config.json): facebook/dinov2-base and the
# vision tower of openai/clip-vit-large-patch14.
DINOV2_BASE = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                   patch_size=14, image_size=518, mlp_ratio=4, layerscale_value=1.0)
CLIP_L14_VISION = dict(hidden_size=1024, intermediate_size=4096, num_hidden_layers=24,
                       num_attention_heads=16, patch_size=14, image_size=224,
                       projection_dim=768)


def official(name: str) -> dict:
    """The stored official names -> shapes (or the stored config) of one architecture."""
    with open(paths.runfile(KEYS_FILE), encoding="utf-8") as f:
        value = json.load(f)[name]
    return value if name.endswith("_config") else {k: tuple(v) for k, v in value.items()}


def meta_state(shapes: Shapes) -> Dict[str, torch.Tensor]:
    return {k: torch.empty(shape, device="meta") for k, shape in shapes.items()}


def shapes_of(state) -> Shapes:
    return {k: tuple(v.shape) for k, v in state.items()}


def differences(ours: Shapes, theirs: Shapes) -> List[str]:
    """Names only one side has, and names whose shapes differ."""
    out = [f"only ours: {k}" for k in sorted(set(ours) - set(theirs))]
    out += [f"only official: {k}" for k in sorted(set(theirs) - set(ours))]
    out += [f"{k}: ours {ours[k]}, official {theirs[k]}" for k in sorted(set(ours) & set(theirs))
            if ours[k] != theirs[k]]
    return out


def image_reward_problems() -> List[str]:
    """ImageReward.pt's names through reward_model's mapping into ImageRewardModel."""
    from metrics.imagereward import reward_model  # pylint: disable=import-outside-toplevel
    state = meta_state(official("imagereward"))
    ids = "blip.text_encoder.embeddings.position_ids"  # checked to be 0, 1, 2, ...: real values
    state[ids] = torch.arange(state[ids].shape[-1]).expand(state[ids].shape).clone()
    vision = reward_model.vision_config(state)
    text = reward_model.text_config(official("imagereward_med_config"), vision.hidden_size)
    with torch.device("meta"):
        model = reward_model.ImageRewardModel(vision, text)
    mapped, ignored = reward_model.map_state_dict(state)
    problems = differences(shapes_of(mapped), shapes_of(model.state_dict()))
    unused = {k for k in ignored if not re.match(r"blip\.(vision|text)_proj\.", k)}
    problems += [f"ignored: {k}" for k in sorted(unused - {ids})]
    if (vision.num_hidden_layers, vision.hidden_size, vision.num_attention_heads) != (24, 1024, 16):
        problems.append(f"ViT read off the weights as {vision}")
    return problems


def rn50_problems() -> List[str]:
    """OpenAI's RN50 names and shapes against openai_clip's model built from them."""
    from metrics.clip import openai_clip  # pylint: disable=import-outside-toplevel
    theirs = official("rn50")
    with torch.device("meta"):
        model = openai_clip.build_from_state_dict(meta_state(theirs))
    return differences(shapes_of(model.state_dict()), theirs)


def dinov2_problems() -> List[str]:
    """transformers' Dinov2Model (dinov2-base) in the hub layout vs the hub's vitb14."""
    from transformers import Dinov2Config, Dinov2Model  # pylint: disable=import-outside-toplevel
    from tools.calibration import dinov2_parity  # pylint: disable=import-outside-toplevel
    with torch.device("meta"):
        model = Dinov2Model(Dinov2Config(**DINOV2_BASE))
    hub = dinov2_parity.to_hub_layout(model.state_dict(), DINOV2_BASE["num_hidden_layers"])
    return differences(shapes_of(hub), official("dinov2"))


def sam3_problems() -> List[str]:
    """transformers' Sam3Model (Sam3Config() = facebook/sam3's) in the sam3.pt layout vs
    the official image model's names (those sam3_layout says have no counterpart aside)."""
    from transformers import Sam3Config, Sam3Model  # pylint: disable=import-outside-toplevel
    from tools.calibration import sam3_layout  # pylint: disable=import-outside-toplevel
    with torch.device("meta"):
        model = Sam3Model(Sam3Config())
    ours = {k[len(sam3_layout.CHECKPOINT_PREFIX):]: v for k, v in
            sam3_layout.to_official_layout(model.state_dict()).items()}
    theirs = {k: v for k, v in official("sam3").items()
              if not any(re.fullmatch(p, k) for p in sam3_layout.NOT_IN_SNAPSHOT)}
    return differences(shapes_of(ours), theirs)


def clip_l14_problems() -> List[str]:
    """open_clip's ViT-L-14 visual tower, renamed as the HF conversion names it, vs the
    tensors metrics/clip/vision loads strictly (CLIPVisionModelWithProjection)."""
    import open_clip  # pylint: disable=import-outside-toplevel
    from transformers import (  # pylint: disable=import-outside-toplevel
        CLIPVisionConfig, CLIPVisionModelWithProjection)
    from tools.calibration import open_clip_models  # pylint: disable=import-outside-toplevel
    with torch.device("meta"):
        theirs = open_clip.create_model("ViT-L-14", pretrained=None, device="meta").state_dict()
        ours = CLIPVisionModelWithProjection(CLIPVisionConfig(**CLIP_L14_VISION)).state_dict()
    converted = open_clip_models.to_hf_vision(theirs, CLIP_L14_VISION["num_hidden_layers"])
    ours = {k: v for k, v in ours.items() if not k.endswith("embeddings.position_ids")}
    return differences(shapes_of(ours), shapes_of(converted))
