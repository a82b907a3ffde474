"""Pointing torch.hub at a folder for a while: how a parity check hands an official
package (which loads its weights from the hub cache) a file of random weights."""

import contextlib

import torch


@contextlib.contextmanager
def hub_dir(folder):
    """torch.hub.get_dir() is `folder` inside the block (its checkpoints/ is the cache)."""
    previous = torch.hub.get_dir()
    torch.hub.set_dir(str(folder))
    try:
        yield
    finally:
        torch.hub.set_dir(previous)
