"""A family's model as a recipe: built once in the process that computes, never pickled.

A family that needs a model holds a `ModelRecipe(build, device)` in place of the model:
`build(device)` loads it from checkpoint paths the driver already resolved, and `device`
is the --device flag ("auto", "cpu", "cuda", "cuda:N"), resolved with metrics.device in
the process that builds. `get()` builds once per recipe and process (thread-safe: the
loop's loader thread and the scoring thread may both ask) and returns that model after;
`device()` is the resolved device. A build that raises is not retried: every later
`get()` raises the same error (the engine records it per sample as the family's reason).

Pickling keeps the recipe and drops the model. The Ray executor ships a step's `(load,
score)`, which close over the families, to each actor with `ray.put`: an actor unpickles
them once and builds each model once, on its own device (Ray sets CUDA_VISIBLE_DEVICES
per actor, so "cuda" and "auto" mean that actor's GPU). One recipe shared by two families
stays one object through one pickling (pickle's memo), so it is built once there too.

`Deferred(recipe)` stands in for a model that a family uses only through its methods
(`deferred.detect(...)`): each call builds the model if needed and calls its method, and
reading the attribute builds nothing, so the driver can wire families without loading.

`prepare(*recipes)` (or `prepared(build, device)`, which makes one and prepares it) is what
a benchmark's prepare calls once it has resolved the files: in
a local run it builds them now (a checkpoint that does not load makes the metric
unavailable at prepare time, as before); when an executor that runs the samples in other
processes is installed (benchmarks/common/executor.py) it builds nothing, so the driver
never loads weights: it only checked that the files are there.
"""

import functools
import threading
from typing import Callable, Optional

from benchmarks.common import executor as executor_lib

_UNBUILT = object()


class ModelRecipe:
    """A model built by `build(device)` on first `get()` in this process (see above)."""

    def __init__(self, build: Callable[[object], object], device: Optional[str] = "auto",
                 name: str = ""):
        """`device` None: the model needs no torch device (build gets None)."""
        self.name = name
        self._build = build
        self._device_flag = device
        self._fresh()

    def _fresh(self) -> None:
        self._lock = threading.Lock()
        self._model = _UNBUILT
        self._device = None
        self._error: Optional[BaseException] = None
        self.builds = 0  # builds in this process (tests count them)

    def device(self):
        """The torch device in this process (None when the recipe needs none)."""
        if self._device is None and self._device_flag is not None:
            from metrics import device as device_lib  # pylint: disable=import-outside-toplevel
            self._device = device_lib.resolve_device(self._device_flag)
        return self._device

    @property
    def built(self) -> bool:
        return self._model is not _UNBUILT

    def get(self):
        """The model, built on the first call in this process; raises what the build
        raised, on this call and every later one."""
        if self._model is _UNBUILT:
            with self._lock:
                if self._error is not None:
                    raise self._error
                if self._model is _UNBUILT:
                    self.builds += 1
                    try:
                        self._model = self._build(self.device())
                    except Exception as e:  # pylint: disable=broad-except  (re-raised)
                        self._error = e
                        raise
        return self._model

    def __getstate__(self):
        state = dict(self.__dict__)
        for key in ("_lock", "_model", "_device", "_error", "builds"):
            state.pop(key)
        return state

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        self._fresh()

    def __repr__(self) -> str:
        return f"ModelRecipe({self.name!r}, device={self._device_flag!r}, built={self.built})"


def builds_here() -> bool:
    """True when the samples are scored in this process (the local executor)."""
    return executor_lib.current() is None


def prepare(*recipes: ModelRecipe) -> None:
    """Builds `recipes` now in a local run (errors raise here); nothing when the samples
    run in other processes (each builds its own on first use)."""
    if builds_here():
        for recipe in recipes:
            recipe.get()


def prepared(build: Callable[[object], object], device: Optional[str] = "auto",
             name: str = "") -> ModelRecipe:
    """A ModelRecipe of `build` on `device`, built now in a local run (see `prepare`)."""
    recipe = ModelRecipe(build, device, name)
    prepare(recipe)
    return recipe


def _call_method(recipe: ModelRecipe, name: str, *args, **kwargs):
    return getattr(recipe.get(), name)(*args, **kwargs)


def method(recipe: ModelRecipe, name: str = "__call__"):
    """A callable that builds `recipe`'s model if needed and calls its method `name` (by
    default the model itself, for a model that is a function)."""
    return functools.partial(_call_method, recipe, name)


class Deferred:
    """`recipe`'s model seen through its methods (see the module docstring)."""

    def __init__(self, recipe: ModelRecipe):
        self.recipe = recipe

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "recipe":  # pickle's probes, an unset recipe
            raise AttributeError(name)
        return method(self.recipe, name)
