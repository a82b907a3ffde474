"""Tests for benchmarks.memobench.step1.camera: camera_controllability.py's rounding of
the rotation-ATE score (the score itself is tested in metrics/camera)."""

import math

import numpy as np
import pytest

from benchmarks.memobench.step1 import camera
from metrics.camera import rotation_ate


def _yaws(degrees):
    out = []
    for deg in degrees:
        c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        out.append(np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]))
    return np.stack(out)


def test_score_is_rounded_to_4_and_angles_to_3_decimals():
    result = rotation_ate.rotation_ate_score(_yaws([0.0, 7.123456, 13.3333333]),
                                             _yaws([0.0, 7.0, 13.0]))
    ate = math.sqrt((0.123456**2 + 0.3333333**2) / 3)
    assert camera.official_columns(result) == {
        "CameraControllability": round(1 - ate / 13.3333333, 4),
        "ATE_RotDeg": 0.205, "TotalGT_RotDeg": 13.333,
        "MeanRotErrorDeg": round((0.123456 + 0.2098773) / 2, 3)}
    assert round(1 - ate / 13.3333333, 4) == 0.9846


@pytest.mark.parametrize("score,angle,expected", [
    (0.05720000001, 84.8528137, (0.0572, 84.853)),
    (0.87752551, 1.22474487, (0.8775, 1.225)),
])
def test_known_rounding(score, angle, expected):
    result = rotation_ate.RotationAteScore(score, angle, angle, angle, 5)
    columns = camera.official_columns(result)
    assert (columns["CameraControllability"], columns["ATE_RotDeg"]) == expected


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
