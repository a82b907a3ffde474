"""Test support: a tiny random CLIP ResNet and CLIP-IQA+ prompts, in the official file formats.

The model is OpenAI's CLIP-ResNet architecture (metrics.clip.openai_clip) with narrow
widths: stages (2, 1, 1, 1) of a width-8 ResNet (attention pool 256-d, 4 heads), a
64-wide 2-layer text transformer (1 head), 32-d embeddings, and OpenAI's real context
length (77) and vocabulary size (49408: the prompts use token ids up to 49407). Weights
are drawn at scales that keep activations, BatchNorm statistics and the (good, bad)
probabilities away from trivial values.

`write_rn50` saves it as OpenAI ships RN50.pt: a TorchScript archive whose
Conv/Linear/attention/text_projection tensors are float16 (as OpenAI's convert_weights
leaves them) plus the `input_resolution`, `context_length`, `vocab_size` entries, or as
a plain state dict. `write_prompts` saves a learned context tensor as pyiqa's
CLIP-IQA+_learned_prompts file does (a bare tensor, 16 x width).
"""

import math
import pathlib
import warnings

import torch
from torch import nn

from metrics.clip import clipiqa
from metrics.clip import openai_clip

TINY_ARCH = dict(vision_layers=(2, 1, 1, 1), vision_width=8, num_positions=7 * 7 + 1,
                 embed_dim=32, context_length=77, vocab_size=49408, text_width=64,
                 text_layers=2)
LOGIT_SCALE = math.log(100.0)  # what OpenAI's RN50 holds (its clamp)


def random_clip(seed: int = 0) -> openai_clip.OpenAIClipResNet:
    """The tiny model with random weights (float32, eval)."""
    torch.manual_seed(seed)
    model = openai_clip.OpenAIClipResNet(**TINY_ARCH)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)
                module.running_mean.normal_(0.0, 0.1)
                module.running_var.uniform_(0.5, 2.0)
                module.num_batches_tracked.fill_(100)
            elif isinstance(module, nn.Conv2d):  # He init: the signal survives the depth
                nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            elif isinstance(module, nn.LayerNorm):
                module.weight.uniform_(0.8, 1.2)
                module.bias.normal_(0.0, 0.05)
        model.token_embedding.weight.normal_(0.0, 0.5)
        model.positional_embedding.normal_(0.0, 0.1)
        model.visual.attnpool.positional_embedding.normal_(0.0, 0.1)
        model.text_projection.normal_(0.0, TINY_ARCH["text_width"] ** -0.5)
        model.logit_scale.fill_(LOGIT_SCALE)
    return model.eval()


class _Archive(nn.Module):
    """Holds the model's tensors under their OpenAI names for tracing (forward: image tower)."""

    def __init__(self, model: openai_clip.OpenAIClipResNet):
        super().__init__()
        for name, child in model.named_children():
            self.add_module(name, child)
        for name, param in model.named_parameters(recurse=False):
            self.register_parameter(name, param)
        for name in ("input_resolution", "context_length", "vocab_size"):
            self.register_buffer(name, torch.tensor(224 if name == "input_resolution" else
                                                    TINY_ARCH[name]))

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.visual(image)


def write_rn50(path, seed: int = 0, jit: bool = True, half: bool = True) -> dict:
    """Saves random_clip(seed) to `path`; returns its float32 state dict as saved.

    Args:
        jit: A TorchScript archive (OpenAI's format) or, if False, a torch.save'd state dict.
        half: Store the tensors convert_weights converts as float16.
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model = random_clip(seed)
    rounded = {id(t) for t in openai_clip.half_rounded_tensors(model)}
    half_names = {name for name, t in model.named_parameters() if half and id(t) in rounded}
    target = model
    if jit:
        with warnings.catch_warnings():  # tracer and TorchScript deprecation warnings
            warnings.simplefilter("ignore")
            target = torch.jit.trace(_Archive(model).eval(), torch.zeros(1, 3, 64, 64),
                                     check_trace=False)
    with torch.no_grad():  # after tracing, which ran in float32
        for name, tensor in target.named_parameters():
            if name in half_names:
                tensor.data = tensor.data.half()
    if jit:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            torch.jit.save(target, str(path))
    else:
        torch.save(model.state_dict(), path)
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
