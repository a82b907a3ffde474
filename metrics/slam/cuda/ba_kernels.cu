// Dense-BA linearisation per edge (metrics/slam/ba.py edge_terms) and the frame distance
// (metrics/slam/distance.py; one edge per thread). On the GPU one block per
// edge walks the pixels, writes the per-pixel depth terms and reduces the 12x12 pose Hessian
// and 12-vector gradient in shared memory; on the host the same functions run in a loop.
#include "kernels.h"
#include "lie.cuh"

namespace slam {
namespace {

constexpr int kThreads = 256;
constexpr double kMinDepth = 0.25;
constexpr double kWeightScale = 1e-3;

template <typename T> struct Edges {
  const T *poses, *disps, *intr, *targets, *weights;
  const int64_t *ii, *jj;
  int num, ht, wd;
  T *H, *v, *Eii, *Eij, *C, *bz, *r;
};

// G_j G_i^-1 unnormalised, as the official kernel; DROID's fixed baseline for stereo edges.
template <typename T> __host__ __device__ void edge_pose(const Edges<T>& a, int e, T* tij, T* qij) {
  const int64_t i = a.ii[e], j = a.jj[e];
  if (i == j) {
    tij[0] = T(-0.1); tij[1] = T(0); tij[2] = T(0);
    qij[0] = T(0); qij[1] = T(0); qij[2] = T(0); qij[3] = T(1);
    return;
  }
  relative_raw(a.poses + 7 * i, a.poses + 7 * j, tij, qij);
}

// One pixel k of edge e: writes C, bz, r, Eii, Eij there and adds to h (78, lower triangle
// of [Ji Jj]^T W [Ji Jj]) and g (12, [Ji Jj]^T W r).
template <typename T>
__host__ __device__ void edge_pixel(const Edges<T>& a, int e, int k, const T* tij, const T* qij, T* h, T* g) {
  const int hw = a.ht * a.wd;
  const bool stereo = a.ii[e] == a.jj[e];
  const T fx = a.intr[0], fy = a.intr[1], cx = a.intr[2], cy = a.intr[3];
  const T qinv[4] = {-qij[0], -qij[1], -qij[2], qij[3]};
  const T xi[3] = {(T(k % a.wd) - cx) / fx, (T(k / a.wd) - cy) / fy, T(1)};
  const T disp = a.disps[a.ii[e] * hw + k];
  T xj[3];
  quat_rotate(qij, xi, xj);
  for (int n = 0; n < 3; ++n) xj[n] += tij[n] * disp;
  const T x = xj[0], y = xj[1], z = xj[2];
  const bool behind = z < T(kMinDepth);
  const T d = behind ? T(0) : T(1) / z;
  const T d2 = d * d;
  const int64_t pk = int64_t(e) * hw + k;
  a.C[pk] = T(0);
  a.bz[pk] = T(0);
  for (int n = 0; n < 6; ++n) {
    a.Eii[(int64_t(e) * 6 + n) * hw + k] = T(0);
    a.Eij[(int64_t(e) * 6 + n) * hw + k] = T(0);
  }
  for (int c = 0; c < 2; ++c) {
    const int64_t pix = (int64_t(e) * 2 + c) * hw + k;
    const T w = behind ? T(0) : T(kWeightScale) * a.weights[pix];
    const T res = a.targets[pix] - (c == 0 ? fx * d * x + cx : fy * d * y + cy);
    T J[12];
    T* Ji = J;
    T* Jj = J + 6;
    if (c == 0) {
      const T row[6] = {disp * d, T(0), -x * disp * d2, -x * y * d2, T(1) + x * x * d2, -y * d};
      for (int n = 0; n < 6; ++n) Jj[n] = fx * row[n];
    } else {
      const T row[6] = {T(0), disp * d, -y * disp * d2, T(-1) - y * y * d2, x * y * d2, x * d};
      for (int n = 0; n < 6; ++n) Jj[n] = fy * row[n];
    }
    const T jz = c == 0 ? fx * (tij[0] * d - tij[2] * x * d2) : fy * (tij[1] * d - tij[2] * y * d2);
    // Ji = -Adj^T Jj = -[R^T a_tau, R^T (a_phi - t x a_tau)]
    T cr[3], dphi[3];
    quat_rotate(qinv, Jj, Ji);
    cross(tij, Jj, cr);
    for (int n = 0; n < 3; ++n) dphi[n] = Jj[3 + n] - cr[n];
    quat_rotate(qinv, dphi, Ji + 3);
    for (int n = 0; n < 6; ++n) Ji[n] = -Ji[n];
    a.C[pk] += w * jz * jz;
    a.bz[pk] += w * res * jz;
    a.r[pix] = w > T(0) ? res : T(0);
    const T wp = stereo ? T(0) : w;  // stereo edges carry no pose terms
    for (int n = 0; n < 6; ++n) {
      a.Eii[(int64_t(e) * 6 + n) * hw + k] += wp * jz * Ji[n];
      a.Eij[(int64_t(e) * 6 + n) * hw + k] += wp * jz * Jj[n];
    }
    int l = 0;
    for (int n = 0; n < 12; ++n) {
      g[n] += wp * res * J[n];
      for (int m = 0; m <= n; ++m) h[l++] += wp * J[n] * J[m];
    }
  }
}

// Stores the reduced entry (n >= m) of the 12x12 system into H's four 6x6 blocks
// (0 = ii-ii, 1 = ii-jj, 2 = jj-ii, 3 = jj-jj).
template <typename T> __host__ __device__ void store_h(const Edges<T>& a, int e, int n, int m, T s) {
  const int bn = n / 6, bm = m / 6, rn = n % 6, rm = m % 6;
  const int64_t E = a.num;
  if (bn == bm) {
    T* blk = a.H + ((bn == 0 ? 0 : 3) * E + e) * 36;
    blk[rn * 6 + rm] = s;
    blk[rm * 6 + rn] = s;
  } else {
    a.H[(1 * E + e) * 36 + rm * 6 + rn] = s;
    a.H[(2 * E + e) * 36 + rn * 6 + rm] = s;
  }
}

template <typename T> __device__ T block_sum(T x, T* sdata) {
  sdata[threadIdx.x] = x;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
    __syncthreads();
  }
  const T total = sdata[0];
  __syncthreads();
  return total;
}

template <typename T> __global__ void edge_kernel(Edges<T> a) {
  __shared__ T sdata[kThreads];
  const int e = blockIdx.x;
  T tij[3], qij[4], h[78], g[12];
  edge_pose(a, e, tij, qij);
  for (int l = 0; l < 78; ++l) h[l] = T(0);
  for (int n = 0; n < 12; ++n) g[n] = T(0);
  for (int k = threadIdx.x; k < a.ht * a.wd; k += blockDim.x) edge_pixel(a, e, k, tij, qij, h, g);
  int l = 0;
  for (int n = 0; n < 12; ++n) {
    for (int m = 0; m <= n; ++m, ++l) {
      const T s = block_sum(h[l], sdata);
      if (threadIdx.x == 0) store_h(a, e, n, m, s);
    }
  }
  for (int n = 0; n < 12; ++n) {
    const T s = block_sum(g[n], sdata);
    if (threadIdx.x == 0) a.v[(int64_t(n / 6) * a.num + e) * 6 + n % 6] = s;
  }
}

template <typename T> void edge_host(const Edges<T>& a) {
  for (int e = 0; e < a.num; ++e) {
    T tij[3], qij[4], h[78] = {}, g[12] = {};
    edge_pose(a, e, tij, qij);
    for (int k = 0; k < a.ht * a.wd; ++k) edge_pixel(a, e, k, tij, qij, h, g);
    int l = 0;
    for (int n = 0; n < 12; ++n) {
      for (int m = 0; m <= n; ++m, ++l) store_h(a, e, n, m, h[l]);
      a.v[(int64_t(n / 6) * a.num + e) * 6 + n % 6] = g[n];
    }
  }
}

template <typename T>
__host__ __device__ void distance_one(int e, const T* poses, const T* disps, const T* intr, const int64_t* ii,
                                      const int64_t* jj, T beta, int ht, int wd, T* out) {
  T tij[3], qij[4];
  relative_raw(poses + 7 * ii[e], poses + 7 * jj[e], tij, qij);
  const T fx = intr[0], fy = intr[1], cx = intr[2], cy = intr[3];
  T accum = 0, valid = 0, total = 0;
  for (int k = 0; k < ht * wd; ++k) {
    const T u = T(k % wd), v = T(k / wd);
    const T xi[3] = {(u - cx) / fx, (v - cy) / fy, T(1)};
    const T disp = disps[ii[e] * ht * wd + k];
    T full[3], trans[3];
    quat_rotate(qij, xi, full);
    for (int n = 0; n < 3; ++n) {
      full[n] += tij[n] * disp;
      trans[n] = xi[n] + tij[n] * disp;  // the translation alone
    }
    const T* pts[2] = {full, trans};
    const T ws[2] = {beta, T(1) - beta};
    for (int c = 0; c < 2; ++c) {
      const T* x = pts[c];
      total += ws[c];
      if (x[2] > T(kMinDepth)) {
        const T du = fx * (x[0] / x[2]) + cx - u, dv = fy * (x[1] / x[2]) + cy - v;
        accum += ws[c] * sqrt(du * du + dv * dv);
        valid += ws[c];
      }
    }
  }
  out[e] = (valid / (total + T(1e-8)) < T(0.75)) ? T(1000) : accum / valid;
}

}  // namespace

template <typename T>
void frame_distance(const T* poses, const T* disps, const T* intrinsics, const int64_t* ii, const int64_t* jj,
                    T beta, int num_edges, int ht, int wd, T* out, bool device, cudaStream_t s) {
  for_each(device, num_edges, s, [=] __host__ __device__(int64_t e) {
    distance_one(static_cast<int>(e), poses, disps, intrinsics, ii, jj, beta, ht, wd, out);
  });
}

template <typename T>
void ba_edge_terms(const T* poses, const T* disps, const T* intrinsics, const T* targets, const T* weights,
                   const int64_t* ii, const int64_t* jj, int num_edges, int ht, int wd, T* H, T* v, T* Eii,
                   T* Eij, T* C, T* bz, T* r, bool device, cudaStream_t s) {
  if (num_edges <= 0) return;
  const Edges<T> a{poses, disps, intrinsics, targets, weights, ii, jj, num_edges, ht, wd, H, v, Eii, Eij, C, bz, r};
  if (device) {
    edge_kernel<T><<<num_edges, kThreads, 0, s>>>(a);
  } else {
    edge_host(a);
  }
}

#define SLAM_INSTANTIATE(T)                                                                                \
  template void ba_edge_terms<T>(const T*, const T*, const T*, const T*, const T*, const int64_t*,       \
                                 const int64_t*, int, int, int, T*, T*, T*, T*, T*, T*, T*, bool, cudaStream_t); \
  template void frame_distance<T>(const T*, const T*, const T*, const int64_t*, const int64_t*, T, int, int, int, \
                                  T*, bool, cudaStream_t);
SLAM_INSTANTIATE(float)
SLAM_INSTANTIATE(double)
#undef SLAM_INSTANTIATE

}  // namespace slam
