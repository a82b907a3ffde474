"""SAM-3's checkpoint (pinned in pins.py) and backend name, importable without torch (for
runners and runtime profiles); the model code is metrics/segmentation/sam3.py."""

from metrics.segmentation import pins

SAM3 = pins.SAM3

BACKEND_NAME = "sam3-transformers"
