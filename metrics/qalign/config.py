"""mPLUG-Owl2 (the Q-Align "one-align" model) architecture settings.

`FULL` is the full-size architecture the official configuration code builds by default
(a LLaMA-2-7B-class language model, a ViT-L/14 at 448 px and a 6-layer visual
abstractor with 64 queries); a checkpoint's own config.json is read by `from_dict`,
whose layout is the official one: the language-model fields at the top level and
`visual_config` = {"visual_model": {...}, "visual_abstractor": {...}}. Missing fields
take the official defaults; fields the official model code does not read (hidden_act of
the vision model: QuickGELU is hard-coded; pretraining_tp: transformers 4.36 only splits
the MLP's matmuls with it, the same function) are ignored, a rope_scaling (which would
change the function) is refused. `TINY` is a small random-weight architecture for tests.
"""

import dataclasses
from typing import Any, Mapping, Optional


@dataclasses.dataclass(frozen=True)
class VisionConfig:
    hidden_size: int = 1024
    intermediate_size: int = 4096
    num_hidden_layers: int = 24
    num_attention_heads: int = 16
    image_size: int = 448
    patch_size: int = 14
    layer_norm_eps: float = 1e-6

    @property
    def grid(self) -> int:
        return self.image_size // self.patch_size


@dataclasses.dataclass(frozen=True)
class AbstractorConfig:
    num_learnable_queries: int = 64
    hidden_size: int = 1024
    num_hidden_layers: int = 6
    num_attention_heads: int = 16
    intermediate_size: int = 2816
    layer_norm_eps: float = 1e-6   # the MLP's ffn_ln; norm1/normk/norm2 keep 1e-5 upstream
    encoder_hidden_size: int = 1024
    grid_size: int = 32            # the key position table's grid (+1 for the class token)


@dataclasses.dataclass(frozen=True)
class QAlignConfig:
    vocab_size: int = 32000
    hidden_size: int = 4096
    intermediate_size: int = 11008
    num_hidden_layers: int = 32
    num_attention_heads: int = 32
    num_key_value_heads: Optional[int] = None
    hidden_act: str = "silu"
    max_position_embeddings: int = 2048
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    rope_scaling: Optional[Mapping[str, Any]] = None
    attention_bias: bool = False
    tie_word_embeddings: bool = False
    vision: VisionConfig = VisionConfig()
    abstractor: AbstractorConfig = AbstractorConfig()

    @property
    def kv_heads(self) -> int:
        return self.num_key_value_heads or self.num_attention_heads


FULL = QAlignConfig()

TINY = QAlignConfig(
    vocab_size=450, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
    num_attention_heads=4, max_position_embeddings=512,
    vision=VisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                        num_attention_heads=2, image_size=28, patch_size=14),
    abstractor=AbstractorConfig(num_learnable_queries=4, hidden_size=16, num_hidden_layers=2,
                                num_attention_heads=2, intermediate_size=24,
                                encoder_hidden_size=16, grid_size=2))


def _pick(cls, values: Mapping[str, Any], **extra):
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in values.items() if k in names}, **extra)


def from_dict(values: Mapping[str, Any]) -> QAlignConfig:
    """The architecture of an official config.json (model_type mplug_owl2)."""
    model_type = values.get("model_type")
    if model_type != "mplug_owl2":
        raise ValueError(f"expected an mPLUG-Owl2 config.json (model_type 'mplug_owl2'), "
                         f"found model_type {model_type!r}")
    visual = values.get("visual_config") or {}
    vision = _pick(VisionConfig, visual.get("visual_model") or {})
    abstract = dict(visual.get("visual_abstractor") or {})
    if not abstract.get("grid_size"):  # the official config turns None/0 into 32
        abstract.pop("grid_size", None)
    abstractor = _pick(AbstractorConfig, abstract)
    if values.get("rope_scaling"):
        raise ValueError(f"rope_scaling {values['rope_scaling']} is not supported "
                         f"(the released one-align checkpoint has none)")
    return _pick(QAlignConfig, values, vision=vision, abstractor=abstractor)


def to_dict(config: QAlignConfig) -> dict:
    """config.json content in the official layout (tests write tiny checkpoints with it)."""
    top = {k: v for k, v in dataclasses.asdict(config).items()
           if k not in ("vision", "abstractor")}
    top.update(model_type="mplug_owl2", architectures=["MPLUGOwl2LlamaForCausalLM"],
               visual_config={"visual_model": dataclasses.asdict(config.vision),
                              "visual_abstractor": dataclasses.asdict(config.abstractor)})
    return top
