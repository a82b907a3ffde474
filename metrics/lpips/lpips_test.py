"""Tests for metrics.lpips.lpips: loading the lpips package's model from the two files,
its trunk and formula, and the frame pairs.

The model is the package's LPIPS(net="alex") on random weight files of the real
layout written by the test; its distance is checked against a numpy transcription
of the published formula written here from the lpips package's description.
"""

import dataclasses

import cv2
import lpips as lpips_package
import numpy as np
import pytest
import torch
import torchvision

from metrics.checkpoints import resolver
from metrics.lpips import lpips
from metrics.lpips import tiny_lpips

# lpips v0.1's ScalingLayer, as published: (x - shift) / scale.
_OFFICIAL_SHIFT = np.array([-.030, -.088, -.188])
_OFFICIAL_SCALE = np.array([.458, .448, .450])


def _numpy_lpips(features0, features1, weights):
    """LPIPS after the trunk, in float64 numpy: normalise, square diff, 1x1 conv, mean, sum."""
    total = 0.0
    for f0, f1, w in zip(features0, features1, weights):
        f0, f1 = f0.astype(np.float64), f1.astype(np.float64)
        n0 = f0 / (np.sqrt(np.sum(f0 * f0, axis=1, keepdims=True)) + 1e-10)
        n1 = f1 / (np.sqrt(np.sum(f1 * f1, axis=1, keepdims=True)) + 1e-10)
        diff = (n0 - n1) ** 2                                        # (N, C, H, W)
        weighted = np.einsum("nchw,c->nhw", diff, w.reshape(-1).astype(np.float64))
        total = total + weighted.mean(axis=(1, 2))
    return total


@pytest.fixture(scope="module", name="checkpoint_dir")
def _checkpoint_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("checkpoints")
    tiny_lpips.write_random_checkpoints(root, seed=0)
    return root


def _resolve(spec, checkpoint_dir):
    return resolver.resolve(dataclasses.replace(spec, sha256=""),
                            checkpoint_dir=str(checkpoint_dir), offline=True)


@pytest.fixture(scope="module", name="model")
def _model(checkpoint_dir):
    alexnet = _resolve(lpips.ALEXNET_SPEC, checkpoint_dir)
    lin = _resolve(lpips.LPIPS_ALEX_SPEC, checkpoint_dir)
    assert (alexnet.source, lin.source) == ("checkpoint_dir", "checkpoint_dir")
    return lpips.load_lpips_alex(alexnet.path, lin.path, "cpu")


def test_the_model_is_the_packages_with_the_files_weights(model, checkpoint_dir):
    assert isinstance(model.package_model, lpips_package.LPIPS)
    assert not model.training and not model.package_model.training
    assert not any(p.requires_grad for p in model.parameters())
    features = torch.load(checkpoint_dir / "alexnet" / lpips.ALEXNET_SPEC.filename)
    lins = torch.load(checkpoint_dir / "lpips_alex_v0.1" / "alex.pth")
    loaded = model.package_model.state_dict()
    assert lpips.trunk_key("features.0.weight") == "net.slice1.0.weight"
    assert lpips.trunk_key("features.10.bias") == "net.slice5.10.bias"
    assert len(features) == 10
    for key, value in features.items():
        assert torch.equal(loaded[lpips.trunk_key(key)], value), key
    for i, lin in enumerate(model.lins):
        assert torch.equal(lin.model[1].weight, lins[f"lin{i}.model.1.weight"])


def test_trunk_is_scaling_then_alexnet_relus(model, checkpoint_dir):
    scaling = model.package_model.scaling_layer
    np.testing.assert_allclose(scaling.shift.reshape(-1).numpy(), _OFFICIAL_SHIFT, rtol=1e-7)
    np.testing.assert_allclose(scaling.scale.reshape(-1).numpy(), _OFFICIAL_SCALE, rtol=1e-7)
    reference = torchvision.models.alexnet(weights=None).features
    reference.load_state_dict({k[len("features."):]: v for k, v in torch.load(
        checkpoint_dir / "alexnet" / lpips.ALEXNET_SPEC.filename).items()})
    reference.eval()
    images = torch.rand(2, 3, 70, 90) * 2 - 1
    scaled = (images - torch.tensor(_OFFICIAL_SHIFT, dtype=torch.float32)[None, :, None, None]) / (
        torch.tensor(_OFFICIAL_SCALE, dtype=torch.float32)[None, :, None, None])
    with torch.no_grad():
        got = model.trunk_features(images)
        expected = [reference[:stop](scaled) for stop in (2, 5, 8, 10, 12)]
    assert [f.shape[1] for f in got] == list(lpips.CHANNELS)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-6)


def test_distance_is_the_published_formula_on_the_trunk(model):
    g = torch.Generator().manual_seed(0)
    images0 = torch.rand(3, 3, 64, 80, generator=g) * 2 - 1
    images1 = torch.rand(3, 3, 64, 80, generator=g) * 2 - 1
    with torch.no_grad():
        got = model(images0, images1)
        features0 = [f.numpy() for f in model.trunk_features(images0)]
        features1 = [f.numpy() for f in model.trunk_features(images1)]
    weights = [lin.model[1].weight.numpy() for lin in model.lins]
    expected = _numpy_lpips(features0, features1, weights)
    assert got.shape == (3,)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)
    assert np.all(expected > 0.01)


def test_unloaded_model_has_the_architecture():
    model = lpips.LearnedPerceptualImagePatchSimilarity().eval()
    assert isinstance(model.package_model, lpips_package.LPIPS)
    images = torch.rand(2, 3, 40, 48) * 2 - 1
    with torch.no_grad():
        assert [f.shape[1] for f in model.trunk_features(images)] == list(lpips.CHANNELS)
        assert model(images, images.flip(0)).shape == (2,)


def _frames(count, height, width, seed):
    rng = np.random.default_rng(seed)
    ramp = np.linspace(0, 180, width)[None, :, None] + np.array([0, 40, 70])
    return [np.clip(ramp + 8 * i + rng.integers(0, 60, (height, width, 3)), 0, 255)
            .astype(np.uint8) for i in range(count)]


def _manual_rgb(frames):
    """BGR uint8 -> RGB float32 [-1, 1] as (N, 3, H, W), written out step by step."""
    out = []
    for frame in frames:
        rgb = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB).astype(np.float32)
        out.append(np.transpose(rgb / 127.5 - 1.0, (2, 0, 1)))
    return torch.from_numpy(np.stack(out))


def test_identity_symmetry_and_positive(model):
    x = _frames(3, 48, 64, seed=1)
    y = _frames(3, 48, 64, seed=2)
    assert lpips.lpips_distance_pairs(model, x, [f.copy() for f in x]) == [0.0, 0.0, 0.0]
    forward = lpips.lpips_distance_pairs(model, x, y)
    backward = lpips.lpips_distance_pairs(model, y, x)
    assert all(type(d) is float and d > 1e-4 for d in forward)
    np.testing.assert_allclose(forward, backward, rtol=0, atol=1e-6)


def test_batch_size_does_not_change_values(model):
    gt = _frames(5, 40, 56, seed=3)
    gen = _frames(5, 40, 56, seed=4)
    one = lpips.lpips_distance_pairs(model, gt, gen, batch_size=1)
    sixteen = lpips.lpips_distance_pairs(model, gt, gen, batch_size=16)
    two = lpips.lpips_distance_pairs(model, gt, gen, batch_size=2)
    assert len(one) == 5 and len(set(one)) == 5
    np.testing.assert_allclose(sixteen, one, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(two, one, rtol=1e-6, atol=1e-7)


def test_frames_become_rgb_in_minus_one_one(model):
    gt = _frames(2, 36, 44, seed=5)
    gen = _frames(2, 36, 44, seed=6)
    got = lpips.lpips_distance_pairs(model, gt, gen)
    with torch.no_grad():
        expected = model(_manual_rgb(gt), _manual_rgb(gen)).tolist()
        as_bgr = model(_manual_rgb(gt).flip(1), _manual_rgb(gen).flip(1)).tolist()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    assert abs(got[0] - as_bgr[0]) > 1e-4  # The channel order matters to the model.


def test_larger_ground_truth_is_area_resized(model):
    gt = _frames(2, 90, 121, seed=7)  # Not a whole multiple: AREA and LINEAR differ.
    gen = _frames(2, 48, 64, seed=8)
    got = lpips.lpips_distance_pairs(model, gt, gen)
    area = [cv2.resize(f, (64, 48), interpolation=cv2.INTER_AREA) for f in gt]
    linear = [cv2.resize(f, (64, 48), interpolation=cv2.INTER_LINEAR) for f in gt]
    np.testing.assert_allclose(got, lpips.lpips_distance_pairs(model, area, gen),
                               rtol=1e-6, atol=1e-7)
    assert abs(got[0] - lpips.lpips_distance_pairs(model, linear, gen)[0]) > 1e-5


def test_mixed_generated_sizes_batch_per_size(model):
    gt = _frames(3, 60, 80, seed=9)
    gen = _frames(2, 48, 64, seed=10) + _frames(1, 40, 40, seed=11)
    got = lpips.lpips_distance_pairs(model, gt, gen)
    singles = [lpips.lpips_distance_pairs(model, [g], [h])[0] for g, h in zip(gt, gen)]
    np.testing.assert_allclose(got, singles, rtol=1e-6, atol=1e-7)


def test_smallest_accepted_frame(model):
    small = _frames(1, lpips.MIN_SIDE, lpips.MIN_SIDE, seed=12)
    assert len(lpips.lpips_distance_pairs(model, small, _frames(1, 31, 31, seed=13))) == 1
    tiny = _frames(1, lpips.MIN_SIDE - 1, 64, seed=14)
    with pytest.raises(ValueError, match="at least 31x31"):
        lpips.lpips_distance_pairs(model, tiny, tiny)


@pytest.mark.parametrize("gt, gen, batch_size, message", [
    ([np.zeros((40, 40, 3), np.uint8)], [], 16, "frame count mismatch"),
    ([], [], 16, "no frame pairs"),
    ([np.zeros((40, 40, 3), np.float32)], [np.zeros((40, 40, 3), np.uint8)], 16, "uint8"),
    ([np.zeros((40, 40), np.uint8)], [np.zeros((40, 40, 3), np.uint8)], 16, "ground-truth"),
    ([np.zeros((40, 40, 3), np.uint8)], [np.zeros((40, 40, 3), np.uint8)], 0, "batch_size"),
])
def test_bad_input_raises(model, gt, gen, batch_size, message):
    with pytest.raises(ValueError, match=message):
        lpips.lpips_distance_pairs(model, gt, gen, batch_size=batch_size)


def test_real_alexnet_spec_rejects_the_random_file(checkpoint_dir):
    with pytest.raises(resolver.CheckpointUnavailable, match="expected sha256 7be5be79"):
        resolver.resolve(lpips.ALEXNET_SPEC, checkpoint_dir=str(checkpoint_dir), offline=True)


def test_wrong_lin_keys_name_the_file(checkpoint_dir, tmp_path):
    alexnet = checkpoint_dir / "alexnet" / lpips.ALEXNET_SPEC.filename
    state = torch.load(checkpoint_dir / "lpips_alex_v0.1" / "alex.pth")
    state["lin0.model.0.weight"] = state.pop("lin0.model.1.weight")
    bad = tmp_path / "alex.pth"
    torch.save(state, bad)
    with pytest.raises(ValueError) as raised:
        lpips.load_lpips_alex(alexnet, bad, "cpu")
    message = str(raised.value)
    assert str(bad) in message
    assert "missing keys ['lin0.model.1.weight']" in message
    assert "unexpected keys ['lin0.model.0.weight']" in message


def test_wrong_lin_shape_names_the_file(checkpoint_dir, tmp_path):
    alexnet = checkpoint_dir / "alexnet" / lpips.ALEXNET_SPEC.filename
    state = torch.load(checkpoint_dir / "lpips_alex_v0.1" / "alex.pth")
    state["lin2.model.1.weight"] = torch.zeros(1, 256, 1, 1)
    bad = tmp_path / "alex.pth"
    torch.save(state, bad)
    with pytest.raises(ValueError, match=r"alex\.pth: lin2\.model\.1\.weight has shape"):
        lpips.load_lpips_alex(alexnet, bad, "cpu")


def test_alexnet_keys_checked_and_classifier_ignored(checkpoint_dir, tmp_path):
    lin = checkpoint_dir / "lpips_alex_v0.1" / "alex.pth"
    state = torch.load(checkpoint_dir / "alexnet" / lpips.ALEXNET_SPEC.filename)
    with_classifier = dict(state, **{"classifier.6.bias": torch.zeros(1000)})
    torch.save(with_classifier, tmp_path / "full.pth")
    lpips.load_lpips_alex(tmp_path / "full.pth", lin, "cpu")  # Accepted.
    del state["features.10.bias"]
    state["features.11.weight"] = torch.zeros(3)
    torch.save(state, tmp_path / "broken.pth")
    with pytest.raises(ValueError) as raised:
        lpips.load_lpips_alex(tmp_path / "broken.pth", lin, "cpu")
    assert str(tmp_path / "broken.pth") in str(raised.value)
    assert "['features.10.bias']" in str(raised.value)
    assert "['features.11.weight']" in str(raised.value)


def test_unreadable_file_names_the_file(checkpoint_dir, tmp_path):
    garbage = tmp_path / "alex.pth"
    garbage.write_bytes(b"not a checkpoint")
    alexnet = checkpoint_dir / "alexnet" / lpips.ALEXNET_SPEC.filename
    with pytest.raises(ValueError, match="not a readable torch state dict"):
        lpips.load_lpips_alex(alexnet, garbage, "cpu")


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))


def test_the_lin_pin_is_the_digest_of_the_packaged_weights():
    """LPIPS_ALEX_SPEC's sha256 is that of the lin file lpips==0.1.4 ships (the same
    lpips/weights/v0.1/alex.pth as the repository the spec's URL points at)."""
    import hashlib  # pylint: disable=import-outside-toplevel
    import pathlib  # pylint: disable=import-outside-toplevel
    packaged = pathlib.Path(lpips_package.__file__).parent / "weights" / "v0.1" / "alex.pth"
    assert hashlib.sha256(packaged.read_bytes()).hexdigest() == lpips.LPIPS_ALEX_SPEC.sha256
