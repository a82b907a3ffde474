// Python bindings of metrics/slam's CUDA kernels (torch tensors in, torch tensors out).
// Inputs must be contiguous CUDA tensors of one floating dtype; broadcasting is done by the
// Python wrapper (metrics/slam/cuda/backend.py).
// Lighter than torch/extension.h (which pulls in the whole C++ frontend): ATen for tensors,
// torch's pybind11 header for the Tensor <-> Python conversions.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/utils/pybind.h>

#include <optional>
#include <vector>

#include "metrics/slam/cuda/kernels.h"

namespace {

void check(const at::Tensor& x, const char* name, int64_t last) {
  TORCH_CHECK(x.is_cuda() || x.is_cpu(), name, " must be a CUDA (or, for tests, CPU) tensor");
  TORCH_CHECK(x.is_contiguous(), name, " must be contiguous");
  TORCH_CHECK(last < 0 || (x.dim() > 0 && x.size(-1) == last), name, " must have last dimension ", last);
}

// CUDA tensors run the kernels on the current stream; CPU tensors run the same code on the host.
cudaStream_t stream(const at::Tensor& x) {
  return x.is_cuda() ? static_cast<cudaStream_t>(c10::cuda::getCurrentCUDAStream()) : nullptr;
}

// The CUDA device of x (so the launch happens there), none for CPU tensors.
std::optional<c10::Device> cuda_device(const at::Tensor& x) {
  return x.is_cuda() ? std::optional<c10::Device>(x.device()) : std::nullopt;
}

// After a launch on CUDA tensors: surfaces launch errors (bad configuration, no kernel image).
void launched(const at::Tensor& x) {
  if (x.is_cuda()) C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void same_device(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.device() == b.device(), "all inputs must be on one device");
  TORCH_CHECK(a.scalar_type() == b.scalar_type() || b.scalar_type() == at::ScalarType::Long, "inputs must share a dtype");
}

at::Tensor with_last(const at::Tensor& x, int64_t last) {
  auto sizes = x.sizes().vec();
  sizes.back() = last;
  return at::empty(sizes, x.options());
}

at::Tensor se3_exp(at::Tensor xi) {
  check(xi, "xi", 6);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(xi));
  auto out = with_last(xi, 7);
  AT_DISPATCH_FLOATING_TYPES(xi.scalar_type(), "se3_exp", [&] {
    slam::se3_exp<scalar_t>(xi.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), xi.numel() / 6, xi.is_cuda(), stream(xi));
  });
  launched(xi);
  return out;
}

at::Tensor se3_log(at::Tensor g) {
  check(g, "g", 7);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(g));
  auto out = with_last(g, 6);
  AT_DISPATCH_FLOATING_TYPES(g.scalar_type(), "se3_log", [&] {
    slam::se3_log<scalar_t>(g.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), g.numel() / 7, g.is_cuda(), stream(g));
  });
  launched(g);
  return out;
}

at::Tensor se3_inv(at::Tensor g) {
  check(g, "g", 7);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(g));
  auto out = at::empty_like(g);
  AT_DISPATCH_FLOATING_TYPES(g.scalar_type(), "se3_inv", [&] {
    slam::se3_inv<scalar_t>(g.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), g.numel() / 7, g.is_cuda(), stream(g));
  });
  launched(g);
  return out;
}

at::Tensor se3_mul(at::Tensor a, at::Tensor b) {
  check(a, "a", 7);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(a));
  check(b, "b", 7);
  TORCH_CHECK(a.sizes() == b.sizes(), "a and b must have the same shape");
  same_device(a, b);
  auto out = at::empty_like(a);
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "se3_mul", [&] {
    slam::se3_mul<scalar_t>(a.data_ptr<scalar_t>(), b.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                            a.numel() / 7, a.is_cuda(), stream(a));
  });
  launched(a);
  return out;
}

at::Tensor se3_act(at::Tensor g, at::Tensor p) {
  check(g, "g", 7);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(g));
  check(p, "p", -1);
  const int64_t dim = p.size(-1);
  TORCH_CHECK(dim == 3 || dim == 4, "points must have 3 or 4 coordinates");
  same_device(g, p);
  TORCH_CHECK(g.numel() / 7 == p.numel() / dim, "g and p must hold as many elements");
  auto out = at::empty_like(p);
  AT_DISPATCH_FLOATING_TYPES(g.scalar_type(), "se3_act", [&] {
    slam::se3_act<scalar_t>(g.data_ptr<scalar_t>(), p.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                            g.numel() / 7, static_cast<int>(dim), g.is_cuda(), stream(g));
  });
  launched(g);
  return out;
}

at::Tensor se3_adj(at::Tensor g, at::Tensor a, bool transpose) {
  check(g, "g", 7);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(g));
  check(a, "a", 6);
  TORCH_CHECK(g.numel() / 7 == a.numel() / 6, "g and a must hold as many elements");
  same_device(g, a);
  auto out = at::empty_like(a);
  AT_DISPATCH_FLOATING_TYPES(g.scalar_type(), "se3_adj", [&] {
    slam::se3_adj<scalar_t>(g.data_ptr<scalar_t>(), a.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                            g.numel() / 7, transpose, g.is_cuda(), stream(g));
  });
  launched(g);
  return out;
}

at::Tensor lookup(at::Tensor volume, at::Tensor coords, int64_t radius) {
  check(volume, "volume", -1);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(volume));
  check(coords, "coords", -1);
  TORCH_CHECK(volume.dim() == 5 && coords.dim() == 4 && coords.size(1) == 2, "volume [n,h1,w1,h2,w2], coords [n,2,h1,w1]");
  same_device(volume, coords);
  const int64_t n = volume.size(0), h1 = volume.size(1), w1 = volume.size(2);
  const int64_t rd = 2 * radius + 1;
  auto out = at::empty({n, rd, rd, h1, w1}, volume.options());
  AT_DISPATCH_FLOATING_TYPES(volume.scalar_type(), "corr_lookup", [&] {
    slam::corr_lookup<scalar_t>(volume.data_ptr<scalar_t>(), coords.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                                n, h1, w1, volume.size(3), volume.size(4), radius, volume.is_cuda(), stream(volume));
  });
  launched(volume);
  return out;
}

std::vector<at::Tensor> edge_terms(at::Tensor poses, at::Tensor disps, at::Tensor intrinsics,
                                         at::Tensor targets, at::Tensor weights, at::Tensor ii,
                                         at::Tensor jj) {
  check(poses, "poses", 7);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(poses));
  check(disps, "disps", -1);
  check(intrinsics, "intrinsics", 4);
  check(targets, "targets", -1);
  check(weights, "weights", -1);
  check(ii, "ii", -1);
  check(jj, "jj", -1);
  TORCH_CHECK(ii.scalar_type() == at::ScalarType::Long && jj.scalar_type() == at::ScalarType::Long, "ii, jj must be int64");
  for (const auto& x : {disps, intrinsics, targets, weights, ii, jj}) same_device(poses, x);
  const int64_t e = ii.size(0), ht = disps.size(1), wd = disps.size(2), hw = ht * wd;
  auto o = poses.options();
  auto H = at::empty({4, e, 6, 6}, o);
  auto v = at::empty({2, e, 6}, o);
  auto Eii = at::empty({e, 6, hw}, o);
  auto Eij = at::empty({e, 6, hw}, o);
  auto C = at::empty({e, hw}, o);
  auto bz = at::empty({e, hw}, o);
  auto r = at::empty({e, 2, hw}, o);
  AT_DISPATCH_FLOATING_TYPES(poses.scalar_type(), "ba_edge_terms", [&] {
    slam::ba_edge_terms<scalar_t>(poses.data_ptr<scalar_t>(), disps.data_ptr<scalar_t>(),
                                  intrinsics.data_ptr<scalar_t>(), targets.data_ptr<scalar_t>(),
                                  weights.data_ptr<scalar_t>(), ii.data_ptr<int64_t>(), jj.data_ptr<int64_t>(),
                                  e, ht, wd, H.data_ptr<scalar_t>(), v.data_ptr<scalar_t>(),
                                  Eii.data_ptr<scalar_t>(), Eij.data_ptr<scalar_t>(), C.data_ptr<scalar_t>(),
                                  bz.data_ptr<scalar_t>(), r.data_ptr<scalar_t>(), poses.is_cuda(), stream(poses));
  });
  launched(poses);
  return {H, v, Eii, Eij, C, bz, r};
}

at::Tensor distance(at::Tensor poses, at::Tensor disps, at::Tensor intrinsics, at::Tensor ii, at::Tensor jj,
                    double beta) {
  check(poses, "poses", 7);
  const c10::cuda::OptionalCUDAGuard guard(cuda_device(poses));
  check(disps, "disps", -1);
  check(intrinsics, "intrinsics", 4);
  check(ii, "ii", -1);
  check(jj, "jj", -1);
  TORCH_CHECK(ii.scalar_type() == at::ScalarType::Long && jj.scalar_type() == at::ScalarType::Long,
              "ii, jj must be int64");
  for (const auto& x : {disps, intrinsics, ii, jj}) same_device(poses, x);
  auto out = at::empty({ii.size(0)}, poses.options());
  AT_DISPATCH_FLOATING_TYPES(poses.scalar_type(), "frame_distance", [&] {
    slam::frame_distance<scalar_t>(poses.data_ptr<scalar_t>(), disps.data_ptr<scalar_t>(),
                                   intrinsics.data_ptr<scalar_t>(), ii.data_ptr<int64_t>(), jj.data_ptr<int64_t>(),
                                   static_cast<scalar_t>(beta), ii.size(0), disps.size(1), disps.size(2),
                                   out.data_ptr<scalar_t>(), poses.is_cuda(), stream(poses));
  });
  launched(poses);
  return out;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "metrics/slam CUDA kernels: SE3 group ops, correlation lookup, dense-BA linearisation";
  m.def("se3_exp", &se3_exp, "Exp of [..., 6] tangents");
  m.def("se3_log", &se3_log, "Log of [..., 7] elements");
  m.def("se3_inv", &se3_inv, "inverse");
  m.def("se3_mul", &se3_mul, "a * b (same shapes)");
  m.def("se3_act", &se3_act, "action on [..., 3] or [..., 4] points");
  m.def("se3_adj", &se3_adj, "Adj_g a, or Adj_g^T a with transpose");
  m.def("corr_lookup", &lookup, "bilinear window lookup");
  m.def("ba_edge_terms", &edge_terms, "per-edge dense-BA linearisation");
  m.def("frame_distance", &distance, "mean induced flow per frame pair");
}
