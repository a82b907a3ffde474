"""ViCLIP's caption tokens: OpenAI CLIP's BPE read from `bpe_simple_vocab_16e6.txt.gz`.

The official text path is ViCLIP's `SimpleTokenizer(bpe_path)` (OpenAI CLIP's
simple_tokenizer) then `tokenize(caption, context_length=32)`. The repository has no
tokenizer that reads that file (CLIP-IQA+ hard-codes its prompt ids, SAM-3 and CLIPScore
read a Hugging Face snapshot's tokenizer files), so this module builds transformers'
`CLIPTokenizer` (the tokenizers BPE with CLIP's normaliser and split pattern) from the
official vocabulary file, the same table the official tokenizer builds:
* vocab: the 256 byte symbols (GPT-2's byte-to-unicode order), the same with "</w>", one
  token per merge (the merge's two halves joined), then <|startoftext|> (49406) and
  <|endoftext|> (49407): 49408 ids;
* merges: lines 1 .. 48894 of the file (line 0 is a version header).
Text clean-up before BPE, as the official one: `ftfy.fix_text` (repairs mis-decoded text,
mojibake, and some unicode forms; plain captions are unchanged by it), html.unescape
twice, whitespace runs to one space, strip, lower case (CLIPTokenizer lower-cases and
NFC-normalises).
Context: metrics/viclip/inputs.context_tokens (32 tokens, eot kept last, zero padding).
"""

import functools
import gzip
import html
import os
import re
from typing import List

import ftfy
from transformers import CLIPTokenizer
from transformers.convert_slow_tokenizer import bytes_to_unicode

from metrics.viclip import inputs

NUM_MERGES = 49152 - 256 - 2   # the official `merges[1:49152-256-2+1]`
SOT, EOT = "<|startoftext|>", "<|endoftext|>"


def read_bpe(path: os.PathLike):
    """(vocab dict, merges list of pairs) of a CLIP `bpe_simple_vocab_16e6.txt.gz`.

    The official file gives 49408 ids; a shorter file (tiny tests) gives fewer, and the
    caller checks the count against its model's vocabulary.

    Raises:
        ValueError: Not a gzip text file with the expected number of merges.
    """
    try:
        with gzip.open(str(path), "rt", encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a gzipped CLIP BPE vocabulary ({e})") from e
    merges = [tuple(line.split()) for line in lines[1:NUM_MERGES + 1] if line]
    if not merges or any(len(m) != 2 for m in merges):
        raise ValueError(f"{path}: expected merge lines of two symbols after the header")
    symbols = list(bytes_to_unicode().values())
    tokens = symbols + [s + "</w>" for s in symbols] + ["".join(m) for m in merges] + [SOT, EOT]
    return {token: i for i, token in enumerate(tokens)}, merges


@functools.lru_cache(maxsize=4)
def load_tokenizer(path: str) -> CLIPTokenizer:
    """CLIPTokenizer over the official BPE file at `path` (module doc)."""
    vocab, merges = read_bpe(path)
    return CLIPTokenizer(vocab=vocab, merges=merges)


def clean(text: str) -> str:
    """The official basic_clean + whitespace_clean (module doc)."""
    text = html.unescape(html.unescape(ftfy.fix_text(text))).strip()
    return re.sub(r"\s+", " ", text).strip()


def bpe_ids(tokenizer: CLIPTokenizer, text: str) -> List[int]:
    """The caption's BPE ids, without sot/eot."""
    return list(tokenizer(clean(text), add_special_tokens=False)["input_ids"])


def caption_tokens(tokenizer: CLIPTokenizer, text: str,
                   context_length: int = inputs.CONTEXT_LENGTH) -> List[int]:
    """ViCLIP's `tokenize(text, context_length=32)` row: sot, BPE, eot, zero padding."""
    return inputs.context_tokens(bpe_ids(tokenizer, text), tokenizer.convert_tokens_to_ids(SOT),
                                 tokenizer.convert_tokens_to_ids(EOT), context_length)
