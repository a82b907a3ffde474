"""The pinned checkpoint of the UMT family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# UMT ViT-L/16 pre-trained on K710, fine-tuned on K710 then Kinetics-400, 16 frames at 224
# px: the file VBench downloads (vbench/utils.py:256-260) from
# https://huggingface.co/OpenGVLab/VBench_Used_Models/resolve/main/l16_ptk710_ftk710_ftk400_f16_res224.pth
# No digest is published with it (third parties report 607,024,201 bytes, sha256
# bfee78a03bf806fbc0c216309e8f92792011b7db6556fa860e9d869c1e69fecd; not verified here).
UMT_L16_K400 = resolver.CheckpointSpec(
    name="umt_l16_ptk710_ftk710_ftk400", filename="l16_ptk710_ftk710_ftk400_f16_res224.pth",
    hf_repo="OpenGVLab/VBench_Used_Models",
    license="MIT (OpenGVLab/unmasked_teacher; not verified offline)")
