"""Loading a Q-Align (mPLUG-Owl2) Hugging Face snapshot unchanged.

`load_qalign(snapshot_dir, device, dtype=None, config=None)` reads, from the snapshot:
  - config.json (the architecture; `config` overrides it, for tests);
  - the weights: a sharded `model.safetensors.index.json` / `pytorch_model.bin.index.json`
    (its weight_map names the shard of every tensor) or a single `model.safetensors` /
    `pytorch_model.bin`; tensors keep their official names and are loaded strictly;
  - tokenizer.model + tokenizer_config.json (tokenizer.py) and preprocessor_config.json
    (preprocess.py).
The only tolerated differences from the model's state dict, both values the official
code computes the same way: `...rotary_emb.inv_freq` tensors written by older
transformers (ignored; recomputed) and the abstractor's fixed sine-cosine tables when a
file does not hold them (computed as the official constructor does; held ones are
loaded, as from_pretrained does). Anything else missing, unexpected or of another shape
raises, naming the file.

dtype: float16 on CUDA (as the official loader), float32 on CPU, unless named
("float16", "bfloat16", "float32" or a torch dtype). The model is built on the meta
device and every tensor is converted as its shard is read, so memory holds one copy of
the weights.
"""

import dataclasses
import json
import pathlib
from typing import Dict, Optional, Tuple

import torch

from metrics.checkpoints import state_dict
from metrics.qalign import config as config_lib
from metrics.qalign import llama_multiway
from metrics.qalign import model as model_lib
from metrics.qalign import preprocess as preprocess_lib
from metrics.qalign import tokenizer as tokenizer_lib

INDEX_FILES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
SINGLE_FILES = ("model.safetensors", "pytorch_model.bin")
IGNORED_SUFFIX = "rotary_emb.inv_freq"
COMPUTED_SUFFIXES = ("attention.q_pos_embed", "attention.k_pos_embed")
DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


@dataclasses.dataclass
class LoadedQAlign:
    model: model_lib.QAlignModel
    tokenizer: tokenizer_lib.LlamaSentencePiece
    preprocess: preprocess_lib.Preprocess
    device: torch.device
    dtype: torch.dtype
    ignored_keys: Tuple[str, ...] = ()
    computed_keys: Tuple[str, ...] = ()


def resolve_dtype(dtype, device: torch.device) -> torch.dtype:
    if dtype is None:
        return torch.float16 if device.type == "cuda" else torch.float32
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype not in DTYPES:
        raise ValueError(f"dtype {dtype!r}: expected one of {sorted(DTYPES)}")
    return DTYPES[dtype]


def read_config(snapshot_dir) -> config_lib.QAlignConfig:
    path = pathlib.Path(snapshot_dir) / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist: expected a Q-Align (mPLUG-Owl2) "
                                f"Hugging Face snapshot")
    try:
        return config_lib.from_dict(json.loads(path.read_text()))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from error


def weight_files(snapshot_dir) -> Dict[pathlib.Path, Tuple[str, ...]]:
    """{file: the tensor names it holds (empty: all of them)}."""
    root = pathlib.Path(snapshot_dir)
    for name in INDEX_FILES:
        index = root / name
        if index.is_file():
            weight_map = json.loads(index.read_text()).get("weight_map")
            if not isinstance(weight_map, dict) or not weight_map:
                raise ValueError(f"{index}: expected a 'weight_map' of tensor -> shard")
            files: Dict[pathlib.Path, list] = {}
            for key, shard in weight_map.items():
                files.setdefault(root / shard, []).append(key)
            for path in files:
                if not path.is_file():
                    raise FileNotFoundError(f"{path} (named by {index}) does not exist")
            return {path: tuple(keys) for path, keys in files.items()}
    for name in SINGLE_FILES:
        if (root / name).is_file():
            return {root / name: ()}
    raise FileNotFoundError(f"{root}: no weights found (expected one of "
                            f"{', '.join(INDEX_FILES + SINGLE_FILES)})")


def _read(path: pathlib.Path):
    """(name, tensor) pairs of one weight file, read one tensor at a time."""
    if path.suffix == ".safetensors":
        from safetensors import safe_open  # pylint: disable=import-outside-toplevel
        try:
            handle = safe_open(str(path), framework="pt")
        except Exception as error:  # not a safetensors file
            raise ValueError(f"{path}: expected a safetensors file: {error}") from error
        return ((key, handle.get_tensor(key)) for key in handle.keys())
    state = state_dict.load(path, mmap=True, unreadable="expected a torch.save'd state dict")
    return iter(state.items())


def load_weights(model: torch.nn.Module, snapshot_dir, device, dtype):
    """Strict load of every weight file into the meta-built model; returns
    (ignored keys, computed keys)."""
    expected = model.state_dict()
    seen, ignored = set(), []
    for path, _ in weight_files(snapshot_dir).items():
        batch = {}
        for key, tensor in _read(path):
            if key.endswith(IGNORED_SUFFIX):
                ignored.append(key)
                continue
            if key not in expected:
                raise ValueError(f"{path}: tensor {key!r} is not part of the mPLUG-Owl2 "
                                 f"model (is this a Q-Align one-align snapshot?)")
            if tuple(tensor.shape) != tuple(expected[key].shape):
                raise ValueError(f"{path}: tensor {key!r} has shape {tuple(tensor.shape)}, "
                                 f"the configured model {tuple(expected[key].shape)}")
            cast = dtype if tensor.is_floating_point() else tensor.dtype
            batch[key] = tensor.to(device=device, dtype=cast)
            seen.add(key)
        model.load_state_dict(batch, strict=False, assign=True)
        del batch
    missing = sorted(set(expected) - seen)
    computed = [k for k in missing if k.endswith(COMPUTED_SUFFIXES)]
    if len(computed) != len(missing):
        absent = [k for k in missing if k not in computed]
        raise ValueError(f"{snapshot_dir}: the weights lack {len(absent)} tensors of the "
                         f"model, e.g. {absent[:3]}")
    return tuple(ignored), tuple(computed)


def load_qalign(snapshot_dir, device="cpu", dtype=None,
                config: Optional[config_lib.QAlignConfig] = None) -> LoadedQAlign:
    device = torch.device(device)
    dtype = resolve_dtype(dtype, device)
    cfg = config or read_config(snapshot_dir)
    tok = tokenizer_lib.load(snapshot_dir)
    prep = preprocess_lib.load(snapshot_dir)
    with torch.device("meta"):
        model = model_lib.QAlignModel(cfg)
    ignored, computed = load_weights(model, snapshot_dir, device, dtype)
    for name, buffer in list(model.named_buffers()):  # the computed sine-cosine tables
        if name in computed:
            owner = model.get_submodule(name.rsplit(".", 1)[0])
            owner.register_buffer(name.rsplit(".", 1)[1], buffer.to(device))
    with torch.device(device):
        model.model.rotary_emb = llama_multiway.rotary(llama_multiway.hf_llama_config(cfg))
    model.eval()
    return LoadedQAlign(model, tok, prep, device, dtype, ignored, computed)
