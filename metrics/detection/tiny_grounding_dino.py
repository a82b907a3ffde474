"""Test support: a tiny random GroundingDINO in the official file format, and a tiny BERT folder.

The official code hard-codes 256 for the text position embedding, so d_model stays 256;
the Swin is 16 wide, the encoder has one layer, the decoder two, with 50 queries
(`TINY`: window 12 as Swin-B; `TINY_SWINT`: window 7 as Swin-T OGC).
The checkpoint is `{"model": state_dict}` with the official IDEA key names (written
through `grounding_dino_keys.to_official` from a transformers model of `TINY`), so
tests load it through the production path. The BERT folder has a `config.json` (2
layers, width 32), a `vocab.txt` laid out like bert-base-uncased's where it matters
([PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103, "." 1012, "?" 1029) plus a few
words for test captions, and no weights (the checkpoint carries `bert.*`).
"""

import json
import pathlib
from typing import Optional

import torch
from transformers import BertConfig
from transformers import GroundingDinoForObjectDetection

from metrics.detection import grounding_dino_config
from metrics.detection import grounding_dino_keys

TINY = grounding_dino_config.GroundingDinoArch(
    swin_embed_dim=16, swin_depths=(2, 2, 2, 2), swin_num_heads=(1, 2, 2, 4),
    swin_window_size=12, hidden_dim=256, dim_feedforward=128, nheads=8, enc_layers=1,
    dec_layers=2, num_queries=50)
# The same, with Swin-T OGC's window 7 and pretrain size 224 (SWINT_OGC, shrunk).
TINY_SWINT = grounding_dino_config.GroundingDinoArch(
    **{**vars(TINY), "swin_window_size": 7, "swin_pretrain_image_size": 224})
WORDS = ("a", "red", "sphere", "ball", "person", "wall", "room", "the", "dog", "car",
         "horse", "man", "##s")
CHECKPOINT = "groundingdino_tiny.pth"
BERT_DIR = "bert-base-uncased"


def _vocab():
    words = ["[PAD]"] + [f"[unused{i}]" for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]",
                                                                 "[MASK]"]
    for token, index in ((".", 1012), ("?", 1029)):
        words += [f"[unused{n}]" for n in range(len(words) - 4, index - 4)]
        words.append(token)
    return words + list(WORDS)


def write_bert_folder(folder) -> pathlib.Path:
    """<folder>/bert-base-uncased: config.json, vocab.txt, tokenizer_config.json."""
    out = pathlib.Path(folder) / BERT_DIR
    out.mkdir(parents=True, exist_ok=True)
    words = _vocab()
    (out / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    BertConfig(vocab_size=len(words), hidden_size=32, num_hidden_layers=2,
               num_attention_heads=2, intermediate_size=64).save_pretrained(str(out))
    (out / "tokenizer_config.json").write_text(json.dumps(
        {"do_lower_case": True, "tokenizer_class": "BertTokenizer"}), encoding="utf-8")
    return out


def write_checkpoint(folder, seed: int = 0, noise: float = 0.0,
                     arch: Optional[grounding_dino_config.GroundingDinoArch] = None):
    """Writes the BERT folder and <folder>/groundingdino_tiny.pth; returns both paths.

    Args:
        folder: Where to write.
        seed: Seeds the transformers initialisation and the noise.
        noise: Std of Gaussian noise added to every tensor (0 keeps the initialisation,
            whose zero biases and unit norms make many stages trivially equal).
        arch: The architecture (default TINY).
    """
    arch = arch or TINY
    bert = write_bert_folder(folder)
    torch.manual_seed(seed)
    model = GroundingDinoForObjectDetection(
        arch.to_transformers(BertConfig.from_pretrained(str(bert)))).eval()
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    if noise:
        generator = torch.Generator().manual_seed(seed + 1)
        shared = {}
        for key, tensor in state.items():
            if tensor.is_floating_point():
                ident = id(model.state_dict(keep_vars=True)[key])
                if ident not in shared:
                    shared[ident] = torch.randn(tensor.shape, generator=generator) * noise
                state[key] = tensor + shared[ident]
    official = grounding_dino_keys.to_official(state)
    path = pathlib.Path(folder) / CHECKPOINT
    torch.save({"model": official}, str(path))
    return path, bert


def write_bert_weights(bert_folder) -> None:
    """Random BERT weights into the folder, for code that calls `BertModel.from_pretrained`."""
    from transformers import BertModel  # pylint: disable=import-outside-toplevel
    torch.manual_seed(0)
    BertModel(BertConfig.from_pretrained(str(bert_folder))).save_pretrained(str(bert_folder))
