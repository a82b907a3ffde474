"""The official full-size architectures' state-dict names and shapes; runs OUTSIDE the
repository, writes one part of tools/calibration/full_size_keys.json.

Each official model is built at its published size on the meta device (no memory, no
weights) and its `state_dict()` names and shapes are written, i.e. the layout of the
official checkpoint file (2026-12-01):

    # ImageReward (image-reward 1.5; the scratch virtualenv of official_runs/imagereward.py)
    /tmp/pmb-ir-venv/bin/python tools/calibration/official_runs/full_size_keys.py \\
        imagereward /tmp/parity_in /tmp/keys_imagereward.json
    # SAM-3 image model (sam3 0.1.4; the scratch virtualenv of official_runs/sam3.py)
    /tmp/pmb-sam3-venv/bin/python tools/calibration/official_runs/full_size_keys.py \\
        sam3 /tmp/parity_in /tmp/keys_sam3.json
    # DINOv2 ViT-B/14 (the hub code at b8931f7) and OpenAI CLIP RN50 (clip-anytorch 2.6.0)
    /tmp/iqa/bin/python tools/calibration/official_runs/full_size_keys.py \\
        dinov2 /tmp/dinov2src /tmp/keys_dinov2.json
    /tmp/iqa/bin/python tools/calibration/official_runs/full_size_keys.py rn50 - /tmp/keys_rn50.json
    # merged into one object, one tensor a line, keys sorted:
    #   {"dinov2": {...}, "imagereward": {...}, "imagereward_med_config": {...}, ...}

imagereward: `ImageReward(med_config)` as ImageReward.load builds it, with BLIP's
configs/med_config.json (BERT-base, vocab 30524, add_cross_attention; THUDM/ImageReward
ships the same file) written out below; the tokenizer (unused by the names) reads the
tiny vocab.txt of the parity inputs instead of downloading bert-base-uncased.
sam3: `build_sam3_image_model(load_from_HF=False)` (the detector's names; sam3.pt holds
them under "detector."), with official_runs/sam3.py's CUDA-on-CPU mode for its two
hard-coded "cuda" caches. dinov2: DinoVisionTransformer with hub/backbones.py's
dinov2_vitb14 settings. rn50: clip.model.CLIP with the hyper-parameters build_model
reads off OpenAI's RN50.pt (embed 1024, 224 px, layers (3, 4, 6, 3), width 64, text
77 x 512, 8 heads, 12 layers, vocabulary 49408).
"""

import functools
import importlib.util
import json
import pathlib
import sys
import types

import torch
from torch.overrides import TorchFunctionMode

MED_CONFIG = {  # BLIP configs/med_config.json
    "architectures": ["BertModel"], "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
    "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
    "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
    "model_type": "bert", "num_attention_heads": 12, "num_hidden_layers": 12,
    "pad_token_id": 0, "type_vocab_size": 2, "vocab_size": 30524, "encoder_width": 768,
    "add_cross_attention": True}


class _ScalarsOnCpu(TorchFunctionMode):
    """linspace/arange on the CPU: the builders call .item() on them (drop-path rates)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in (torch.linspace, torch.arange):
            kwargs["device"] = "cpu"
        return func(*args, **kwargs)


def _meta():
    class _Both:
        def __enter__(self):
            self.device = torch.device("meta")
            self.device.__enter__()
            self.scalars = _ScalarsOnCpu()
            self.scalars.__enter__()

        def __exit__(self, *exc):
            self.scalars.__exit__(*exc)
            self.device.__exit__(*exc)
    return _Both()


def _imagereward(inputs: pathlib.Path):
    spec = importlib.util.find_spec("ImageReward")
    package = types.ModuleType("ImageReward")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules["ImageReward"] = package
    # pylint: disable=import-outside-toplevel
    from ImageReward import ImageReward as image_reward
    from ImageReward.models.BLIP import blip
    from_pretrained = blip.BertTokenizer.from_pretrained
    vocab = str(inputs / "imagereward" / "bert_base_uncased")
    blip.BertTokenizer.from_pretrained = lambda name, **kw: from_pretrained(vocab, **kw)
    config = pathlib.Path("/tmp/med_config_full.json")
    config.write_text(json.dumps(MED_CONFIG))
    with _meta():
        return image_reward.ImageReward(med_config=str(config), device="cpu")


def _sam3(inputs: pathlib.Path):
    here = pathlib.Path(__file__).resolve().parent
    sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != here]
    runner = importlib.util.spec_from_file_location("sam3_official_run", here / "sam3.py")
    module = importlib.util.module_from_spec(runner)
    runner.loader.exec_module(module)
    import sam3.model_builder as mb  # pylint: disable=import-outside-toplevel
    with module._CudaOnCpu(), _meta():  # pylint: disable=protected-access
        return mb.build_sam3_image_model(bpe_path=str(inputs / "sam3_bpe.txt.gz"),
                                         device="cpu", load_from_HF=False)


def _dinov2(src: pathlib.Path):
    sys.path.insert(0, str(src))
    # pylint: disable=import-outside-toplevel
    from dinov2.layers import MemEffAttention
    from dinov2.layers import NestedTensorBlock
    from dinov2.models.vision_transformer import DinoVisionTransformer
    with torch.device("meta"):
        return DinoVisionTransformer(
            img_size=518, patch_size=14, embed_dim=768, depth=12, num_heads=12, mlp_ratio=4,
            init_values=1.0, ffn_layer="mlp", block_chunks=0, num_register_tokens=0,
            interpolate_antialias=False, interpolate_offset=0.1,
            block_fn=functools.partial(NestedTensorBlock, attn_class=MemEffAttention))


def _rn50(_):
    from clip.model import CLIP  # pylint: disable=import-outside-toplevel
    with torch.device("meta"):
        return CLIP(embed_dim=1024, image_resolution=224, vision_layers=(3, 4, 6, 3),
                    vision_width=64, vision_patch_size=None, context_length=77,
                    vocab_size=49408, transformer_width=512, transformer_heads=8,
                    transformer_layers=12)


def main(which, source, out_path):
    model = {"imagereward": _imagereward, "sam3": _sam3, "dinov2": _dinov2,
             "rn50": _rn50}[which](pathlib.Path(source))
    keys = {k: list(v.shape) for k, v in model.state_dict().items()}
    extra = {"imagereward_med_config": MED_CONFIG} if which == "imagereward" else {}
    pathlib.Path(out_path).write_text(json.dumps({which: keys, **extra}))
    print(f"{which}: {len(keys)} tensors")


if __name__ == "__main__":
    main(*sys.argv[1:4])
