"""metrics/slam's CUDA kernels behind the same API as the PyTorch modules.

The extension `_slam_cuda` is built by Bazel with nvcc (//metrics/slam/cuda:slam_cuda_so);
where nvcc was absent, the build leaves `_slam_cuda.unavailable.txt` saying why. `module()`
returns the extension only where `torch.cuda.is_available()`; otherwise it raises
`CudaUnavailable` with the reason. Shapes broadcast as in `se3`. CUDA tensors run the kernels;
CPU tensors run the kernels' own per-element code on the host (slow; it lets machines without
a GPU check the kernels' arithmetic against the PyTorch modules).
"""

import importlib
import os

import torch

from metrics.slam import ba as ba_cpu

_NAME = "metrics.slam.cuda._slam_cuda"
_REASON_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_slam_cuda.unavailable.txt")


class CudaUnavailable(RuntimeError):
    """The CUDA path cannot run here; the message says why."""


def build_reason():
    """Why the extension was not built, or None when it was."""
    if os.path.exists(_REASON_FILE):
        with open(_REASON_FILE, encoding="utf-8") as f:
            return f.read().strip()
    return None


def load_extension():
    """Imports the compiled extension (needs no GPU: `import torch` loads its libraries first)."""
    reason = build_reason()
    if reason:
        raise CudaUnavailable(f"metrics/slam CUDA extension {reason}")
    return importlib.import_module(_NAME)


def unavailable_reason():
    """None where the CUDA path runs, else the reason."""
    if not torch.cuda.is_available():
        return "torch.cuda.is_available() is False (no CUDA device or driver)"
    try:
        load_extension()
    except (CudaUnavailable, ImportError) as e:
        return str(e)
    return None


def module():
    reason = unavailable_reason()
    if reason:
        raise CudaUnavailable(reason)
    return load_extension()


def _ext(x):
    return module() if x.is_cuda else load_extension()


def _bcast(a, b, da, db):
    lead = torch.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    return a.expand(lead + (da,)).contiguous(), b.expand(lead + (db,)).contiguous()


def exp(xi):
    return _ext(xi).se3_exp(xi.contiguous())


def log(g):
    return _ext(g).se3_log(g.contiguous())


def inv(g):
    return _ext(g).se3_inv(g.contiguous())


def mul(a, b):
    return _ext(a).se3_mul(*_bcast(a, b, 7, 7))


def act(g, p):
    return _ext(g).se3_act(*_bcast(g, p, 7, p.shape[-1]))


def adj(g, xi):
    return _ext(g).se3_adj(*_bcast(g, xi, 7, 6), False)


def adjT(g, a):  # noqa: N802 (lietorch's name)
    return _ext(g).se3_adj(*_bcast(g, a, 7, 6), True)


def retr(g, xi):
    return mul(exp(xi), g)


def lookup(volume, coords, radius):
    return _ext(volume).corr_lookup(volume.contiguous(), coords.contiguous(), int(radius))


def edge_terms(poses, disps, intrinsics, targets, weights, ii, jj):
    """The CUDA twin of `ba.edge_terms` (same dict)."""
    h, v, eii, eij, c, bz, r = _ext(poses).ba_edge_terms(
        poses.contiguous(), disps.contiguous(), intrinsics.contiguous(), targets.contiguous(),
        weights.contiguous(), ii.contiguous(), jj.contiguous())
    return {"H": h, "v": v, "Eii": eii, "Eij": eij, "C": c, "bz": bz, "r": r}


def frame_distance(poses, disps, intrinsics, ii, jj, beta):
    """The CUDA twin of `distance.frame_distance`."""
    return _ext(poses).frame_distance(poses.contiguous(), disps.contiguous(), intrinsics.contiguous(),
                                      ii.contiguous(), jj.contiguous(), float(beta))


def ba(*args, **kwargs):
    """`ba.ba` with the linearisation on the GPU (the Schur solve stays in PyTorch)."""
    return ba_cpu.ba(*args, linearize=edge_terms, **kwargs)
