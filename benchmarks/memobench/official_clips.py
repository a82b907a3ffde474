"""The 360 official MemoBench clip ids (spec §2.5, counted from the official metadata),
and the 45 of them that Step 3 (VQA) scores.

Used to say which official clips a result covers (imports, the full-suite gate).
"""

# Synthetic: 196 clips in 14 scenes; ids run 1..k except Middle_Age.
_SYNTHETIC_COUNTS = {
    "Barnyard": 15, "CityPark": 12, "CityStreet": 4, "Havana": 12, "HongKong": 11,
    "Japanese_Street": 11, "Miami": 22, "NYC_East": 19, "NYstreet": 20, "Nordic": 14,
    "OldFactory": 20, "WinterTown": 12, "ZenGarden": 17,
}
_MIDDLE_AGE_IDS = (1, 2, 4, 5, 7, 8, 9)

# Real: 164 non-contiguous ids in 1..273, as inclusive ranges.
_REAL_RANGES = (
    (1, 24), (36, 38), (40, 40), (42, 53), (55, 58), (60, 66), (69, 70), (72, 72), (75, 93),
    (95, 97), (99, 100), (102, 103), (105, 105), (107, 107), (117, 120), (122, 122),
    (134, 134), (138, 139), (144, 149), (154, 154), (156, 160), (165, 173), (178, 180),
    (182, 182), (191, 192), (194, 195), (200, 200), (204, 206), (209, 212), (214, 214),
    (216, 216), (218, 222), (224, 225), (234, 234), (236, 241), (243, 243), (246, 254),
    (256, 257), (259, 261), (264, 264), (268, 270), (272, 273),
)

SYNTHETIC = tuple(sorted(
    [f"{scene}_{i:03d}" for scene, count in _SYNTHETIC_COUNTS.items() for i in range(1, count + 1)]
    + [f"Middle_Age_{i:03d}" for i in _MIDDLE_AGE_IDS]))
REAL = tuple(f"{i:03d}" for lo, hi in _REAL_RANGES for i in range(lo, hi + 1))

# Step 3 (VQA) scores only the 45 synthetic clips of data/vqa_questions/failure-cases.csv
# (spec §2.5, §7); those files spell the scene "Zen_Garden", the clip folder is ZenGarden.
_VQA_CLIP_NUMBERS = {
    "Barnyard": (1, 2, 9), "CityPark": (6, 7, 9), "Havana": (1, 2, 3, 8, 9, 10),
    "HongKong": (6, 9, 11), "Japanese_Street": (2, 3, 4, 7, 8, 10), "Miami": (10, 14, 16),
    "NYC_East": (1, 7, 16), "NYstreet": (2, 3, 4), "Nordic": (1, 3, 5, 7, 8, 9),
    "OldFactory": (12, 18, 20), "WinterTown": (1, 2, 9), "ZenGarden": (2, 5, 10),
}
VQA = tuple(sorted(f"{scene}_{i:03d}" for scene, numbers in _VQA_CLIP_NUMBERS.items()
                   for i in numbers))
