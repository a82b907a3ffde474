"""ModelRecipe: pickled without its model (a 1 MB checkpoint ships in a few kB), built once
per process on first use, the same values from the unpickled copy, and prepare() building
on the driver only for the local executor."""

import functools
import threading

import cloudpickle
import pytest
import torch

from benchmarks.common import executor as executor_lib
from benchmarks.common import family as family_lib
from benchmarks.common import model_recipe
from benchmarks.common import pickled_executor
from benchmarks.common import sample_loop
from benchmarks.common.sample_store import SampleStore
from proto import scorecard_pb2

WIDTH = 512  # a 512 x 512 float32 Linear: 1 MiB of weights


@pytest.fixture(name="checkpoint")
def _checkpoint(tmp_path):
    torch.manual_seed(0)
    path = tmp_path / "linear.pt"
    torch.save(torch.nn.Linear(WIDTH, WIDTH).state_dict(), path)
    return path


def _recipe(path):
    def build(device):
        model = torch.nn.Linear(WIDTH, WIDTH)
        model.load_state_dict(torch.load(path, map_location=device))
        return model.to(device).eval()
    return model_recipe.ModelRecipe(build, "cpu", "linear")


class _Family(family_lib.Family):
    """One column: the sum of the Linear's output on a constant input (the sample)."""

    def __init__(self, recipe, name="linear"):
        super().__init__(scorecard_pb2.Backend(name="t"))
        self.recipe, self.name, self.metric_ids = recipe, name, (name,)

    def compute(self, ctx):
        with torch.no_grad():
            x = torch.full((1, WIDTH), float(ctx), device=self.recipe.device())
            return family_lib.FamilyResult({self.name: float(self.recipe.get()(x).sum())})


def _score(families, item, loaded):
    sample = scorecard_pb2.SampleScore(sample_id=f"s{item}")
    sample.metrics.update(sample_loop.run_families(loaded, families, sample))
    return sample


def test_pickling_drops_the_model_and_the_copy_computes_the_same(checkpoint):
    recipe = _recipe(checkpoint)
    fam = _Family(recipe)
    before = fam.compute(2.0).columns
    with_weights = len(cloudpickle.dumps(recipe.get()))
    shipped = len(cloudpickle.dumps(fam))
    assert with_weights > WIDTH * WIDTH * 4 and shipped < 20_000, (with_weights, shipped)
    copy = cloudpickle.loads(cloudpickle.dumps(fam))
    assert copy.compute(2.0).columns == before
    assert recipe.builds == 1  # the original was not rebuilt by the pickling


def test_a_recipe_shared_by_two_families_is_built_once_per_process(checkpoint):
    recipe = _recipe(checkpoint)
    fam_a, fam_b = _Family(recipe, "a"), _Family(recipe, "b")
    copy_a, copy_b = cloudpickle.loads(cloudpickle.dumps((fam_a, fam_b)))
    threads = [threading.Thread(target=f.compute, args=(1.0,))
               for f in (copy_a, copy_b) * 4]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert copy_a.recipe is copy_b.recipe
    assert copy_a.recipe.builds == 1 and recipe.builds == 0


def test_a_failed_build_is_not_retried():
    calls = []

    def build(device):
        calls.append(device)
        raise ValueError("not a checkpoint")
    recipe = model_recipe.ModelRecipe(build, None, "broken")
    for _ in range(3):
        with pytest.raises(ValueError, match="not a checkpoint"):
            recipe.get()
    assert calls == [None] and recipe.builds == 1


def test_prepare_builds_on_the_driver_only_for_the_local_executor(checkpoint):
    local, remote = _recipe(checkpoint), _recipe(checkpoint)
    model_recipe.prepare(local)
    executor_lib.install(pickled_executor.PickledExecutor())
    try:
        model_recipe.prepare(remote)
    finally:
        executor_lib.install(None)
    assert (local.builds, remote.builds) == (1, 0)


def test_the_loop_on_shipped_functions_builds_once_and_equals_the_local_loop(
        checkpoint, tmp_path):
    recipe = _recipe(checkpoint)
    score = functools.partial(_score, [_Family(recipe)])

    def run(name):
        with SampleStore(tmp_path / name, "d", resume=False) as store:
            outcome = sample_loop.run([1, 2, 3], lambda i: sample_loop.SampleRef(f"s{i}"),
                                      store, float, score, name)
        return [dict(s.metrics) for s in outcome.samples]

    shipping = pickled_executor.PickledExecutor()
    executor_lib.install(shipping)
    try:
        remote = run("remote.jsonl")
    finally:
        executor_lib.install(None)
    assert recipe.builds == 0  # the driver never built it
    (_, copy_score), = shipping.copies
    assert copy_score.args[0][0].recipe.builds == 1  # once for the three samples
    assert remote == run("local.jsonl") and recipe.builds == 1
    assert shipping.shipped_bytes[0] < 20_000, shipping.shipped_bytes
