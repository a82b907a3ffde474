"""VBench human_action's UMT backend against the stored official run on seeded full-size
weights, the quick part: the load report, the network input of both clips, the position
table and block 0 (vbench_umt_parity_full_test, also in CI, recomputes every row with
full forwards: the rows name it)."""

from benchmarks.common import paths
from benchmarks.vbench.dimensions import human_action
from tools.calibration import parity_table
from tools.calibration import vbench_umt_parity


def _key(row):
    return (row.backend, row.check, row.compared)


def test_the_load_leaves_what_the_official_load_leaves():
    _, report = vbench_umt_parity.load()
    official = vbench_umt_parity.provenance()["load_state_dict"]
    assert official["strict"] is False
    assert list(report.missing_keys) == sorted(official["missing_keys"]) == ["pos_embed"]
    assert list(report.unexpected_keys) == sorted(official["unexpected_keys"]) == []


def test_preprocess_and_block0_match_the_official_run_and_the_table():
    rows = vbench_umt_parity.early_rows()
    for row in rows:
        print(f"{row.check} {row.compared[:60]}: max abs {row.max_abs_diff:.3g}, "
              f"rel {row.max_rel_diff:.3g}, element ratio {row.element_ratio:.3g}")
    assert all(row.passed and row.elements_passed for row in rows), rows
    committed = [r for r in parity_table.read(paths.runfile(parity_table.TABLE))
                 if r.backend == vbench_umt_parity.BACKEND]
    assert {r.check for r in committed} == set(parity_table.CHECKS)  # the full rows exist
    keys = {_key(r) for r in rows}
    problems = parity_table.drift(rows, [r for r in committed if _key(r) in keys])
    assert not problems, problems


def test_a_crop_rounded_half_up_leaves_the_official_input(monkeypatch):
    """The 320x240 clip's crop offset is round(58.5) = 58; int(58.5 + 0.5) = 59 moves the
    network input far outside the tolerance."""
    official = vbench_umt_parity.arrays()
    rgb = vbench_umt_parity.clips()[0]
    picked = rgb[[0, 1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, 15, 16, 17, 18]]
    monkeypatch.setattr(human_action, "crop_offsets",
                        lambda h, w: (int((h - 224) / 2 + 0.5), int((w - 224) / 2 + 0.5)))
    moved = human_action.clip_tensor(picked)[None]
    ours, theirs = vbench_umt_parity._sampled(official, "clip0/input", moved)  # pylint: disable=protected-access
    relative = parity_table.differences(ours, theirs)[1]
    print(f"crop rounded half up: rel {relative:.3g}")
    assert relative > 1e-2, relative
