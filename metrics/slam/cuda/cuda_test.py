"""The CUDA extension against the PyTorch modules.

On every machine with nvcc: the module links and imports, and its kernels' per-element code,
run on the host for CPU tensors, equals the PyTorch implementation. With a GPU, the same
comparisons run the real kernels (within 1e-5); without one they skip and say why.
"""

import pytest
import torch

from metrics.slam import ba, corr, distance, se3
from metrics.slam.cuda import backend

FUNCTIONS = ("se3_exp", "se3_log", "se3_inv", "se3_mul", "se3_act", "se3_adj", "corr_lookup", "ba_edge_terms", "frame_distance")
BUILD = backend.build_reason()
NO_GPU = backend.unavailable_reason()
DEVICES = [
    pytest.param("cpu", marks=pytest.mark.skipif(BUILD is not None, reason=f"extension {BUILD}")),
    pytest.param("cuda", marks=pytest.mark.skipif(NO_GPU is not None, reason=f"needs a GPU: {NO_GPU}")),
]


def test_extension_links_and_exports_its_functions():
    if BUILD:
        pytest.skip(f"extension {BUILD}")
    ext = backend.load_extension()
    assert not [f for f in FUNCTIONS if not hasattr(ext, f)]
    with pytest.raises(RuntimeError, match="last dimension 6"):
        ext.se3_exp(torch.zeros(2, 7))


def test_module_refuses_without_cuda():
    if NO_GPU is None:
        pytest.skip("a GPU is present")
    with pytest.raises(backend.CudaUnavailable):
        backend.module()


@pytest.fixture(scope="module")
def data():
    gen = torch.Generator().manual_seed(5)
    xi = torch.randn(257, 6, generator=gen)
    xi[:, 3:] *= 0.8
    xi[:3] *= 1e-8  # the small-angle branches
    g = se3.exp(xi.double()).float()
    return {"xi": xi, "g": g, "h": se3.exp(torch.randn(257, 6, generator=gen)),
            "p3": torch.randn(257, 3, generator=gen), "p4": torch.randn(4, 1, 4, generator=gen),
            "a": torch.randn(257, 6, generator=gen)}


def _close(cpu, other, tol=1e-5):
    assert torch.allclose(other.cpu(), cpu, atol=tol, rtol=tol), float((other.cpu() - cpu).abs().max())


@pytest.mark.parametrize("device", DEVICES)
def test_se3_ops_match_pytorch(data, device):
    c = {k: v.to(device) for k, v in data.items()}
    _close(se3.exp(data["xi"]), backend.exp(c["xi"]))
    _close(se3.log(data["g"]), backend.log(c["g"]), tol=1e-4)
    _close(se3.inv(data["g"]), backend.inv(c["g"]))
    _close(se3.mul(data["g"], data["h"]), backend.mul(c["g"], c["h"]))
    _close(se3.act(data["g"], data["p3"]), backend.act(c["g"], c["p3"]))
    g4 = data["g"][:3]
    _close(se3.act(g4, data["p4"]), backend.act(g4.to(device), c["p4"]))  # broadcast [3] x [4, 1]
    _close(se3.adj(data["g"], data["a"]), backend.adj(c["g"], c["a"]))
    _close(se3.adjT(data["g"], data["a"]), backend.adjT(c["g"], c["a"]))
    xi64 = data["xi"].double()
    _close(xi64, backend.log(backend.exp(xi64.to(device))), tol=1e-10)


@pytest.mark.parametrize("device", DEVICES)
def test_lookup_matches_pytorch(device):
    gen = torch.Generator().manual_seed(6)
    volume = torch.randn(3, 5, 6, 7, 9, generator=gen)
    coords = torch.rand(3, 2, 5, 6, generator=gen) * torch.tensor([12.0, 10.0]).view(1, 2, 1, 1) - 2
    _close(corr.lookup(volume, coords, 3), backend.lookup(volume.to(device), coords.to(device), 3))


def _ba_problem():
    gen = torch.Generator().manual_seed(7)
    n, ht, wd = 4, 6, 8
    xi = 0.1 * torch.randn(n, 6, generator=gen)
    xi[0] = 0
    poses = se3.exp(xi)
    disps = 0.3 + 0.5 * torch.rand(n, ht, wd, generator=gen)
    disps[1, 0, :3] = -4.0  # points behind the camera: zero weight
    ii = torch.tensor([0, 1, 1, 2, 2, 3, 3, 0, 2])
    jj = torch.tensor([1, 0, 2, 1, 3, 2, 0, 3, 2])  # the last edge is a stereo edge
    targets = 8 * torch.rand(len(ii), 2, ht, wd, generator=gen)
    weights = torch.rand(len(ii), 2, ht, wd, generator=gen)
    intr = torch.tensor([10.0, 11.0, 3.5, 2.5])
    eta = torch.full((n, ht, wd), 1e-3)
    return poses, disps, intr, torch.zeros(n, ht, wd), targets, weights, eta, ii, jj


@pytest.mark.parametrize("device", DEVICES)
def test_edge_terms_match_pytorch(device):
    poses, disps, intr, _, targets, weights, _, ii, jj = _ba_problem()
    ref = ba.edge_terms(poses, disps, intr, targets, weights, ii, jj)
    got = backend.edge_terms(*(x.to(device) for x in (poses, disps, intr, targets, weights, ii, jj)))
    assert set(got) == set(ref)
    for key, value in ref.items():
        scale = float(value.abs().max()) or 1.0
        _close(value / scale, got[key] / scale)


@pytest.mark.parametrize("device", DEVICES)
def test_ba_step_matches_pytorch(device):
    args = _ba_problem()
    ref_args = [a.clone() for a in args]
    dev_args = [a.clone().to(device) for a in args]
    dx, dz = ba.ba(*ref_args, 1, 4, 2, 1e-4, 0.1)
    gdx, gdz = backend.ba(*dev_args, 1, 4, 2, 1e-4, 0.1)
    _close(dx, gdx, tol=1e-4)
    _close(dz, gdz, tol=1e-4)
    _close(ref_args[0], dev_args[0])
    _close(ref_args[1], dev_args[1], tol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_frame_distance_matches_pytorch(device):
    poses, disps, intr, *_ = _ba_problem()
    ii = torch.tensor([0, 1, 2, 3, 0, 1, 2])
    jj = torch.tensor([1, 2, 3, 0, 0, 3, 0])
    ref = distance.frame_distance(poses, disps, intr, ii, jj, 0.3)
    got = backend.frame_distance(*(x.to(device) for x in (poses, disps, intr, ii, jj)), 0.3)
    _close(ref, got)
