// Device-side quaternion and SE3 helpers shared by the kernels (lietorch's conventions).
#pragma once

#include <cmath>

#include <cuda_runtime.h>

namespace slam {

using std::atan;
using std::cos;
using std::fabs;
using std::floor;
using std::sin;
using std::sqrt;

// Runs op(i) for i < n: a grid-stride CUDA kernel, or a plain loop on the host (CPU tensors),
// so that the build test can check the kernels' arithmetic on machines without a GPU.
template <typename Op> __global__ void for_each_kernel(int64_t n, Op op) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    op(i);
  }
}

template <typename Op> void for_each(bool device, int64_t n, cudaStream_t s, Op op) {
  if (n <= 0) return;
  if (device) {
    const int threads = 256;
    for_each_kernel<<<static_cast<int>((n + threads - 1) / threads), threads, 0, s>>>(n, op);
  } else {
    for (int64_t i = 0; i < n; ++i) op(i);
  }
}

constexpr double kEps = 1e-6;  // lietorch's small-angle threshold
constexpr double kPi = 3.14159265358979323846;

template <typename T> __host__ __device__ __forceinline__ void cross(const T* a, const T* b, T* o) {
  T x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  o[0] = x; o[1] = y; o[2] = z;
}

// Eigen's unit-quaternion rotation: p + w * uv + v x uv with uv = 2 v x p.
template <typename T> __host__ __device__ __forceinline__ void quat_rotate(const T* q, const T* p, T* o) {
  T uv[3], vuv[3];
  cross(q, p, uv);
  for (int k = 0; k < 3; ++k) uv[k] *= T(2);
  cross(q, uv, vuv);
  for (int k = 0; k < 3; ++k) o[k] = p[k] + q[3] * uv[k] + vuv[k];
}

template <typename T> __host__ __device__ __forceinline__ void quat_mul(const T* a, const T* b, T* o) {
  T c[3];
  cross(a, b, c);
  T w = a[3] * b[3] - (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
  for (int k = 0; k < 3; ++k) o[k] = a[3] * b[k] + b[3] * a[k] + c[k];
  o[3] = w;
}

template <typename T> __host__ __device__ __forceinline__ void load_normalized(const T* g, T* t, T* q) {
  T nrm = sqrt(g[3] * g[3] + g[4] * g[4] + g[5] * g[5] + g[6] * g[6]);
  for (int k = 0; k < 3; ++k) t[k] = g[k];
  for (int k = 0; k < 4; ++k) q[k] = g[3 + k] / nrm;
}

template <typename T> __host__ __device__ __forceinline__ void so3_exp(const T* phi, T* q, T eps) {
  T theta2 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2];
  T theta = sqrt(theta2);
  T imag, real;
  if (theta < eps) {
    T theta4 = theta2 * theta2;
    imag = T(0.5) - theta2 / T(48) + theta4 / T(3840);
    real = T(1) - theta2 / T(8) + theta4 / T(384);
  } else {
    imag = sin(T(0.5) * theta) / theta;
    real = cos(T(0.5) * theta);
  }
  for (int k = 0; k < 3; ++k) q[k] = imag * phi[k];
  q[3] = real;
}

template <typename T> __host__ __device__ __forceinline__ void so3_log(const T* q, T* phi) {
  T n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2];
  T w = q[3];
  T f;
  if (n2 < T(kEps * kEps)) {
    f = T(2) / w - T(2.0 / 3.0) * n2 / (w * w * w);
  } else {
    T n = sqrt(n2);
    if (fabs(w) < T(kEps)) {
      f = (w > T(0) ? T(kPi) : -T(kPi)) / n;
    } else {
      f = T(2) * atan(n / w) / n;
    }
  }
  for (int k = 0; k < 3; ++k) phi[k] = f * q[k];
}

// o = (I + c1 Phi + c2 Phi^2) x, the coefficients chosen by the caller.
template <typename T> __host__ __device__ __forceinline__ void poly_apply(const T* phi, const T* x, T c1, T c2, T* o) {
  T a[3], b[3];
  cross(phi, x, a);
  cross(phi, a, b);
  for (int k = 0; k < 3; ++k) o[k] = x[k] + c1 * a[k] + c2 * b[k];
}

// G_j G_i^-1 of two stored poses, unnormalised (DROID's relSE3).
template <typename T>
__host__ __device__ __forceinline__ void relative_raw(const T* gi, const T* gj, T* tij, T* qij) {
  const T qi_inv[4] = {-gi[3], -gi[4], -gi[5], gi[6]};
  T rt[3];
  quat_mul(gj + 3, qi_inv, qij);
  quat_rotate(qij, gi, rt);
  for (int k = 0; k < 3; ++k) tij[k] = gj[k] - rt[k];
}

}  // namespace slam
