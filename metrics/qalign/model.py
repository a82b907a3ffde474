"""mPLUG-Owl2 as Q-Align runs it: `MPLUGOwl2LlamaForCausalLM` of the official code.

State-dict names are the official ones: `model.embed_tokens`, `model.layers.<i>`,
`model.norm`, `model.vision_model.*`, `model.visual_abstractor.*`, `lm_head`. The
forward pass is the official one for a batch of prompts that each hold one image
placeholder (IMAGE_TOKEN) standing for a list of frames (`prepare_inputs_labels_for_
multimodal`): each frame is encoded by the vision model and the abstractor, the frames'
tokens are concatenated in order in place of the placeholder, those positions get
modality 1 and the text tokens modality 0; positions run 0..L-1; the logits of every
position are computed by lm_head in the model dtype (the official class keeps them in
that dtype).
"""

import torch
from torch import nn

from metrics.qalign import abstractor as abstractor_lib
from metrics.qalign import config as config_lib
from metrics.qalign import llama_multiway
from metrics.qalign import vision as vision_lib

IMAGE_TOKEN = -200  # the official IMAGE_TOKEN_INDEX


class Backbone(nn.Module):
    def __init__(self, cfg: config_lib.QAlignConfig):
        super().__init__()
        hf_config = llama_multiway.hf_llama_config(cfg)
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        self.layers = nn.ModuleList(llama_multiway.DecoderLayer(cfg, hf_config)
                                    for _ in range(cfg.num_hidden_layers))
        self.norm = llama_multiway.modeling_llama.LlamaRMSNorm(cfg.hidden_size,
                                                               eps=cfg.rms_norm_eps)
        self.rotary_emb = llama_multiway.rotary(hf_config)  # no state-dict entry
        self.vision_model = vision_lib.VisionModel(cfg.vision)
        self.visual_abstractor = abstractor_lib.VisualAbstractor(cfg.abstractor,
                                                                 cfg.hidden_size)

    def decode(self, embeds: torch.Tensor, modality: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(embeds.shape[1], device=embeds.device)[None]
        cos, sin = self.rotary_emb(embeds, positions)
        x = embeds
        for layer in self.layers:
            x = layer(x, modality, cos, sin)
        return self.norm(x)


class QAlignModel(nn.Module):
    def __init__(self, cfg: config_lib.QAlignConfig = config_lib.FULL):
        super().__init__()
        self.config = cfg
        self.model = Backbone(cfg)
        self.lm_head = nn.Linear(cfg.hidden_size, cfg.vocab_size, bias=False)

    def encode_frames(self, pixels: torch.Tensor) -> torch.Tensor:
        """(N, 3, S, S) -> (N, queries + 1, hidden)."""
        return self.model.visual_abstractor(self.model.vision_model(pixels))

    def forward(self, input_ids: torch.Tensor, pixels: torch.Tensor) -> torch.Tensor:
        """input_ids (L,) with one IMAGE_TOKEN; pixels (B, F, 3, S, S), F frames per
        prompt -> logits (B, L - 1 + F * (queries + 1), vocab)."""
        where = (input_ids == IMAGE_TOKEN).nonzero().flatten()
        if where.numel() != 1:
            raise ValueError(f"expected one image placeholder in the prompt, found "
                             f"{where.numel()}")
        batch, frames = pixels.shape[:2]
        features = self.encode_frames(pixels.flatten(0, 1))
        features = features.reshape(batch, frames * features.shape[1], features.shape[2])
        cut = int(where[0])
        before = self.model.embed_tokens(input_ids[:cut])[None].expand(batch, -1, -1)
        after = self.model.embed_tokens(input_ids[cut + 1:])[None].expand(batch, -1, -1)
        embeds = torch.cat([before, features.to(before.dtype), after], dim=1)
        modality = torch.zeros(embeds.shape[:2], dtype=torch.long, device=embeds.device)
        modality[:, cut:cut + features.shape[1]] = llama_multiway.IMAGE
        return self.lm_head(self.model.decode(embeds, modality))
