"""metrics.iqa.musiq: the loader on tiny random files in pyiqa's format, a plain-tensor
transcription of pyiqa's MUSIQ forward, torchvision's Resize as the shrink reference, and
the full-size scores of testdata/musiq_parity.json (pyiqa 0.1.16 itself, on weights this
test regenerates from the same seed).

Tolerance for the full-size figures: 5e-4 absolute on scores near 45 (1e-5 relative).
The scratch run matched to 0.0 on one CPU; the margin is for float32 reduction order on
other CPUs through 14 blocks. The smallest error it must catch, the other Resize flavour
(antialias on or off), moves a score by 0.12.
"""

import dataclasses
import json
import pathlib

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torchvision import transforms

from metrics.iqa import musiq
from metrics.iqa import musiq_patches
from metrics.iqa import tiny_musiq

_PARITY = pathlib.Path(__file__).parent / "testdata" / "musiq_parity.json"
_TOL = 5e-4


def _frames(count, h, w, seed):
    return np.random.default_rng(seed).integers(0, 256, (count, h, w, 3), dtype=np.uint8)


def _reference(state, config, rgb):
    """pyiqa's MUSIQ.forward in plain tensor ops, reading the state dict."""
    def std_conv(x, key, stride):
        w = state[key]
        w = (w - w.mean((1, 2, 3), keepdim=True)) / (w.std((1, 2, 3), keepdim=True) + 1e-5)
        k = w.shape[-1]
        pad_total = [max((-(-s // stride) - 1) * stride + k - s, 0) for s in x.shape[-2:]]
        x = F.pad(x, (pad_total[1] // 2, pad_total[1] - pad_total[1] // 2,
                      pad_total[0] // 2, pad_total[0] - pad_total[0] // 2))
        return F.conv2d(x, w, stride=stride)

    def gn(x, key, eps):
        return F.group_norm(x, 32, state[key + ".weight"], state[key + ".bias"], eps)

    def lin(x, key):
        return x @ state[key + ".weight"].T + state[key + ".bias"]

    def ln(x, key):
        return F.layer_norm(x, x.shape[-1:], state[key + ".weight"], state[key + ".bias"], 1e-6)

    seq = musiq_patches.multiscale_sequence((rgb - 0.5) * 2, config.longer_sides)
    n, length = seq.mask.shape
    x = seq.pixels.reshape(n * length, 3, 32, 32)
    x = F.relu(gn(std_conv(x, "conv_root.weight", 2), "gn_root", 1e-6))
    x = F.max_pool2d(F.pad(x, (0, 1, 0, 1)), 3, 2)  # SAME for 16 -> 8
    short = gn(std_conv(x, "block1.conv_proj.weight", 1), "block1.gn_proj", 1e-4)
    for i in (1, 2):
        x = F.relu(gn(std_conv(x, f"block1.conv{i}.weight", 1), f"block1.gn{i}", 1e-4))
    x = F.relu(gn(std_conv(x, "block1.conv3.weight", 1), "block1.gn3", 1e-4) + short)
    x = lin(x.permute(0, 2, 3, 1).reshape(n, length, -1), "embedding")
    enc = "transformer_encoder."
    x = x + state[enc + "posembed_input.position_emb"][0][seq.spatial]
    x = x + state[enc + "scaleembed_input.scale_emb"][seq.scale]
    x = torch.cat([state[enc + "cls"].expand(n, 1, -1), x], 1)
    mask = torch.cat([torch.ones(n, 1, dtype=torch.bool), seq.mask], 1)
    heads, dim = config.num_heads, x.shape[-1]
    for b in range(config.num_layers):
        p = f"{enc}transformer.encoderblock_{b}."
        y = ln(x, p + "norm1")
        q, k, v = (lin(y, p + "attention." + m).reshape(n, -1, heads, dim // heads).transpose(1, 2)
                   for m in ("query", "key", "value"))
        scores = q @ k.transpose(-2, -1) / np.sqrt(dim // heads)
        scores = torch.where(mask[:, None, :, None] & mask[:, None, None, :], scores,
                             torch.tensor(-1000.0))
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(n, -1, dim)
        x = x + lin(attended, p + "attention.out")
        x = x + lin(F.gelu(lin(ln(x, p + "norm2"), p + "mlp.fc1")), p + "mlp.fc2")
    cls = ln(x, enc + "encoder_norm")[:, 0]
    if config.num_class == 1:
        return lin(cls, "head")[:, 0]
    probs = lin(cls, "head.0").softmax(-1)
    return (probs * torch.arange(1, config.num_class + 1)).sum(-1)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("musiq") / "musiq_spaq_ckpt-358bb6af.pth"
    state = tiny_musiq.write_checkpoint(path, tiny_musiq.TINY, seed=3)
    return path, state


def test_tiny_file_loads_strictly_and_matches_the_transcription(tiny):
    path, state = tiny
    model = musiq.load_musiq(path, "cpu", tiny_musiq.TINY)
    assert set(model.state_dict()) == set(state)
    rgb = torch.from_numpy(_frames(2, 70, 100, 0)).permute(0, 3, 1, 2).float() / 255
    with torch.no_grad():
        got = model(rgb)
    want = _reference(state, tiny_musiq.TINY, rgb)
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-4)
    assert abs(float(got[0] - got[1])) > 1e-2  # the frames reach the score


def test_the_loader_drops_module_prefixes_and_rejects_what_pyiqa_would(tiny, tmp_path):
    path, state = tiny
    prefixed = tmp_path / "prefixed.pth"
    torch.save({"module." + k: v for k, v in state.items()}, prefixed)
    frames = _frames(1, 40, 50, 1)
    a = musiq.frame_scores(musiq.load_musiq(path, "cpu", tiny_musiq.TINY), frames)
    b = musiq.frame_scores(musiq.load_musiq(prefixed, "cpu", tiny_musiq.TINY), frames)
    np.testing.assert_array_equal(a, b)
    wrapped = tmp_path / "wrapped.pth"
    torch.save({"params": state}, wrapped)
    with pytest.raises(ValueError, match="does not fit MUSIQ"):
        musiq.load_musiq(wrapped, "cpu", tiny_musiq.TINY)
    with pytest.raises(ValueError, match="does not fit MUSIQ"):
        musiq.load_musiq(path, "cpu")  # a tiny file is not the SPAQ size
    for junk in (b"not a torch file", b"junk"):  # the short one fails in struct, not pickle
        (tmp_path / "junk.pth").write_bytes(junk)
        with pytest.raises(ValueError, match="not a readable torch file"):
            musiq.load_musiq(tmp_path / "junk.pth", "cpu", tiny_musiq.TINY)


def test_distribution_heads_score_the_mean_class(tmp_path):
    config = musiq.MusiqConfig(num_class=3, hidden_size=32, mlp_dim=48, num_heads=2, num_layers=1,
                              longer_sides=(64, 128))
    state = tiny_musiq.write_checkpoint(tmp_path / "ava.pth", config, seed=4)
    assert "head.0.weight" in state
    model = musiq.load_musiq(tmp_path / "ava.pth", "cpu", config)
    rgb = torch.from_numpy(_frames(1, 40, 40, 2)).permute(0, 3, 1, 2).float() / 255
    with torch.no_grad():
        np.testing.assert_allclose(model(rgb).numpy(), _reference(state, config, rgb).numpy(),
                                   atol=1e-5)


@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("shape,size", [((720, 1280), (288, 512)), ((561, 420), (511, 383)),
                                        ((400, 900), (227, 512))])
def test_shrink_is_torchvisions_resize_with_truncated_size(shape, size, antialias):
    images = torch.from_numpy(_frames(2, *shape, 5)).permute(0, 3, 1, 2).float()
    got = musiq.shrink_longer_side(images, antialias=antialias)
    assert tuple(got.shape[-2:]) == size
    want = transforms.Resize(size=size, antialias=antialias)(images)  # the official call
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_frames_at_most_512_are_not_resized():
    images = torch.zeros(1, 3, 512, 300)
    assert musiq.shrink_longer_side(images) is images


def test_batching_frames_changes_scores_by_rounding_only(tiny):
    model = musiq.load_musiq(tiny[0], "cpu", tiny_musiq.TINY)
    frames = _frames(3, 530, 150, 6)  # shrunk to 512 x 144
    np.testing.assert_allclose(musiq.frame_scores(model, frames, batch_size=1),
                               musiq.frame_scores(model, frames, batch_size=3), atol=1e-4)


@pytest.fixture(scope="module")
def spaq(tmp_path_factory):
    """The full-size weights of testdata/musiq_parity.json, regenerated and loaded from file."""
    path = tmp_path_factory.mktemp("spaq") / "musiq_spaq_ckpt-358bb6af.pth"
    tiny_musiq.write_checkpoint(path, musiq.SPAQ, seed=0, head_bias=50.0)
    return musiq.load_musiq(path, "cpu")


@pytest.mark.parametrize("flavour", ["", "antialias_"])
def test_full_size_scores_match_pyiqa(spaq, flavour):
    """The first frame of each recorded video (all frames cost twice the time, same check)."""
    parity = json.loads(_PARITY.read_text())
    model = spaq
    other = "antialias_" if not flavour else ""
    for video in parity["videos"]:
        if flavour and max(video["height"], video["width"]) <= 512:
            continue  # not shrunk: the flavours agree, checked once
        official = video[flavour + "official_frame_scores"]
        assert video[flavour + "official_video_score"] == pytest.approx(np.mean(official), abs=1e-6)
        frames = _frames(video["frames"], video["height"], video["width"], video["frame_seed"])
        got = float(musiq.frame_scores(model, frames[:1], antialias=bool(flavour))[0])
        assert got == pytest.approx(official[0], abs=_TOL), video["name"]
        if max(video["height"], video["width"]) > 512:  # the tolerance sees the Resize flavour
            assert abs(video[other + "official_frame_scores"][0] - got) > 100 * _TOL, video["name"]


def test_config_of_reads_the_sizes_from_the_tensors(tiny):
    _, state = tiny
    assert musiq.config_of(state, 2, (64, 128)) == tiny_musiq.TINY
    full = musiq.Musiq().state_dict()
    assert musiq.config_of({"module." + k: v for k, v in full.items()}) == musiq.SPAQ
    with pytest.raises(ValueError, match="not a pyiqa MUSIQ state dict"):
        musiq.config_of({"weight": torch.zeros(1)})


def test_the_forward_pass_stays_on_the_models_device():
    """No tensor is made on the CPU behind the model's back ("meta" stands in for CUDA)."""
    for config in (tiny_musiq.TINY, dataclasses.replace(tiny_musiq.TINY, num_class=3)):
        model = musiq.Musiq(config).to("meta").eval()
        with torch.no_grad():
            out = model(torch.zeros(2, 3, 40, 70, device="meta"))
        assert out.shape == (2,) and out.device.type == "meta"
