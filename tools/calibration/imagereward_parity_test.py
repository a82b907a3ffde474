"""ImageReward: worldeval's metrics/imagereward equals image-reward 1.5 on the stored numbers."""

from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as tvf

from metrics.clip import image_transform
from tools.calibration import frames as frames_lib
from tools.calibration import imagereward_parity
from tools.calibration import official_numbers
from tools.calibration import parity_check


def test_imagereward_matches_the_official_run_and_the_table():
    parity_check.assert_rows(imagereward_parity.run())


def test_the_stored_numbers_tell_a_bilinear_resize_from_the_official_bicubic():
    official = official_numbers.read(imagereward_parity.OFFICIAL)
    bilinear = [tvf.normalize(tvf.to_tensor(tvf.center_crop(tvf.resize(
        image_transform.bgr_to_pil(f), 224, interpolation=InterpolationMode.BILINEAR), 224)),
        image_transform.OPENAI_CLIP_MEAN, image_transform.OPENAI_CLIP_STD)
        for f in frames_lib.all_frames()]
    row = official_numbers.compare_tensors(
        imagereward_parity.BACKEND, "preprocess", "pixel_values", bilinear, official,
        "bilinear", reference="", test="", inputs="", weights="")
    assert not row.passed and row.max_rel_diff > 1e-3, row.max_rel_diff
