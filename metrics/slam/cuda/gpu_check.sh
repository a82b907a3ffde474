#!/bin/sh
# Superseded by the GPU session script, tools/gpu/session.sh (tools/gpu/README.md), which
# needs no Bazel: this runs only its `env ext checks` steps, i.e. builds the extension with
# nvcc (tools/gpu/build_ext.py), runs cuda_test (the [cuda] cases compare the real kernels
# with the PyTorch modules, 1e-5) and the CUDA autocast paths' [cuda] cases (DROID-SLAM
# float16, SEA-RAFT float16, SAM 2 bfloat16: each *autocast_test), and fails if any [cuda]
# case was skipped (tools/gpu/checks.py). From the repository root, after
# tools/gpu/prepare.sh, on a machine with a GPU:
#   OUT=/tmp/gpu_out sh metrics/slam/cuda/gpu_check.sh
GPU_SESSION_STEPS="env ext checks" exec bash "$(dirname "$0")/../../../tools/gpu/session.sh" "$@"
