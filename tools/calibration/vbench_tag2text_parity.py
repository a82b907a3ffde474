"""VBench scene's Tag2Text captioner (`tag2text_swin_14m`) against the official code
(Vchitect/VBench @45e79ec = the vbench 0.1.5 wheel: vbench/third_party/tag2Text
`tag2text_caption(pretrained=..., image_size=384, vit="swin_b")` then
`model.generate(images, tag_input=None, return_tag_predict=True)` as vbench/scene.py
calls it, and utils.tag2text_transform(384)) on identical seeded random FULL-SIZE weights,
via the stored official run (vbench_tag2text_official.{npz,json}).

How the official numbers were made (outside the repository, 2026-12-08): a scratch
virtualenv with the vbench 0.1.5 wheel (--no-deps) plus transformers 4.33.2 (VBench's
pin; the med.py decoder needs it), timm 1.0.12, fairscale, the locked torch 2.14.1 /
numpy 2.4.1, CPU. The checkpoint is `tiny_tag2text.seeded_state_dict(Architecture(),
SEED, KNOBS)` saved as {"model": ...} (every official key, buffers included: the
official model's state_dict keys and the file's were the same set) and read by the
official `load_checkpoint_swinbase`. Two hub reads were pointed at local files and
nothing else changed: BertTokenizer.from_pretrained("bert-base-uncased") ->
BertTokenizer(vocab_file=<the synthetic vocabulary below>) (bert-base-uncased's
vocab.txt could not be fetched there), and med.BertModel.from_pretrained(
"bert-base-uncased", config=q2l_config) -> BertModel(q2l_config) (its weights are
replaced by the checkpoint anyway). Hooks recorded the fc output (tag logits) and the
text decoder's generate output (ids, and sequences_scores from
return_dict_in_generate=True, which changes no token). Numbers only are kept.

Inputs: `synthetic_frames(FRAMES)`, 384x384 RGB (the size upstream's decord read gives),
so the transform's resize is the identity on both sides; the decode itself is compared
by //benchmarks/vbench/dimensions:scene_test against decord.

Text is compared exactly: token ids equal element for element, tags and captions equal
as strings; the beam scores are compared as numbers. Random weights make beam search
fragile on near-ties; on a flip the ids differ from the flip on, and the test prints
both sides' winning beam scores.
"""

import functools
import hashlib
import json
import pathlib
import re
import tempfile
from typing import Dict, List

import numpy as np
import torch

from benchmarks.common import paths
from benchmarks.vbench.dimensions import scene
from metrics.tag2text import captioner
from metrics.tag2text import loader
from metrics.tag2text import model as model_lib
from metrics.tag2text import tiny_tag2text as tiny
from tools.calibration import parity_table
from tools.calibration import vbench_weights

BACKEND = "tag2text_swin_14m"
TEST = "//tools/calibration:vbench_tag2text_parity_test"
NPZ = "tools/calibration/vbench_tag2text_official.npz"
JSON = "tools/calibration/vbench_tag2text_official.json"
VBENCH_COMMIT = "45e79ec14e69a2187202c675d2dbce1a71843d53"
REFERENCE = ("Vchitect/VBench @45e79ec (vbench 0.1.5) third_party/tag2Text "
             "tag2text_caption(image_size=384, vit='swin_b').generate(tag_input=None) and "
             "utils.tag2text_transform(384), transformers 4.33.2, torch 2.14.1 CPU, run "
             "outside the repository; numbers in tools/calibration/vbench_tag2text_official."
             "{npz,json}")
SEED = 0
KNOBS = tiny.Knobs(tag_bias=-2.0, forced_tags=(127,), decoder_std=0.3, eos_bias=25.0)
FRAMES = 2


def provenance() -> dict:
    data = json.loads(paths.runfile(JSON).read_text(encoding="utf-8"))
    if VBENCH_COMMIT not in data["upstream"]["vbench"]:
        raise ValueError(f"{JSON} is of {data['upstream']['vbench']}, not {VBENCH_COMMIT}")
    return data


def arrays() -> Dict[str, np.ndarray]:
    with np.load(paths.runfile(NPZ)) as data:
        return {k: data[k] for k in data.files}


def synthetic_frames(count: int, size: int = 384, seed: int = 7) -> np.ndarray:
    """uint8 (count, size, size, 3) RGB: per frame a smooth colour field (6 seeded plane
    waves per channel) and a disc of a seeded colour; frame i is the same for any count."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64) / size
    out = np.zeros((count, size, size, 3), np.uint8)
    for f in range(count):
        img = np.zeros((size, size, 3))
        for c in range(3):
            for _ in range(6):
                fx, fy = rng.uniform(-6, 6), rng.uniform(-6, 6)
                phase = rng.uniform(0, 2 * np.pi)
                img[..., c] += np.sin(2 * np.pi * (fx * xx + fy * yy) + phase)
        img = 127.5 + 20.0 * img
        cx, cy, r = rng.uniform(0.2, 0.8, 2).tolist() + [rng.uniform(0.08, 0.25)]
        img[(xx - cx) ** 2 + (yy - cy) ** 2 < r ** 2] = rng.uniform(0, 255, 3)
        out[f] = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    return out


def synthetic_vocab(tag_names: List[str]) -> List[str]:
    """A 30522-entry bert-style vocabulary: bert-base-uncased's special ids ([PAD] 0,
    [unused0-98], [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103), the prompt's words, the
    tag list's words and punctuation, a few suffix pieces, then fillers "word<i>"."""
    specials = (["[PAD]"] + [f"[unused{i}]" for i in range(99)]
                + ["[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    words: List[str] = []
    seen = set(specials)
    candidates = ["a", "picture", "of", ".", ",", "'", "s", "|", "-", "&"]
    for name in tag_names:
        candidates += re.findall(r"[a-z0-9]+|[^a-z0-9\s]", name.lower())
    candidates += ["##s", "##ing", "##ed", "##er", "##ly"]
    for word in candidates:
        if word not in seen:
            seen.add(word)
            words.append(word)
    i = 0
    while len(specials) + len(words) < 30522:
        if f"word{i}" not in seen:
            words.append(f"word{i}")
        i += 1
    return specials + words


@functools.lru_cache(maxsize=1)
def load() -> loader.Loaded:
    """The seeded full-size file and vocabulary, written and read by loader.load."""
    spec = provenance()
    state = tiny.seeded_state_dict(model_lib.Architecture(), SEED, KNOBS)
    if vbench_weights.fingerprint({k: v.numpy() for k, v in state.items()}) != \
            spec["weights_fingerprint"]:
        raise ValueError(f"{JSON} was made with other Tag2Text weights: stale")
    vocab = "\n".join(synthetic_vocab(loader.tag_names())) + "\n"
    if hashlib.sha256(vocab.encode()).hexdigest() != spec["vocab_sha256"]:
        raise ValueError(f"{JSON} was made with another vocabulary: stale")
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "tag2text_swin_14m.pth"
        torch.save({"model": state}, str(path))
        del state
        (pathlib.Path(tmp) / "vocab.txt").write_text(vocab, encoding="utf-8")
        return loader.load(path, pathlib.Path(tmp) / "vocab.txt", torch.device("cpu"))


def frames() -> np.ndarray:
    out = synthetic_frames(FRAMES)
    if hashlib.sha256(out.tobytes()).hexdigest() != provenance()["frames_sha256"]:
        raise ValueError(f"{JSON} was made on other frames: stale")
    return out


def run() -> List[parity_table.Row]:
    """The three rows (what write_parity_table collects)."""
    return compare()[0]


def compare() -> tuple:
    """(rows, ours: captioner.Captions, official arrays, provenance)."""
    spec, official, model = provenance(), arrays(), load()
    pixels = scene.pixel_values(frames())
    out = captioner.caption(model.model, model.tokenizer, model.tag_names, pixels)
    flat = pixels.numpy().reshape(len(pixels), -1)
    common = dict(test=TEST, reference=REFERENCE, inputs=(
        f"{FRAMES} synthetic 384x384 RGB frames (vbench_tag2text_parity.synthetic_frames, "
        "seed 7) in one generate call, as scene.py batches a video's frames"),
        weights=(f"random full-size Tag2Text Swin-B 384 (seed {SEED}, "
                 f"metrics.tag2text.tiny_tag2text.seeded_state_dict, {KNOBS}) in the "
                 "official file format {'model': ...}; a synthetic 30522-word vocabulary "
                 "(synthetic_vocab) with bert-base-uncased's special ids"))
    rows = [
        parity_table.compare(
            BACKEND, "preprocess",
            [flat[:, official["input_index"]], flat.astype(np.float64).mean(1),
             np.sqrt((flat.astype(np.float64) ** 2).mean(1))],
            [official["input_values"], official["input_mean"], official["input_rms"]],
            compared="scene.pixel_values (tag2text_transform(384): / 255, ImageNet "
            "normalisation) vs the official transform's tensor: 256 seeded elements, mean "
            "and RMS per frame", **common),
        parity_table.compare(
            BACKEND, "features", out.tag_logits.numpy(), official["tag_logits"],
            compared="the tag head's logits (Swin-B tokens -> 2 mlr layers -> "
            "GroupWiseLinear), every element of frames x 3429", **common),
        parity_table.compare(
            BACKEND, "score", [out.token_ids.numpy().astype(np.float64),
                               np.array(out.scores, dtype=np.float32)],
            [official["token_ids"].astype(np.float64), official["sequences_scores"]],
            compared="beam search's token ids (3 beams, lengths 10-30, prompt included) "
            "and winning beam scores (sum log-prob / length, float32 as generate stores "
            "them) vs generate's sequences and sequences_scores; tags and captions are "
            "asserted equal as strings", **common)]
    return rows, out, official, spec
