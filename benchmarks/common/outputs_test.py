"""--output_dir and --device are checked before any work: exit 2 with the path."""

import pytest

from benchmarks.common import flags as common_flags
from benchmarks.common import outputs
from benchmarks.common.errors import InputError


def test_an_existing_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError) as raised:
        outputs.check_output_dir(tmp_path / "f")
    assert str(raised.value) == (f"{tmp_path / 'f'}: expected a directory for the run's "
                                 "outputs (existing, or one that can be created), found a file")


def test_a_path_under_a_file_names_the_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError) as raised:
        outputs.check_output_dir(tmp_path / "f" / "out")
    assert f"found {tmp_path / 'f'} is a file" in str(raised.value)


def test_an_unwritable_place_is_refused():
    with pytest.raises(InputError) as raised:
        outputs.check_output_dir("/proc/worldeval-out")
    assert str(raised.value).startswith("/proc/worldeval-out: expected a writable directory")


def test_a_new_directory_is_created(tmp_path):
    assert outputs.check_output_dir(tmp_path / "a" / "b").is_dir()


@pytest.mark.parametrize("device", ["auto", "cpu", "cuda", "cuda:1", "mps"])
def test_devices(device):
    assert common_flags.check_device(device) == device


@pytest.mark.parametrize("device", ["gpu", "cuda1", "", "CPU"])
def test_bad_devices(device):
    with pytest.raises(InputError) as raised:
        common_flags.check_device(device)
    assert str(raised.value).startswith("--device: expected auto, cpu, cuda, cuda:N or mps")
