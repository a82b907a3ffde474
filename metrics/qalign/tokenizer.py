"""The LLaMA tokenizer of a Q-Align snapshot, as the official code uses it.

The official loader asks for `AutoTokenizer.from_pretrained(path, use_fast=False)`,
i.e. transformers' (4.36) slow LlamaTokenizer: the snapshot's sentencepiece model
(`tokenizer.model`) with tokenizer_config.json's `add_bos_token` (default true) and
`legacy` (default true). Re-implemented here on sentencepiece itself:
  - legacy: ids = [bos] + sp.encode(text);
  - non-legacy: the model is loaded with add_dummy_prefix off, the text is prefixed
    with "▁" (spaces kept as they are written), encoded after an "<unk>" prefix whose
    pieces are then dropped, so text that starts with a space keeps it.
Text holding a special token's string ("<s>", ...) is refused (the slow tokenizer
splits those out first; no prompt here has one).
`prompt_ids` is `tokenizer_image_token`: the prompt is split at "<|image|>", every
chunk is encoded (with its BOS), the first chunk keeps its BOS, the others lose it,
and IMAGE_TOKEN stands between them. `level_ids` is the second id of each level word
encoded alone (the official `[ids[1] for ids in tokenizer(words)]`).
"""

import json
import pathlib
from typing import List, Sequence

IMAGE_PLACEHOLDER = "<|image|>"
SPIECE_UNDERLINE = "\u2581"


class LlamaSentencePiece:
    def __init__(self, model_bytes: bytes, add_bos: bool = True, legacy: bool = True,
                 unk_token: str = "<unk>"):
        import sentencepiece  # pylint: disable=import-outside-toplevel
        self.add_bos, self.legacy, self.unk_token = add_bos, legacy, unk_token
        if not legacy:
            from sentencepiece import sentencepiece_model_pb2  # pylint: disable=import-outside-toplevel
            proto = sentencepiece_model_pb2.ModelProto()
            proto.ParseFromString(model_bytes)
            proto.normalizer_spec.add_dummy_prefix = False
            model_bytes = proto.SerializeToString()
        self.sp = sentencepiece.SentencePieceProcessor(model_proto=model_bytes)
        self.bos_id = self.sp.bos_id()
        self.unk_length = len(self.sp.encode(unk_token, out_type=str))

    def _pieces(self, text: str) -> List[str]:
        if self.legacy or not text:
            return self.sp.encode(text, out_type=str)
        text = SPIECE_UNDERLINE + text.replace(SPIECE_UNDERLINE, " ")
        pieces = self.sp.encode(self.unk_token + text, out_type=str)
        return pieces[self.unk_length:] if len(pieces) >= self.unk_length else pieces

    def encode(self, text: str) -> List[int]:
        special = [t for t in ("<s>", "</s>", self.unk_token) if t in text]
        if special:  # the slow tokenizer splits these out first; not needed here
            raise ValueError(f"text {text!r} holds the special token(s) {special}")
        ids = [self.sp.piece_to_id(piece) for piece in self._pieces(text)]
        return ([self.bos_id] if self.add_bos else []) + ids


def load(snapshot_dir) -> LlamaSentencePiece:
    root = pathlib.Path(snapshot_dir)
    model = root / "tokenizer.model"
    if not model.is_file():
        raise FileNotFoundError(f"{model} does not exist: expected the snapshot's LLaMA "
                                f"sentencepiece model (the official slow tokenizer)")
    settings = {}
    config_path = root / "tokenizer_config.json"
    if config_path.is_file():
        settings = json.loads(config_path.read_text())
    unk = settings.get("unk_token", "<unk>")
    if isinstance(unk, dict):  # an AddedToken written out
        unk = unk.get("content", "<unk>")
    legacy = settings.get("legacy")
    return LlamaSentencePiece(model.read_bytes(), add_bos=settings.get("add_bos_token", True),
                              legacy=True if legacy is None else bool(legacy), unk_token=unk)


def prompt_ids(prompt: str, tok: LlamaSentencePiece, image_token: int) -> List[int]:
    chunks = [tok.encode(chunk) if chunk else [] for chunk in prompt.split(IMAGE_PLACEHOLDER)]
    offset = 1 if chunks and chunks[0] and chunks[0][0] == tok.bos_id else 0
    ids = chunks[0][:offset]
    for index, chunk in enumerate(chunks):
        if index:  # the separator [image_token] * (offset + 1) also loses `offset` ids
            ids.extend([image_token])
        ids.extend(chunk[offset:])
    return ids


def level_ids(words: Sequence[str], tok: LlamaSentencePiece) -> List[int]:
    return [tok.encode(word)[1] for word in words]
