"""Test support: a tiny random Q-Align snapshot in the official Hugging Face layout.

`write(directory, seed)` writes config.json (official layout), a sentencepiece BPE
tokenizer.model trained here with LLaMA's settings (byte fallback, identity
normalisation, dummy prefix, whitespace kept), tokenizer_config.json,
preprocessor_config.json (the official CLIP values at the tiny image size) and random
weights under their official names as two safetensors shards plus
model.safetensors.index.json. Returns the config.
"""

import dataclasses
import io
import json
import pathlib

import torch
from transformers.models.llama import modeling_llama

from metrics.qalign import config as config_lib
from metrics.qalign import model as model_lib
from metrics.qalign import preprocess as preprocess_lib

_TEXT = ("USER: How would you rate the quality of this video?\n",
         "ASSISTANT: The quality of the video is excellent good fair poor bad.",
         "the quick brown fox jumps over the lazy dog 0123456789")


def train_tokenizer(vocab_size: int = 450) -> bytes:
    import sentencepiece  # pylint: disable=import-outside-toplevel
    out = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(_TEXT * 30), model_writer=out, vocab_size=vocab_size,
        model_type="bpe", byte_fallback=True, character_coverage=1.0,
        normalization_rule_name="identity", remove_extra_whitespaces=False,
        add_dummy_prefix=True, split_digits=True, allow_whitespace_only_pieces=True,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, hard_vocab_limit=False,
        num_threads=1, minloglevel=2)
    return out.getvalue()


def random_state(cfg: config_lib.QAlignConfig, seed: int) -> dict:
    """Official names -> random float32 tensors (norm scales near 1, linear weights
    ~ 1/sqrt(fan-in), everything else ~ 0.5); the fixed sine-cosine tables as built."""
    generator = torch.Generator().manual_seed(seed)
    model = model_lib.QAlignModel(cfg)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    for module_name, module in model.named_modules():
        prefix = module_name + "." if module_name else ""
        for name, param in module.named_parameters(recurse=False):
            noise = torch.randn(param.shape, generator=generator)
            if isinstance(module, (torch.nn.LayerNorm, modeling_llama.LlamaRMSNorm)):
                value = 1 + 0.1 * noise if name == "weight" else 0.1 * noise
            elif isinstance(module, torch.nn.Linear) and name == "weight":
                value = noise / param.shape[1] ** 0.5
            else:
                value = 0.5 * noise
            state[prefix + name] = value
    return state


def write(directory, seed: int = 0, legacy=None, with_tables: bool = True,
          rotary_keys: bool = False, cfg: config_lib.QAlignConfig = config_lib.TINY):
    from safetensors.torch import save_file  # pylint: disable=import-outside-toplevel
    root = pathlib.Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    model_bytes = train_tokenizer()
    (root / "tokenizer.model").write_bytes(model_bytes)
    import sentencepiece  # pylint: disable=import-outside-toplevel
    vocab = sentencepiece.SentencePieceProcessor(model_proto=model_bytes).vocab_size()
    cfg = dataclasses.replace(cfg, vocab_size=vocab)
    settings = {"tokenizer_class": "LlamaTokenizer", "add_bos_token": True,
                "add_eos_token": False, "bos_token": "<s>", "eos_token": "</s>",
                "unk_token": "<unk>", "clean_up_tokenization_spaces": False}
    if legacy is not None:
        settings["legacy"] = legacy
    (root / "tokenizer_config.json").write_text(json.dumps(settings))
    side = cfg.vision.image_size
    (root / "preprocessor_config.json").write_text(json.dumps({
        "crop_size": side, "do_center_crop": True, "do_normalize": True, "do_resize": True,
        "feature_extractor_type": "CLIPFeatureExtractor",
        "image_mean": list(preprocess_lib.CLIP_MEAN), "image_std": list(preprocess_lib.CLIP_STD),
        "resample": 3, "size": side}))
    (root / "config.json").write_text(json.dumps(config_lib.to_dict(cfg), indent=1))
    state = random_state(cfg, seed)
    if not with_tables:
        state = {k: v for k, v in state.items() if not k.endswith("_pos_embed")}
    if rotary_keys:
        head = cfg.hidden_size // cfg.num_attention_heads
        state["model.layers.0.self_attn.rotary_emb.inv_freq"] = torch.ones(head // 2)
    names = sorted(state)
    shards = {"model-00001-of-00002.safetensors": names[:len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2:]}
    weight_map = {}
    for shard, keys in shards.items():
        save_file({k: state[k].contiguous() for k in keys}, str(root / shard),
                  metadata={"format": "pt"})
        weight_map.update({k: shard for k in keys})
    (root / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": sum(v.numel() * 4 for v in state.values())},
         "weight_map": weight_map}))
    return cfg
