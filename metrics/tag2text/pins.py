"""The pinned files of Tag2Text's captioner (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# Tag2Text Swin-B, 14M-image pretraining, the file VBench downloads for `scene`
# (Vchitect/VBench@45e79ec vbench/utils.py:345-353: wget of this URL into
# $VBENCH_CACHE_DIR/caption_model/). It sits in the Hugging Face *Space*
# xinyu1205/recognize-anything (not a model repository), at `main`: VBench pins no
# revision and no digest, and none is recorded here (the hub could not be reached from
# the machine that wrote this; fill sha256 and size_bytes from the first download).
TAG2TEXT_SWIN_14M = resolver.CheckpointSpec(
    name="tag2text_swin_14m", filename="tag2text_swin_14m.pth",
    url="https://huggingface.co/spaces/xinyu1205/recognize-anything/resolve/main/"
    "tag2text_swin_14m.pth",
    license="Apache-2.0 (xinyu1205/recognize-anything)")

# init_tokenizer: BertTokenizer.from_pretrained("bert-base-uncased"), vocab.txt only; the
# same revision and digest as the other bert-base-uncased pins (metrics/detection/pins.py,
# metrics/imagereward/reward_model.py).
BERT_VOCAB = resolver.CheckpointSpec(
    name="bert_base_uncased", filename="vocab.txt", hf_repo="google-bert/bert-base-uncased",
    hf_revision="86b5e0934494bd15c9632b12f734a8a67f723594",
    sha256="07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    size_bytes=231_508, license="Apache-2.0")
