"""Pixel fidelity against the ground truth: PSNR/SSIM (weight-free) and, when its
weights resolve, LPIPS (AlexNet), over the O/H/R/ALL phases (spec §4.7)."""

from benchmarks.memobench import pixel_fidelity
from benchmarks.memobench.step1 import family
from metrics.video import frames as frames_lib

PHASES = ("O", "H", "R", "ALL")
PSNR_SSIM_IDS = tuple(f"GT_{p}_{m}" for p in PHASES for m in ("PSNR", "SSIM"))
LPIPS_IDS = tuple(f"GT_{p}_LPIPS" for p in PHASES)


class PixelFidelity(family.Family):
    """PSNR and SSIM always; LPIPS when `lpips_fn(gt_frames, gen_frames)` is given."""

    name = "pixel_fidelity"

    def __init__(self, backend, lpips_fn=None, lpips_backend=None, checkpoints=()):
        super().__init__(backend, checkpoints)
        self.lpips_fn = lpips_fn
        self.lpips_backend = lpips_backend
        self.metric_ids = PSNR_SSIM_IDS + (LPIPS_IDS if lpips_fn is not None else ())

    def backend_for(self, metric_id: str):
        return self.lpips_backend if metric_id in LPIPS_IDS else self.backend

    def checkpoints_for(self, metric_id: str):
        return tuple(self.checkpoints) if metric_id in LPIPS_IDS else ()

    def compute(self, ctx: family.ClipContext) -> family.FamilyResult:
        phases = pixel_fidelity.phase_definitions(
            ctx.h, ctx.r, len(ctx.frames), ctx.gt.h_gt, ctx.gt.r_gt, ctx.gt.gt_total)
        try:
            by_phase = pixel_fidelity.phase_fidelity(
                ctx.frames, ctx.gt.source, phases, lpips_fn=self.lpips_fn,
                read_gt=lambda _, indices, size: ctx.reference.at(indices, size))
        except (frames_lib.FrameInputError, ValueError) as e:
            # run_eval.py: anything raised here leaves every GT metric of the clip None.
            reason = f"GT comparison failed: {e}"
            return family.FamilyResult({}, {m: reason for m in self.metric_ids})
        columns = {f"GT_{phase}_{name}": value
                   for phase, values in by_phase.items() for name, value in values.items()}
        return family.FamilyResult(columns)
