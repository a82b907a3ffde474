"""Checkpoint pins that more than one benchmark loads (a benchmark imports no other)."""

from metrics.checkpoints import resolver

# bert-base-uncased's tokenizer and config: GroundingDINO's text encoder (Swin-B for
# VMBench, Swin-T OGC for WorldScore); its BERT weights come inside each GroundingDINO
# checkpoint.
BERT_BASE_UNCASED = resolver.CheckpointSpec(
    name="bert_base_uncased_snapshot", filename="vocab.txt",
    hf_repo="google-bert/bert-base-uncased",
    hf_revision="86b5e0934494bd15c9632b12f734a8a67f723594", snapshot=True,
    sha256="07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    license="Apache-2.0")
