"""SEA-RAFT architecture and inference settings (the fields of the official JSON configs).

The official code (princeton-vl/SEA-RAFT @f41d0a7, `config/eval/*.json` read into an
argparse.Namespace) takes these fields from the JSON; only those that change the
network's tensors or its test-mode output are kept here. Training-only fields
(lr, gamma, batch_size, ...) and the uncertainty limits `var_min`/`var_max` (used by the
training loss only, not by `test_mode=True`) are left out.

`SPRING_M` is `config/eval/spring-M.json`: the "M" model (ResNet34-style encoders,
widths 64/64/128/256, hidden width 128, two ConvNeXt refinement blocks), 4 flow
updates, and `scale=-1`: frames are bilinearly halved before the network and the flow is
bilinearly doubled (values x2) after it (`custom.py` `calc_flow`).
"""

import dataclasses
from typing import Tuple

# Blocks per encoder stage for the `pretrain` names the official ResNetFPN accepts.
STAGE_BLOCKS = {"resnet18": (2, 2, 2), "resnet34": (3, 4, 6)}
CORR_LEVELS = 4  # fixed in the official RAFT constructor


@dataclasses.dataclass(frozen=True)
class SeaRaftConfig:
    """One SEA-RAFT variant.

    Attributes:
        dim: Hidden/context width (`dim`); the context encoder outputs 2 * dim.
        radius: Correlation lookup radius (`radius`): (2r+1)^2 samples per level.
        num_blocks: ConvNeXt refinement blocks in the update block (`num_blocks`).
        iters: Flow updates at inference (`iters`).
        initial_dim: Width of the encoders' 7x7 stem (`initial_dim`).
        block_dims: Widths of the three encoder stages (`block_dims`).
        pretrain: "resnet34" or "resnet18": the number of blocks per stage (`pretrain`).
        scale: Frames are resized by 2**scale before the network, the flow by
            0.5**scale (values too) after it (`scale`).
    """

    dim: int = 128
    radius: int = 4
    num_blocks: int = 2
    iters: int = 4
    initial_dim: int = 64
    block_dims: Tuple[int, int, int] = (64, 128, 256)
    pretrain: str = "resnet34"
    scale: int = -1

    def __post_init__(self):
        if self.pretrain not in STAGE_BLOCKS:
            raise ValueError(f"pretrain must be one of {sorted(STAGE_BLOCKS)}, got "
                             f"{self.pretrain!r}")
        if len(self.block_dims) != 3:
            raise ValueError(f"block_dims needs three widths, got {self.block_dims}")
        if self.iters < 1:
            raise ValueError(f"iters must be >= 1 (the official test path needs the "
                             f"feature encoder), got {self.iters}")

    @property
    def stage_blocks(self) -> Tuple[int, int, int]:
        return STAGE_BLOCKS[self.pretrain]

    @property
    def corr_channels(self) -> int:
        return CORR_LEVELS * (2 * self.radius + 1) ** 2


# config/eval/spring-M.json (the checkpoint Tartan-C-T-TSKH-spring540x960-M).
SPRING_M = SeaRaftConfig()


def tiny(iters: int = 2, scale: int = -1) -> SeaRaftConfig:
    """A few-thousand-parameter variant for tests (ResNet18 stage counts, narrow)."""
    return SeaRaftConfig(dim=16, radius=2, num_blocks=1, iters=iters, initial_dim=8,
                         block_dims=(8, 12, 16), pretrain="resnet18", scale=scale)


def from_official_json(path) -> SeaRaftConfig:
    """The architecture fields of an official `config/eval/*.json` (others ignored).

    Raises:
        ValueError: Not JSON, or a field missing or of the wrong kind.
    """
    import json  # pylint: disable=import-outside-toplevel
    import pathlib  # pylint: disable=import-outside-toplevel
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        return SeaRaftConfig(
            dim=int(data["dim"]), radius=int(data["radius"]), num_blocks=int(data["num_blocks"]),
            iters=int(data["iters"]), initial_dim=int(data["initial_dim"]),
            block_dims=tuple(int(d) for d in data["block_dims"]), pretrain=str(data["pretrain"]),
            scale=int(data["scale"]))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: expected an official SEA-RAFT eval config (JSON with dim, "
                         f"radius, num_blocks, iters, initial_dim, block_dims, pretrain, "
                         f"scale): {error!r}") from error
