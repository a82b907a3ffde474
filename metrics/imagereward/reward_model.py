"""ImageReward-v1.0 (THUDM/ImageReward) rebuilt on transformers' BLIP modules.

Official: `ImageReward.load("ImageReward-v1.0")` (pip image-reward,
ImageReward/utils.py) downloads `ImageReward.pt` and `med_config.json` from the hub
repository THUDM/ImageReward, builds `ImageReward(med_config)` and loads the file with
`load_state_dict(state_dict, strict=False)`. The model (ImageReward/ImageReward.py,
models/BLIP/{blip_pretrain,blip,vit,med}.py) is:

* `blip.visual_encoder`: BLIP's timm-style ViT, create_vit("large", 224): patch 16,
  width 1024, depth 24, 16 heads, MLP ratio 4, qkv bias, exact nn.GELU, pre-norm
  blocks, LayerNorm(eps=1e-6), final norm; it returns every token (197 x 1024).
* `blip.text_encoder`: med.py's BertModel(add_pooling_layer=False) with the
  med_config (BERT-base, vocab 30524, add_cross_attention) and `encoder_width`
  overwritten with the ViT width (1024). Embeddings are word + absolute position +
  LayerNorm (no token types); each layer is self-attention, cross-attention to the
  image tokens ("multimodal" mode), then the feed-forward block.
* `mlp`: Linear(768,1024)-Dropout-Linear(1024,128)-Dropout-Linear(128,64)-Dropout-
  Linear(64,16)-Linear(16,1) on the text encoder's first token, then
  `(reward - 0.16717362830052426) / 1.0333394966054072`.
* The tokenizer: BertTokenizer("bert-base-uncased") plus BLIP's special tokens
  (bos "[DEC]", additional "[ENC]"), called with padding="max_length",
  truncation=True, max_length=35. ImageReward does NOT put the [ENC] token in
  place of [CLS] (BLIP's ITM head does; ImageReward.score/inference_rank do not).

Here: BlipVisionModel is BLIP's ViT (class token, position table, pre-norm blocks
with one fused qkv Linear split as timm does, post LayerNorm over all tokens) and
BlipTextModel with `is_decoder=True` in its config (which is what builds its
cross-attention layers) called with `is_decoder=False` (bidirectional self-attention,
as med.py's encoder mode) is med.py's BertModel. Differences, none of which moves a
number beyond float rounding:
* LayerNorm eps: BlipVisionConfig defaults to 1e-5; set to BLIP's 1e-6 here. The
  text eps comes from med_config (1e-12).
* GELU: both sides exact (erf) GELU: nn.GELU in vit.py, ACT2FN["gelu"] in med.py
  and in transformers.
* Padding mask: med.py adds -10000 for padded keys, transformers the dtype's minimum;
  both give exactly zero attention in float32. The image-token mask is all ones in
  ImageReward, which adds 0; it is not passed here.
* The tokenizer is transformers' Python BertTokenizerLegacy (transformers 4.x's
  BertTokenizer, which BLIP names), built from bert-base-uncased's vocab.txt with
  do_lower_case=True (that repository's tokenizer_config) and the two added tokens.

Loading is stricter than the official strict=False: every weight the model needs
must be in the file (a missing one would silently stay random upstream); keys under
the three model prefixes that map to nothing are an error; anything else
(blip.vision_proj, blip.text_proj, ...) is ignored, as upstream ignores it.
"""

import dataclasses
import json
import pathlib
import re
from typing import Dict, Tuple

import torch
from torch import nn
from transformers import BlipTextConfig, BlipTextModel, BlipVisionConfig, BlipVisionModel
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

from metrics.checkpoints import resolver
from metrics.checkpoints import state_dict
from metrics.clip import aesthetic

# THUDM/ImageReward at commit 9fabc27 ("Update README.md", 12 commits;
# https://huggingface.co/THUDM/ImageReward/tree/9fabc279a94f082f9eb130070cac021569dd16dc),
# whose ImageReward.pt (7a9e21f) and med_config.json (c63dec8) are those of every later
# tree. ImageReward.pt: the LFS sha256 the hub publishes
# (https://huggingface.co/THUDM/ImageReward/blob/main/ImageReward.pt). med_config.json (485
# bytes, a regular git file: the hub publishes no sha256) as a user of both files recorded
# it (TriggerCraft's README, whose ImageReward.pt digest is the hub's).
IMAGE_REWARD_REVISION = "9fabc279a94f082f9eb130070cac021569dd16dc"
IMAGE_REWARD = resolver.CheckpointSpec(
    name="image_reward", filename="ImageReward.pt", hf_repo="THUDM/ImageReward",
    hf_revision=IMAGE_REWARD_REVISION,
    sha256="d71dc8d4912bc633c06ab8ef1ef6a81e8199d4369f14b47b29baf1d19de561f6",
    license="Apache-2.0")
MED_CONFIG = resolver.CheckpointSpec(
    name="image_reward", filename="med_config.json", hf_repo="THUDM/ImageReward",
    hf_revision=IMAGE_REWARD_REVISION,
    sha256="d8b5029cc3c0124313d17009d043f0701bbe497f3721fa4ceb818720fe665326",
    size_bytes=485, license="Apache-2.0")
# BLIP's init_tokenizer: BertTokenizer.from_pretrained("bert-base-uncased") (the hub
# now serves that id from google-bert/bert-base-uncased); vocab.txt is all it reads. The
# same revision and vocab.txt digest as GroundingDINO's BERT_BASE_UNCASED
# (metrics/detection/pins.py): 231,508 bytes, recorded by many independent users of it.
BERT_VOCAB = resolver.CheckpointSpec(
    name="bert_base_uncased", filename="vocab.txt", hf_repo="google-bert/bert-base-uncased",
    hf_revision="86b5e0934494bd15c9632b12f734a8a67f723594",
    sha256="07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    size_bytes=231_508, license="Apache-2.0")

REWARD_MEAN = 0.16717362830052426  # ImageReward.__init__: self.mean
REWARD_STD = 1.0333394966054072    # self.std
MAX_TEXT_LENGTH = 35               # tokenizer(..., max_length=35)
VIT_LAYER_NORM_EPS = 1e-6          # vit.py: partial(nn.LayerNorm, eps=1e-6)
VIT_HEAD_DIM = 64                  # create_vit: 1024 wide / 16 heads (768 / 12 for "base")
BLIP_SPECIAL_TOKENS = {"bos_token": "[DEC]", "additional_special_tokens": ["[ENC]"]}

_VISION = "blip.visual_encoder."
_TEXT = "blip.text_encoder."
_MLP = "mlp.layers."
_POSITION_IDS = _TEXT + "embeddings.position_ids"  # med.py's persistent arange buffer
_RENAMES = (  # (official key pattern, transformers key) for the vision tower
    (r"cls_token", "embeddings.class_embedding"),
    (r"pos_embed", "embeddings.position_embedding"),
    (r"patch_embed\.proj\.(weight|bias)", r"embeddings.patch_embedding.\1"),
    (r"blocks\.(\d+)\.norm1\.(weight|bias)", r"encoder.layers.\1.layer_norm1.\2"),
    (r"blocks\.(\d+)\.attn\.qkv\.(weight|bias)", r"encoder.layers.\1.self_attn.qkv.\2"),
    (r"blocks\.(\d+)\.attn\.proj\.(weight|bias)", r"encoder.layers.\1.self_attn.projection.\2"),
    (r"blocks\.(\d+)\.norm2\.(weight|bias)", r"encoder.layers.\1.layer_norm2.\2"),
    (r"blocks\.(\d+)\.mlp\.(fc1|fc2)\.(weight|bias)", r"encoder.layers.\1.mlp.\2.\3"),
    (r"norm\.(weight|bias)", r"post_layernorm.\1"),
)


class ImageRewardModel(nn.Module):
    """ImageReward's three parts; forward gives the normalised reward per image."""

    def __init__(self, vision_config: BlipVisionConfig, text_config: BlipTextConfig):
        super().__init__()
        self.visual_encoder = BlipVisionModel(vision_config)
        self.text_encoder = BlipTextModel(text_config, add_pooling_layer=False)
        self.mlp = aesthetic.build_head(text_config.hidden_size)  # the same MLP shape

    def forward(self, pixel_values: torch.Tensor, input_ids: torch.Tensor,
                attention_mask: torch.Tensor) -> torch.Tensor:
        """(B,) rewards for B images and one tokenized prompt per image."""
        return self.rewards(self.image_embeds(pixel_values), input_ids, attention_mask)

    def image_embeds(self, pixel_values: torch.Tensor) -> torch.Tensor:
        """(B, tokens, width): the ViT's every token, what the text encoder attends to;
        each image's alone (so images of several prompts may share this call)."""
        return self.visual_encoder(pixel_values=pixel_values).last_hidden_state

    def rewards(self, image_embeds: torch.Tensor, input_ids: torch.Tensor,
                attention_mask: torch.Tensor) -> torch.Tensor:
        """(B,) rewards from the images' embeds and one tokenized prompt per image."""
        text = self.text_encoder(input_ids=input_ids, attention_mask=attention_mask,
                                 encoder_hidden_states=image_embeds, is_decoder=False)
        features = text.last_hidden_state[:, 0, :].float()
        rewards = (self.mlp(features) - REWARD_MEAN) / REWARD_STD
        return rewards[:, 0]


@dataclasses.dataclass
class ImageReward:
    """A loaded ImageReward: model (eval, float32), tokenizer, device, input size."""

    model: ImageRewardModel
    tokenizer: BertTokenizerLegacy
    device: torch.device
    image_size: int


def official_key_to_module_key(key: str):
    """The ImageRewardModel key for an ImageReward.pt key; None when it is not ours.

    Raises:
        ValueError: A key under blip.visual_encoder. that maps to nothing.
    """
    if key.startswith(_VISION):
        rest = key[len(_VISION):]
        for pattern, target in _RENAMES:
            if re.fullmatch(pattern, rest):
                return "visual_encoder." + re.sub(pattern, target, rest)
        raise ValueError(f"unexpected vision key {key} (not BLIP's ViT)")
    if key.startswith(_TEXT) and key != _POSITION_IDS:
        return "text_encoder." + key[len(_TEXT):]  # med.py and BlipTextModel share names
    if key.startswith(_MLP):
        return "mlp." + key[len(_MLP):]  # nn.Sequential indices 0, 2, 4, 6, 7 either way
    return None


def read_med_config(path) -> dict:
    """med_config.json, checked for what med.py's BertModel needs here."""
    config = json.loads(pathlib.Path(path).read_text())
    for name in ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
                 "intermediate_size", "max_position_embeddings", "layer_norm_eps"):
        if name not in config:
            raise ValueError(f"{path}: med_config without {name}")
    if not config.get("add_cross_attention", False):
        raise ValueError(f"{path}: add_cross_attention is not true; ImageReward's text encoder "
                         "cross-attends to the image")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"{path}: only absolute position embeddings are supported")
    return config


def text_config(med: dict, encoder_width: int) -> BlipTextConfig:
    """BlipTextConfig equal to med.py's BertConfig (encoder_width = the ViT's width)."""
    config = BlipTextConfig(
        vocab_size=med["vocab_size"], hidden_size=med["hidden_size"],
        encoder_hidden_size=encoder_width, intermediate_size=med["intermediate_size"],
        num_hidden_layers=med["num_hidden_layers"],
        num_attention_heads=med["num_attention_heads"],
        max_position_embeddings=med["max_position_embeddings"],
        hidden_act=med.get("hidden_act", "gelu"), layer_norm_eps=med["layer_norm_eps"],
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
        pad_token_id=med.get("pad_token_id", 0), bos_token_id=None, eos_token_id=None,
        sep_token_id=None, is_decoder=True)  # med.py's BertConfig sets no bos/eos/sep
    config._attn_implementation = "eager"  # pylint: disable=protected-access
    return config


def vision_config(state: Dict[str, torch.Tensor]) -> BlipVisionConfig:
    """BLIP's ViT geometry read from the weights (heads: 64-wide, as create_vit's)."""
    patch = state[_VISION + "patch_embed.proj.weight"]
    width, patch_size = int(patch.shape[0]), int(patch.shape[-1])
    positions = int(state[_VISION + "pos_embed"].shape[1]) - 1
    grid = int(round(positions ** 0.5))
    if grid * grid != positions or width % VIT_HEAD_DIM:
        raise ValueError(f"unexpected ViT geometry: {positions} positions, width {width}")
    depth = len({k.split(".")[3] for k in state if k.startswith(_VISION + "blocks.")})
    mlp_width = int(state[_VISION + "blocks.0.mlp.fc1.weight"].shape[0])
    return BlipVisionConfig(
        hidden_size=width, intermediate_size=mlp_width,
        num_hidden_layers=depth, num_attention_heads=width // VIT_HEAD_DIM,
        image_size=grid * patch_size, patch_size=patch_size, hidden_act="gelu",
        layer_norm_eps=VIT_LAYER_NORM_EPS, attention_dropout=0.0)


def build_tokenizer(vocab_path) -> BertTokenizerLegacy:
    """BLIP's init_tokenizer on bert-base-uncased's vocab.txt."""
    tokenizer = BertTokenizerLegacy(vocab_file=str(vocab_path), do_lower_case=True)
    tokenizer.add_special_tokens({"bos_token": BLIP_SPECIAL_TOKENS["bos_token"]})
    tokenizer.add_special_tokens(
        {"additional_special_tokens": BLIP_SPECIAL_TOKENS["additional_special_tokens"]})
    return tokenizer


def read_state_dict(weights_path) -> Dict[str, torch.Tensor]:
    """ImageReward.pt (a torch-saved state dict), read without running pickled code."""
    return state_dict.read_state_dict(weights_path,
                                      unreadable="not a readable torch state dict")


def map_state_dict(state: Dict[str, torch.Tensor]) -> Tuple[Dict[str, torch.Tensor], list]:
    """(ImageRewardModel state dict, ignored official keys)."""
    mapped, ignored = {}, []
    for key, value in state.items():
        target = official_key_to_module_key(key)
        if target is None:
            ignored.append(key)
        else:
            mapped[target] = value
    if _POSITION_IDS in state:
        ids = state[_POSITION_IDS]
        if not torch.equal(ids.reshape(-1), torch.arange(ids.numel(), dtype=ids.dtype)):
            raise ValueError(f"{_POSITION_IDS} is not 0, 1, 2, ...")
    return mapped, ignored


def load_image_reward(weights_path, med_config_path, vocab_path, device) -> ImageReward:
    """Loads ImageReward.pt with its med_config.json and the BERT vocabulary.

    Raises:
        ValueError: An unreadable file, a config or vocabulary that does not fit the
            weights, or weights that do not fit the architecture.
        OSError: A file cannot be read.
    """
    state = read_state_dict(weights_path)
    try:
        vision = vision_config(state)
    except KeyError as e:
        raise ValueError(f"{weights_path}: no {e} (not an ImageReward checkpoint)") from e
    med = read_med_config(med_config_path)
    model = ImageRewardModel(vision, text_config(med, vision.hidden_size))
    mapped, _ = map_state_dict(state)
    try:
        model.load_state_dict(mapped, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{weights_path}: does not fit ImageReward "
                         f"({' '.join(str(e).split())[:400]})") from e
    tokenizer = build_tokenizer(vocab_path)
    if len(tokenizer) != med["vocab_size"]:
        raise ValueError(f"{vocab_path}: {len(tokenizer)} tokens with BLIP's two added, but "
                         f"{med_config_path} says vocab_size {med['vocab_size']}")
    return ImageReward(model.to(device).eval(), tokenizer, torch.device(device),
                       vision.image_size)


def tokenize(reward: ImageReward, prompt: str, count: int) -> Dict[str, torch.Tensor]:
    """ImageReward's tokenizer call, the prompt's row repeated `count` times."""
    text = reward.tokenizer(prompt, padding="max_length", truncation=True,
                            max_length=MAX_TEXT_LENGTH, return_tensors="pt")
    return {name: text[name].expand(count, -1).to(reward.device)
            for name in ("input_ids", "attention_mask")}
