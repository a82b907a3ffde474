"""The pinned checkpoints of the Q-Align family (the convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# Q-Align one-align, a whole Hugging Face snapshot. No revision or digest is known
# offline, so it stays at `main` unpinned (the trust gate reports it). The weights derive
# from LLaMA-2 (Q-Align's model_zoo README: its licence applies to commercial use); the
# Q-Align code is under the S-Lab License 1.0.
Q_ALIGN_ONE_ALIGN = resolver.CheckpointSpec(
    name="qalign_one_align", filename="config.json",
    hf_repo="q-future/one-align", snapshot=True,
    license="MIT (q-future/one-align model card, not verified offline); LLaMA-2 licence "
            "for commercial use",
    # 8,204,550,144 tensor elements in 16-bit (as 7B-class hub checkpoints are stored;
    # the official loader reads them as float16): an estimate, not the published size.
    approx_size_bytes=16_409_100_288)
