"""The pinned checkpoints of the GroundingDINO detection family (the convention:
metrics/checkpoints)."""

from metrics.checkpoints import resolver

# Swin-T OGC, IDEA-Research's v0.1.0-alpha release file.
GROUNDING_DINO_SWINT_OGC = resolver.CheckpointSpec(
    name="groundingdino_swint_ogc", filename="groundingdino_swint_ogc.pth",
    url="https://github.com/IDEA-Research/GroundingDINO/releases/download/v0.1.0-alpha/"
    "groundingdino_swint_ogc.pth",
    sha256="3b3ca2563c77c69f651d7bd133e97139c186df06231157a64c507099c52bc799",
    size_bytes=693_997_677, license="Apache-2.0 (IDEA-Research/GroundingDINO)")

# bert-base-uncased's tokenizer and config: GroundingDINO's text encoder (one pin for
# every GroundingDINO); its BERT weights come inside each GroundingDINO checkpoint. Pinned
# to the revision whose vocab.txt has this sha256.
BERT_BASE_UNCASED = resolver.CheckpointSpec(
    name="bert_base_uncased_snapshot", filename="vocab.txt",
    hf_repo="google-bert/bert-base-uncased",
    hf_revision="86b5e0934494bd15c9632b12f734a8a67f723594", snapshot=True,
    sha256="07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    license="Apache-2.0")
