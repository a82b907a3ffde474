"""The classifier's batching and softmax, and the shipped random initialisation's
near-uniform output (the official CAS script never loads its checkpoint)."""

import numpy as np
import pytest
import torch

from metrics.videomae import classifier
from metrics.videomae import views as views_lib
from metrics.videomae import vit

TINY = vit.VitConfig(img_size=28, patch_size=14, embed_dim=32, depth=2, num_heads=4)


def _views(n):
    return np.random.default_rng(2).normal(size=(n, 3, 16, 28, 28)).astype(np.float32)


def _trained_like(seed=0):
    model = vit.random_init(TINY, seed)
    with torch.no_grad():
        model.head.weight.normal_(0, 2.0)
    return classifier.Classifier(model)


def test_probabilities_are_float64_softmax_of_logits_in_any_batching():
    clf = _trained_like()
    views = _views(7)
    logits = clf.logits(views, batch_size=7)
    probs = clf.probabilities(views, batch_size=3)
    assert logits.dtype == np.float32 and logits.shape == (7, 5)
    assert probs.dtype == np.float64 and probs.shape == (7, 5)
    expected = np.exp(clf.logits(views, batch_size=3).astype(np.float64))
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(probs, expected, rtol=1e-12)
    assert probs.std(0).max() > 1e-3  # views are told apart
    for size in (1, 2, 10):
        np.testing.assert_allclose(clf.logits(views, batch_size=size), logits,
                                   rtol=1e-5, atol=1e-6)
    assert clf.precision == "fp32"


def test_softmax_is_stable_for_large_logits():
    np.testing.assert_allclose(classifier.softmax(np.array([[1000.0, 1000.0, 0.0]])),
                               [[0.5, 0.5, 0.0]], atol=1e-300)


def test_rejects_views_of_another_shape_or_dtype():
    clf = _trained_like()
    with pytest.raises(ValueError, match=r"expected float32 views \(V, 3, 16, 28, 28\)"):
        clf.logits(_views(2).astype(np.float64))
    with pytest.raises(ValueError, match="expected float32 views"):
        clf.logits(_views(2)[:, :, :8])
    with pytest.raises(ValueError, match="batch_size"):
        clf.logits(_views(2), batch_size=0)


def test_shipped_random_init_scores_about_one_half():
    """init_scale 0.001 on the head: near-zero logits, near-uniform softmax, and an
    expected rating of ~0.5 whatever the video (the shipped CAS behaviour)."""
    clf = classifier.random_classifier(TINY, seed=0)
    probs = clf.probabilities(_views(4))
    assert np.abs(probs - 0.2).max() < 1e-3
    rating = views_lib.expected_rating(probs.mean(0), [0, 0.25, 0.5, 0.75, 1.0])
    assert abs(rating - 0.5) < 1e-3
    head = clf.model.head
    assert head.bias.abs().max() == 0 and 0 < head.weight.abs().max() < 10 * 0.02 * 0.001


def test_random_init_is_seeded():
    a = vit.random_init(TINY, 5).state_dict()
    b = vit.random_init(TINY, 5).state_dict()
    c = vit.random_init(TINY, 6).state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["blocks.0.attn.qkv.weight"], c["blocks.0.attn.qkv.weight"])
    weights = a["blocks.0.mlp.fc1.weight"]
    assert abs(weights.std() - 0.02) < 0.003  # cut at +-2: 100 std, in effect no cut
