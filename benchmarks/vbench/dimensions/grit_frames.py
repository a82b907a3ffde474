"""What GRiT gives VBench for one frame, in the form its four GRiT dimensions read it.

VBench's GRiT wrapper (Vchitect/VBench@45e79ec vbench/third_party/grit_model.py
`run_caption_tensor`, grit_src/image_dense_captions.py:57-65 `dense_pred_to_caption_tuple`)
returns, per frame, one tuple per detection: (its description, its box as four
`int()`-truncated pixel coordinates x0, y0, x1, y1, the frame's `det_obj` list). The
`det_obj` list is the same object for every detection of the frame: the object names of
GRiT's second, ObjectDet-style pass, one per detection, in detection order
(grit/modeling/meta_arch/grit.py:36-40). In ObjectDet mode the description is itself the
class name; in DenseCap mode it is a caption.

`Detections` holds exactly that, without the repetition: the dimensions
(object_class.py, multiple_objects.py, color.py, spatial_relationship.py) read what they
need from it, each as its upstream module does (the frame's first `det_obj` entry, the
set of names, the boxes).
"""

import dataclasses
from typing import Tuple

Box = Tuple[int, int, int, int]


@dataclasses.dataclass(frozen=True)
class Detections:
    """One frame's GRiT output (see the module docstring).

    Attributes:
      descriptions: per detection, its generated text.
      boxes: per detection, (x0, y0, x1, y1), int()-truncated as upstream truncates them.
      names: the frame's det_obj list (one name per detection).
    """

    descriptions: Tuple[str, ...] = ()
    boxes: Tuple[Box, ...] = ()
    names: Tuple[str, ...] = ()

    def __post_init__(self):
        if len(self.boxes) != len(self.descriptions):
            raise ValueError(f"{len(self.descriptions)} descriptions but {len(self.boxes)} "
                             "boxes: GRiT gives one box per detection")

    def __len__(self) -> int:
        return len(self.descriptions)

    def name_set(self) -> frozenset:
        """The frame's object names as object_class and multiple_objects compare them:
        `set(ret[0][0][2])`, empty when the frame has no detection (upstream's IndexError,
        caught in object_class.py:31-34, tested first in multiple_objects.py:29-32)."""
        return frozenset(self.names) if len(self) else frozenset()
