#!/bin/sh
# GPU session check for metrics/slam's CUDA kernels: builds the extension with nvcc, runs
# cuda_test (the [cuda] cases compare the real kernels with the PyTorch modules, 1e-5) and
# the CUDA autocast paths' [cuda] cases (DROID-SLAM float16, SEA-RAFT float16, SAM 2
# bfloat16: each *autocast_test), and fails if any [cuda] case was skipped. Run from the
# repository root on a machine with a GPU:
#   sh metrics/slam/cuda/gpu_check.sh
set -eu
nvidia-smi -L
./bazelw test //metrics/slam/cuda:cuda_test \
  //metrics/slam:droid_autocast_test \
  //metrics/flow/sea_raft:autocast_test \
  //metrics/segmentation:sam2_autocast_test \
  --test_output=all --test_arg=-rs --cache_test_results=no \
  >/tmp/slam_gpu_check.log 2>&1 || status=$?
cat /tmp/slam_gpu_check.log
# (sh has no pipefail: a `| tee` here would hide a failing test behind tee's exit 0.)
if [ "${status:-0}" -ne 0 ]; then
  echo "FAIL: a GPU check failed (bazel test exit ${status})" >&2
  exit 1
fi
if grep -q "SKIPPED.*needs a GPU" /tmp/slam_gpu_check.log; then
  echo "FAIL: the CUDA comparisons were skipped (torch does not see the GPU)" >&2
  exit 1
fi
echo "OK: CPU and CUDA agree; the autocast paths ran on the GPU"
