// Launchers of the metrics/slam CUDA kernels: plain CUDA C++ on raw contiguous arrays, so the
// .cu files compile without torch headers. Storage as in metrics/slam/se3.py: a group element
// is [tx, ty, tz, qx, qy, qz, qw], a tangent vector [tau, phi]. `n` counts elements.
// `device`: the pointers are CUDA memory and the work is launched on stream `s`; otherwise
// they are host memory and the same per-element code runs on the CPU (used by the tests).
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace slam {

template <typename T> void se3_exp(const T* xi, T* g, int64_t n, bool device, cudaStream_t s);
template <typename T> void se3_log(const T* g, T* xi, int64_t n, bool device, cudaStream_t s);
template <typename T> void se3_inv(const T* g, T* out, int64_t n, bool device, cudaStream_t s);
template <typename T> void se3_mul(const T* a, const T* b, T* out, int64_t n, bool device, cudaStream_t s);
// p holds n points of size dim (3, or 4 for homogeneous points).
template <typename T> void se3_act(const T* g, const T* p, T* out, int64_t n, int dim, bool device, cudaStream_t s);
// Adj_g a, or Adj_g^T a with transpose.
template <typename T> void se3_adj(const T* g, const T* a, T* out, int64_t n, bool transpose, bool device, cudaStream_t s);

// volume [n, h1, w1, h2, w2], coords [n, 2, h1, w1] -> out [n, 2r+1, 2r+1, h1, w1].
template <typename T>
void corr_lookup(const T* volume, const T* coords, T* out, int n, int h1, int w1, int h2, int w2, int r,
                 bool device, cudaStream_t s);

// The dense-BA linearisation of metrics/slam/ba.py edge_terms: poses [N, 7], disps [N, ht, wd],
// intrinsics [4], targets / weights [E, 2, ht, wd], ii / jj [E]; outputs H [4, E, 6, 6],
// v [2, E, 6], Eii / Eij [E, 6, ht*wd], C / bz [E, ht*wd], r [E, 2, ht*wd] (all written).
template <typename T>
void ba_edge_terms(const T* poses, const T* disps, const T* intrinsics, const T* targets, const T* weights,
                   const int64_t* ii, const int64_t* jj, int num_edges, int ht, int wd, T* H, T* v, T* Eii,
                   T* Eij, T* C, T* bz, T* r, bool device, cudaStream_t s);

// metrics/slam/distance.py frame_distance: out [E].
template <typename T>
void frame_distance(const T* poses, const T* disps, const T* intrinsics, const int64_t* ii, const int64_t* jj,
                    T beta, int num_edges, int ht, int wd, T* out, bool device, cudaStream_t s);

}  // namespace slam
