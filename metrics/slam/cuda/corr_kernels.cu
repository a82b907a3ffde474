// Bilinear window lookup in a correlation volume (metrics/slam/corr.py lookup): one source
// pixel per thread writes its (2r+1)^2 window; taps outside the target map count zero.
#include "kernels.h"
#include "lie.cuh"

namespace slam {
namespace {

template <typename T> __host__ __device__ T tap(const T* vol, int yy, int xx, int h2, int w2) {
  return (xx >= 0 && xx < w2 && yy >= 0 && yy < h2) ? vol[int64_t(yy) * w2 + xx] : T(0);
}

template <typename T>
__host__ __device__ void lookup_one(int64_t idx, const T* volume, const T* coords, T* out, int h1, int w1, int h2,
                                    int w2, int r) {
  const int rd = 2 * r + 1;
  const int x = idx % w1;
  const int y = (idx / w1) % h1;
  const int64_t b = idx / (int64_t(w1) * h1);
  const int64_t hw1 = int64_t(h1) * w1;
  const T x0 = coords[(b * 2 + 0) * hw1 + y * w1 + x];
  const T y0 = coords[(b * 2 + 1) * hw1 + y * w1 + x];
  const T fx = floor(x0), fy = floor(y0);
  const T dx = x0 - fx, dy = y0 - fy;
  const T* vol = volume + ((b * h1 + y) * w1 + x) * int64_t(h2) * w2;
  for (int i = 0; i < rd; ++i) {
    const int xs = static_cast<int>(fx) - r + i;
    for (int j = 0; j < rd; ++j) {
      const int ys = static_cast<int>(fy) - r + j;
      out[((b * rd + i) * rd + j) * hw1 + y * w1 + x] =
          tap(vol, ys, xs, h2, w2) * ((T(1) - dx) * (T(1) - dy)) + tap(vol, ys, xs + 1, h2, w2) * (dx * (T(1) - dy)) +
          tap(vol, ys + 1, xs, h2, w2) * ((T(1) - dx) * dy) + tap(vol, ys + 1, xs + 1, h2, w2) * (dx * dy);
    }
  }
}

}  // namespace

template <typename T>
void corr_lookup(const T* volume, const T* coords, T* out, int n, int h1, int w1, int h2, int w2, int r,
                 bool device, cudaStream_t s) {
  for_each(device, int64_t(n) * h1 * w1, s, [=] __host__ __device__(int64_t idx) {
    lookup_one(idx, volume, coords, out, h1, w1, h2, w2, r);
  });
}

template void corr_lookup<float>(const float*, const float*, float*, int, int, int, int, int, int, bool,
                                 cudaStream_t);
template void corr_lookup<double>(const double*, const double*, double*, int, int, int, int, int, int, bool,
                                  cudaStream_t);

}  // namespace slam
