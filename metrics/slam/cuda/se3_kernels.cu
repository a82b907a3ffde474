// SE3 group operations, one element per thread (the formulas of metrics/slam/se3.py).
#include "kernels.h"
#include "lie.cuh"

namespace slam {
namespace {

template <typename T> __host__ __device__ void exp_one(const T* tau, T* out) {
  const T* phi = tau + 3;
  so3_exp(phi, out + 3, T(kEps));
  const T theta2 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2];
  const T theta = sqrt(theta2);
  T c1, c2;
  if (theta < T(kEps)) {
    c1 = T(0.5) - theta2 / T(24);
    c2 = T(1.0 / 6.0) - theta2 / T(120);
  } else {
    c1 = (T(1) - cos(theta)) / theta2;
    c2 = (theta - sin(theta)) / (theta2 * theta);
  }
  poly_apply(phi, tau, c1, c2, out);  // J_l(phi) tau
}

template <typename T> __host__ __device__ void log_one(const T* g, T* out) {
  T t[3], q[4];
  load_normalized(g, t, q);
  so3_log(q, out + 3);
  const T* phi = out + 3;
  const T theta = sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
  T c2 = T(1.0 / 12.0);
  if (theta >= T(kEps)) {
    const T half = T(0.5) * theta;
    c2 = (T(1) - theta * cos(half) / (T(2) * sin(half))) / (theta * theta);
  }
  poly_apply(phi, t, T(-0.5), c2, out);  // J_l(phi)^-1 t
}

template <typename T> __host__ __device__ void inv_one(const T* g, T* o) {
  T t[3], q[4];
  load_normalized(g, t, q);
  const T qi[4] = {-q[0], -q[1], -q[2], q[3]};
  quat_rotate(qi, t, o);
  for (int k = 0; k < 3; ++k) o[k] = -o[k];
  for (int k = 0; k < 4; ++k) o[3 + k] = qi[k];
}

template <typename T> __host__ __device__ void mul_one(const T* a, const T* b, T* o) {
  T ta[3], qa[4], tb[3], qb[4], q[4];
  load_normalized(a, ta, qa);
  load_normalized(b, tb, qb);
  quat_rotate(qa, tb, o);
  for (int k = 0; k < 3; ++k) o[k] += ta[k];
  quat_mul(qa, qb, q);
  const T nrm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; ++k) o[3 + k] = q[k] / nrm;
}

template <typename T> __host__ __device__ void act_one(const T* g, const T* x, T* o, int dim) {
  T t[3], q[4];
  load_normalized(g, t, q);
  const T w = dim == 4 ? x[3] : T(1);
  quat_rotate(q, x, o);
  for (int k = 0; k < 3; ++k) o[k] += t[k] * w;
  if (dim == 4) o[3] = w;
}

template <typename T> __host__ __device__ void adj_one(const T* g, const T* x, T* o, bool transpose) {
  T t[3], q[4], c[3];
  load_normalized(g, t, q);
  if (!transpose) {  // [R tau + t x R phi, R phi]
    quat_rotate(q, x, o);
    quat_rotate(q, x + 3, o + 3);
    cross(t, o + 3, c);
    for (int k = 0; k < 3; ++k) o[k] += c[k];
  } else {  // [R^T a_tau, R^T (a_phi - t x a_tau)]
    const T qi[4] = {-q[0], -q[1], -q[2], q[3]};
    T d[3];
    quat_rotate(qi, x, o);
    cross(t, x, c);
    for (int k = 0; k < 3; ++k) d[k] = x[3 + k] - c[k];
    quat_rotate(qi, d, o + 3);
  }
}

}  // namespace

template <typename T> void se3_exp(const T* xi, T* g, int64_t n, bool device, cudaStream_t s) {
  for_each(device, n, s, [=] __host__ __device__(int64_t i) { exp_one(xi + 6 * i, g + 7 * i); });
}
template <typename T> void se3_log(const T* g, T* xi, int64_t n, bool device, cudaStream_t s) {
  for_each(device, n, s, [=] __host__ __device__(int64_t i) { log_one(g + 7 * i, xi + 6 * i); });
}
template <typename T> void se3_inv(const T* g, T* out, int64_t n, bool device, cudaStream_t s) {
  for_each(device, n, s, [=] __host__ __device__(int64_t i) { inv_one(g + 7 * i, out + 7 * i); });
}
template <typename T> void se3_mul(const T* a, const T* b, T* out, int64_t n, bool device, cudaStream_t s) {
  for_each(device, n, s, [=] __host__ __device__(int64_t i) { mul_one(a + 7 * i, b + 7 * i, out + 7 * i); });
}
template <typename T>
void se3_act(const T* g, const T* p, T* out, int64_t n, int dim, bool device, cudaStream_t s) {
  for_each(device, n, s,
           [=] __host__ __device__(int64_t i) { act_one(g + 7 * i, p + dim * i, out + dim * i, dim); });
}
template <typename T>
void se3_adj(const T* g, const T* a, T* out, int64_t n, bool transpose, bool device, cudaStream_t s) {
  for_each(device, n, s,
           [=] __host__ __device__(int64_t i) { adj_one(g + 7 * i, a + 6 * i, out + 6 * i, transpose); });
}

#define SLAM_INSTANTIATE(T)                                                               \
  template void se3_exp<T>(const T*, T*, int64_t, bool, cudaStream_t);                    \
  template void se3_log<T>(const T*, T*, int64_t, bool, cudaStream_t);                    \
  template void se3_inv<T>(const T*, T*, int64_t, bool, cudaStream_t);                    \
  template void se3_mul<T>(const T*, const T*, T*, int64_t, bool, cudaStream_t);         \
  template void se3_act<T>(const T*, const T*, T*, int64_t, int, bool, cudaStream_t);    \
  template void se3_adj<T>(const T*, const T*, T*, int64_t, bool, bool, cudaStream_t);
SLAM_INSTANTIATE(float)
SLAM_INSTANTIATE(double)
#undef SLAM_INSTANTIATE

}  // namespace slam
