"""Tag2Text's tokenizer: init_tokenizer() of Vchitect/VBench@45e79ec
vbench/third_party/tag2Text/tag2text.py, i.e. BertTokenizer("bert-base-uncased") plus
BLIP's two added special tokens, bos "[DEC]" (id = vocabulary size) and the additional
"[ENC]" (the next id), on transformers 4.33.2 (VBench's pin).

Encoding is transformers' Python BertTokenizerLegacy (4.x's BertTokenizer: basic
tokenization, lower case, accent stripping, WordPiece) on bert-base-uncased's vocab.txt
(pins.BERT_VOCAB). Decoding is written here as 4.33.2's `decode(ids,
skip_special_tokens=True)` does it: the special tokens ([PAD], [UNK], [CLS], [SEP],
[MASK], [DEC], [ENC]) dropped, the rest joined by spaces with " ##" removed, then
`clean_up_tokenization` (the tokenizer's default, clean_up_tokenization_spaces=True):
" ." -> ".", " ?" -> "?", " !" -> "!", " ," -> ",", " ' " -> "'", " n't" -> "n't",
" 'm" -> "'m", " 's" -> "'s", " 've" -> "'ve", " 're" -> "'re".
"""

import os
from typing import List, Sequence, Tuple

import torch
from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

BOS_TOKEN = "[DEC]"
ENC_TOKEN = "[ENC]"
_CLEAN_UP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
             (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


class Tokenizer:
    def __init__(self, vocab_path: os.PathLike):
        self._bert = BertTokenizerLegacy(vocab_file=str(vocab_path), do_lower_case=True)
        self._bert.add_special_tokens({"bos_token": BOS_TOKEN})
        self._bert.add_special_tokens({"additional_special_tokens": [ENC_TOKEN]})
        self.bos_token_id = self._bert.convert_tokens_to_ids(BOS_TOKEN)
        self.enc_token_id = self._bert.convert_tokens_to_ids(ENC_TOKEN)
        self.sep_token_id = self._bert.sep_token_id
        self.pad_token_id = self._bert.pad_token_id
        self._special = set(self._bert.all_special_ids) | {self.bos_token_id,
                                                           self.enc_token_id}
        self._tokens = {i: t for t, i in self._bert.vocab.items()}
        self._tokens.update({self.bos_token_id: BOS_TOKEN, self.enc_token_id: ENC_TOKEN})

    def __len__(self) -> int:
        return len(self._tokens)

    def encode_padded(self, texts: Sequence[str],
                      max_length: int) -> Tuple[torch.Tensor, torch.Tensor]:
        """(ids, attention mask), each (len(texts), max_length): "[CLS] ... [SEP]",
        truncated and padded to max_length (padding="max_length", truncation=True)."""
        out = self._bert(list(texts), padding="max_length", truncation=True,
                         max_length=max_length, return_tensors="pt")
        return out["input_ids"], out["attention_mask"]

    def prompt_ids(self, prompt: str) -> torch.Tensor:
        """(1, n): the prompt's "[CLS] ... [SEP]" with [DEC] for [CLS] and [SEP] dropped."""
        ids = self._bert(prompt)["input_ids"]
        return torch.tensor([[self.bos_token_id] + ids[1:-1]], dtype=torch.long)

    def decode(self, ids: Sequence[int]) -> str:
        tokens: List[str] = [self._tokens[i] for i in ids if i not in self._special]
        text = " ".join(tokens).replace(" ##", "").strip()
        for old, new in _CLEAN_UP:
            text = text.replace(old, new)
        return text
