"""Test support: a tiny random CLIP ResNet and CLIP-IQA+ prompts, in the official file formats.

The model is OpenAI's CLIP-ResNet architecture as open_clip builds it
(`open_clip.model.CLIP` with a ModifiedResNet tower and OpenAI's state-dict keys) with
narrow widths: stages (2, 1, 1, 1) of a width-8 ResNet (attention pool 256-d, 4 heads),
a 64-wide 2-layer text transformer (1 head), 32-d embeddings, and OpenAI's real context
length (77) and vocabulary size (49408: the prompts use token ids up to 49407).

Weights (`random_clip`): after torch.manual_seed(seed), every module's default
initialisation is drawn in the order OpenAI's constructors draw it, then BatchNorm,
Conv2d and LayerNorm are re-drawn in OpenAI's module order, then the embeddings: the
same tensors, bit for bit, as the hand-written RN50 of commit 0b761c8 drew, so the
official pyiqa numbers (tools/calibration/clipiqa_official.csv) and the table of that
commit (testdata/clipiqa_rn50_0b761c8.json) still hold for the same seeds. Scales keep
activations, BatchNorm statistics and the (good, bad) probabilities away from trivial
values.

`write_rn50` saves them as OpenAI ships RN50.pt: a TorchScript archive whose
Conv/Linear/attention/text_projection tensors are float16 (those open_clip's
convert_weights_to_fp16 converts) plus the `input_resolution`, `context_length`,
`vocab_size` entries, or as a plain state dict. `write_prompts` saves a learned context
tensor as pyiqa's CLIP-IQA+_learned_prompts file does (a bare tensor, 16 x width).
"""

import math
import pathlib
import warnings

import torch
from torch import nn
from open_clip import model as open_clip_model

from metrics.clip import clipiqa
from metrics.clip import openai_clip

TINY_ARCH = dict(vision_layers=(2, 1, 1, 1), vision_width=8, num_positions=7 * 7 + 1,
                 embed_dim=32, context_length=77, vocab_size=49408, text_width=64,
                 text_layers=2)
LOGIT_SCALE = math.log(100.0)  # what OpenAI's RN50 holds (its clamp)
_METADATA = dict(input_resolution=224, context_length=77, vocab_size=49408)


def tiny_model() -> nn.Module:
    """open_clip's CLIP with TINY_ARCH and QuickGELU (constructor weights), float32, eval."""
    vision = open_clip_model.CLIPVisionCfg(
        layers=TINY_ARCH["vision_layers"], width=TINY_ARCH["vision_width"],
        image_size=round((TINY_ARCH["num_positions"] - 1) ** 0.5) * 32)
    text = open_clip_model.CLIPTextCfg(
        context_length=TINY_ARCH["context_length"], vocab_size=TINY_ARCH["vocab_size"],
        width=TINY_ARCH["text_width"], heads=TINY_ARCH["text_width"] // 64,
        layers=TINY_ARCH["text_layers"])
    return open_clip_model.CLIP(TINY_ARCH["embed_dim"], vision, text, quick_gelu=True).eval()


def _default_init_order(model: nn.Module):
    """(module, kind) in the order OpenAI's constructors draw their default initialisation.

    OpenAI's `clip/model.py` (and the hand-written copy of commit 0b761c8) constructs the
    ResNet (stem convs, bottleneck convs, attention-pool q/k/v/c Linears in the order
    k, q, v, c), then per text block the attention (its out_proj Linear, then xavier on
    in_proj_weight) and the MLP's two Linears, then the token embedding. BatchNorm and
    LayerNorm draw nothing.
    """
    visual = model.visual
    for conv in (visual.conv1, visual.conv2, visual.conv3):
        yield conv, "conv"
    for stage in (visual.layer1, visual.layer2, visual.layer3, visual.layer4):
        for block in stage:
            for conv in (block.conv1, block.conv2, block.conv3):
                yield conv, "conv"
            if block.downsample is not None:
                yield block.downsample[1], "conv"
    pool = visual.attnpool
    for linear in (pool.k_proj, pool.q_proj, pool.v_proj, pool.c_proj):
        yield linear, "linear"
    for block in model.transformer.resblocks:
        yield block.attn.out_proj, "linear"
        yield block.attn, "attention"
        yield block.mlp.c_fc, "linear"
        yield block.mlp.c_proj, "linear"
    yield model.token_embedding, "embedding"


def _reinit_order(model: nn.Module):
    """The BatchNorm / Conv2d / LayerNorm modules in OpenAI's model.modules() order."""
    visual = model.visual
    yield from ((visual.conv1, visual.bn1, visual.conv2, visual.bn2, visual.conv3, visual.bn3))
    for stage in (visual.layer1, visual.layer2, visual.layer3, visual.layer4):
        for block in stage:
            yield from (block.conv1, block.bn1, block.conv2, block.bn2, block.conv3, block.bn3)
            if block.downsample is not None:
                yield from (block.downsample[1], block.downsample[2])
    for block in model.transformer.resblocks:
        yield from (block.ln_1, block.ln_2)
    yield model.ln_final


def random_clip(seed: int = 0) -> nn.Module:
    """The tiny open_clip CLIP with random weights (float32, eval), drawn as the module doc says."""
    model = tiny_model()
    torch.manual_seed(seed)
    with torch.no_grad():
        for module, kind in _default_init_order(model):
            if kind in ("conv", "linear"):
                nn.init.kaiming_uniform_(module.weight, a=math.sqrt(5))
            if kind == "linear":
                bound = 1 / math.sqrt(module.weight.shape[1])
                nn.init.uniform_(module.bias, -bound, bound)
            elif kind == "attention":
                nn.init.xavier_uniform_(module.in_proj_weight)
                module.in_proj_bias.zero_()
                module.out_proj.bias.zero_()
            elif kind == "embedding":
                nn.init.normal_(module.weight)
        for module in _reinit_order(model):
            if isinstance(module, nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
                module.running_mean.normal_(0.0, 0.1)
                module.running_var.uniform_(0.5, 2.0)
                module.num_batches_tracked.fill_(100)
            elif isinstance(module, nn.Conv2d):  # He init: the signal survives the depth
                nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            else:
                module.weight.uniform_(0.8, 1.2)
                module.bias.normal_(0.0, 0.05)
        model.token_embedding.weight.normal_(0.0, 0.5)
        model.positional_embedding.normal_(0.0, 0.1)
        model.visual.attnpool.positional_embedding.normal_(0.0, 0.1)
        model.text_projection.normal_(0.0, TINY_ARCH["text_width"] ** -0.5)
        model.logit_scale.fill_(LOGIT_SCALE)
    return model.requires_grad_(False).eval()


def random_state(seed: int = 0) -> dict:
    """random_clip(seed)'s float32 state dict."""
    return {k: v.clone() for k, v in random_clip(seed).state_dict().items()}


def half_names() -> set:
    """The state-dict keys open_clip's convert_weights_to_fp16 (OpenAI's) makes float16."""
    model = tiny_model()
    open_clip_model.convert_weights_to_fp16(model)
    return {k for k, v in model.state_dict().items() if v.dtype == torch.float16}


class _Archive(nn.Module):
    """Holds the model's tensors under their OpenAI names, plus OpenAI's metadata entries."""

    def __init__(self, model: nn.Module):
        super().__init__()
        for name, child in model.named_children():
            self.add_module(name, child)
        for name, param in model.named_parameters(recurse=False):
            self.register_parameter(name, param)
        for name, value in _METADATA.items():
            self.register_buffer(name, torch.tensor(value))

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return image * self.logit_scale


def write_rn50(path, seed: int = 0, jit: bool = True, half: bool = True) -> dict:
    """Saves random_state(seed) to `path`; returns its float32 state dict as saved.

    Args:
        jit: A TorchScript archive (OpenAI's format) or, if False, a torch.save'd state dict.
        half: Store the tensors convert_weights converts as float16.
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = random_state(seed)
    rounded = half_names() if half else set()
    if jit:
        with warnings.catch_warnings():  # tracer and TorchScript deprecation warnings
            warnings.simplefilter("ignore")
            archive = torch.jit.trace(_Archive(random_clip(seed)).eval(),
                                      torch.zeros(1, 3, 4, 4), check_trace=False)
            with torch.no_grad():
                for name, tensor in archive.named_parameters():
                    if name in rounded:
                        tensor.data = tensor.data.half()
            torch.jit.save(archive, str(path))
    else:
        torch.save({k: v.half() if k in rounded else v for k, v in state.items()}, path)
    return {k: v.float() for k, v in openai_clip.read_state_dict(path).items()}


def write_prompts(path, seed: int = 0, per_prompt: bool = False) -> torch.Tensor:
    """Saves a random learned context, (16, 64) or (2, 16, 64), as a bare tensor."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    generator = torch.Generator().manual_seed(seed)
    shape = ((2,) if per_prompt else ()) + (clipiqa.N_CTX, TINY_ARCH["text_width"])
    ctx = torch.randn(*shape, generator=generator) * 0.5
    torch.save(ctx, path)
    return ctx
