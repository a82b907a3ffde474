#!/bin/sh
# GPU session check for metrics/slam's CUDA kernels: builds the extension with nvcc, runs
# cuda_test (the [cuda] cases compare the real kernels with the PyTorch modules, 1e-5) and
# fails if any [cuda] case was skipped. Run from the repository root on a machine with a GPU:
#   sh metrics/slam/cuda/gpu_check.sh
set -eu
nvidia-smi -L
./bazelw test //metrics/slam/cuda:cuda_test --test_output=all --test_arg=-rs --cache_test_results=no \
  2>&1 | tee /tmp/slam_gpu_check.log
if grep -q "SKIPPED.*needs a GPU" /tmp/slam_gpu_check.log; then
  echo "FAIL: the CUDA comparisons were skipped (torch does not see the GPU)" >&2
  exit 1
fi
echo "OK: CPU and CUDA agree"
