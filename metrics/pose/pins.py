"""The pinned checkpoints of the pose family: RTMDet-m person, RTMPose-m body7 (the
convention: metrics/checkpoints)."""

from metrics.checkpoints import resolver

# download.openmmlab.com files. OpenMMLab names each file by the first 8 hex digits of
# its sha256, so that prefix is the pin (the resolver checks it; the full digest is not
# published). Sizes: not published; estimated from the architectures' float32 state
# dicts (metrics/pose at full size).
RTMDET_M_PERSON = resolver.CheckpointSpec(
    name="vmbench_rtmdet_m_person",
    filename="rtmdet_m_8xb32-100e_coco-obj365-person-235e8209.pth",
    url="https://download.openmmlab.com/mmpose/v1/projects/rtmpose/"
        "rtmdet_m_8xb32-100e_coco-obj365-person-235e8209.pth",
    sha256="235e8209", license="Apache-2.0 (open-mmlab/mmpose, mmdetection)",
    approx_size_bytes=109_464_924)
RTMPOSE_M_BODY7 = resolver.CheckpointSpec(
    name="vmbench_rtmpose_m_body7",
    filename="rtmpose-m_simcc-body7_pt-body7_420e-256x192-e48f03d0_20230504.pth",
    url="https://download.openmmlab.com/mmpose/v1/projects/rtmposev1/"
        "rtmpose-m_simcc-body7_pt-body7_420e-256x192-e48f03d0_20230504.pth",
    sha256="e48f03d0", license="Apache-2.0 (open-mmlab/mmpose)",
    approx_size_bytes=54_443_372)
