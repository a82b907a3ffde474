"""The report parsed back (html.parser): every panel present, the numbers in the DOM
equal the scorecards', nothing fetched at view time; one subprocess run of //tools:report.
"""

import os
import pathlib

import pytest

from metrics.testing import binary_runner
from proto import scorecard_pb2
from tools.report import compare_lib
from tools.report import dom as dom_lib
from tools.report import group_panels
from tools.report import report_lib
from tools.report import runs as runs_lib
from tools.report import testdata

REPORT = binary_runner.Binary("tools/report", "report", "tools.report.report_main")
BUNDLED = pathlib.Path("tools/catalog/evidence/memobench/bundled_sample_scorecard.json")


@pytest.fixture(scope="module")
def pair_runs(tmp_path_factory):
    return runs_lib.load_runs(testdata.write_pair(tmp_path_factory.mktemp("runs")))


@pytest.fixture(scope="module")
def pair_dom(pair_runs):
    text = report_lib.render(pair_runs, seed=4, resamples=500)
    outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
    if outputs:  # kept with the test's outputs, to look at
        pathlib.Path(outputs, "pair_report.html").write_text(text, encoding="utf-8")
    return dom_lib.parse(text)


def test_every_panel_is_present_in_order(pair_dom, pair_runs):
    assert pair_dom.sections == report_lib.panels_for(pair_runs)
    assert pair_dom.sections == [p for p in report_lib.PANELS if p != "groups"]


def test_headline_numbers_equal_the_scorecards(pair_dom, pair_runs):
    dom_lib.assert_headline_matches(pair_dom, pair_runs)


def test_comparison_numbers_equal_compare(pair_dom, pair_runs):
    cmp = compare_lib.compare(pair_runs[0], pair_runs[1], seed=4, resamples=500)
    text = "".join(pair_dom.text)
    assert "seed 4" in text and "Flagged" in text and "coverage differs" in text
    for m in cmp.metrics:
        if m.difference is None:
            assert pair_dom.numbers[(1, m.key, "difference")][0] == "—"
            continue
        for field in ("mean_a", "mean_b", "difference", "low", "high"):
            dom_lib.assert_number(pair_dom, (1, m.key, field), getattr(m, field))
    dom_lib.assert_number(pair_dom, (1, "score", "difference"), 1.25)


def test_the_report_is_deterministic(pair_runs):
    assert report_lib.render(pair_runs, resamples=200) == report_lib.render(pair_runs,
                                                                            resamples=200)


def test_worst_samples_link_to_their_rows(pair_dom):
    links = [href[1:] for href in pair_dom.hrefs if href.startswith("#sample-")]
    assert links and set(links) <= pair_dom.ids
    # score is higher-better: A's worst sample is s1 (1.0), then s2.
    dom_lib.assert_number(pair_dom, (0, "score|x/s1", "sample_value"), 1.0)
    text = "".join(pair_dom.text)
    assert "ValueError: clip has no frames" in text  # A's failed sample s9


def test_unavailable_blockers_and_provenance_are_shown(pair_dom):
    text = "".join(pair_dom.text)
    assert "no API key: set JUDGE_API_KEY" in text
    assert "NOT_OFFICIAL_DATA" in text and "hand-made" in text and "abc123" in text


def test_nothing_is_fetched_when_viewed(pair_dom):
    assert not {"script", "link", "img", "iframe"} & pair_dom.tags
    assert all(href.startswith("#") for href in pair_dom.hrefs)
    assert "svg" in pair_dom.tags  # the charts are inline


def test_bundled_sample_scorecard(tmp_path):
    runs = runs_lib.load_runs([BUNDLED])
    assert runs[0].samples is None  # only the scorecard is kept as evidence
    dom = dom_lib.parse(report_lib.render(runs))
    assert dom.sections == [p for p in report_lib.PANELS if p != "comparison"]
    dom_lib.assert_headline_matches(dom, runs)
    dom_lib.assert_groups_match(dom, runs, group_panels.groups_of(runs))
    text = "".join(dom.text)
    # Every metric missing weights: one row and one fetch command; each metric's own
    # fetch command stays in the scorecard.
    assert text.count("./bazelw run //tools:assets -- fetch --benchmark=memobench") == 1
    assert "huggingface-cli download" not in text
    assert "12 metrics: VisualQuality, MotionSmoothness" in text  # the one weights row
    assert text.count("no API key; set the GEMINI_API_KEY") == 1  # four judge metrics, one row
    assert "No per-sample scores: no per_sample_scores.jsonl" in text
    assert runs[0].card.verification.scope != scorecard_pb2.FULL_SUITE


def test_binary_in_process_and_subprocess(pair_runs, tmp_path):
    a, b = (str(run.path) for run in pair_runs)
    out = tmp_path / "r" / "report.html"
    done = REPORT.run(tmp_path, f"--scorecards={a},{b}", f"--output={out}", "--worst=1")
    assert done.returncode == 0, done.stderr
    assert dom_lib.parse(out.read_text()).sections == report_lib.panels_for(pair_runs)
    other = runs_lib.load_run(pathlib.Path(b)).card
    other.benchmark_id = "otherbench"
    odd = testdata.write_run(tmp_path / "odd", other, None)
    bad = REPORT.run_subprocess(tmp_path, f"--scorecards={a},{odd}", f"--output={out}")
    assert bad.returncode == 2 and "different benchmarks" in bad.stderr


def test_memobench_fidelity_by_phase_is_one_grouped_figure(tmp_path):
    """Two MemoBench runs: one figure for PSNR/SSIM/LPIPS across the three phases, its
    table's numbers equal each run's GT_{O,H,R}_* (LPIPS: unavailable in both)."""
    card = runs_lib.load_run(BUNDLED).card
    card.model_name = "other"
    for m in card.metrics:
        if m.id == "GT_H_PSNR":
            m.value = 19.5
    runs = runs_lib.load_runs([BUNDLED, testdata.write_run(tmp_path / "b", card, None)])
    (group,) = group_panels.groups_of(runs)
    assert group.columns == ("Visible", "Disappeared", "Reappear")
    assert [name for name, _ in group.rows] == ["PSNR", "SSIM", "LPIPS"]
    assert group.rows[0][1] == ("GT_O_PSNR", "GT_H_PSNR", "GT_R_PSNR")
    dom = dom_lib.parse(report_lib.render(runs, resamples=200))
    assert "groups" in dom.sections and "group-fidelity_by_phase" in dom.ids
    dom_lib.assert_groups_match(dom, runs, (group,))
    dom_lib.assert_number(dom, (1, "GT_H_PSNR", "group_value"), 19.5)
    assert dom.numbers[(0, "GT_R_LPIPS", "group_value")][0] == "—"


def test_three_runs_are_compared_with_the_baseline(pair_runs, tmp_path):
    a, b = (run.path for run in pair_runs)
    runs = runs_lib.load_runs([a, b, a])
    got = report_lib.comparisons(runs, seed=1, resamples=100, baseline=1)
    assert [(c.a, c.b) for c in got] == [(runs[1].label, runs[0].label),
                                         (runs[1].label, runs[2].label)]
    score = {m.key: m for m in got[0].metrics}["score"]
    assert score.difference == -1.25  # A minus B over s1..s4, B now the baseline
    with pytest.raises(runs_lib.RunError, match="baseline 4"):
        report_lib.comparisons(runs, seed=1, resamples=100, baseline=3)
    out = tmp_path / "three.html"
    done = REPORT.run(tmp_path, f"--scorecards={a},{b},{a}", f"--output={out}",
                      "--baseline=2", "--resamples=100")
    assert done.returncode == 0, done.stderr
    assert out.read_text().count('class="comparison"') == 2


@pytest.mark.parametrize("case", ["empty", "bare_nan", "array", "output_is_a_folder"])
def test_unusable_input_is_one_line_and_exit_2(pair_runs, tmp_path, case):
    """A 0-byte scorecard, a bare NaN, `[]`, an --output that is a folder: one line naming
    the file and what was expected, exit 2, no traceback, no report."""
    a = pair_runs[0].path
    text = a.read_text(encoding="utf-8")
    bad = tmp_path / "bad" / "scorecard.json"
    bad.parent.mkdir()
    out = tmp_path / "report.html"
    if case == "output_is_a_folder":
        out.mkdir()
        args, named, expected = [f"--scorecards={a}"], out, report_lib.OUTPUT_EXPECTED
    else:
        bad.write_text({"empty": "", "array": "[]\n",
                        "bare_nan": text.replace('"value": 2.5', '"value": NaN')}[case])
        args, named, expected = [f"--scorecards={a},{bad}"], bad, runs_lib.SCORECARD_EXPECTED
    done = REPORT.run(tmp_path, *args, f"--output={out}")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr  # one line
    assert done.stderr.startswith(f"error: {named}: expected {expected}, found "), done.stderr
    assert not out.is_file()


def test_a_bare_nan_as_a_user_runs_it(pair_runs, tmp_path):
    bad = tmp_path / "scorecard.json"
    bad.write_text(pair_runs[0].path.read_text().replace('"value": 2.5', '"value": NaN'))
    done = REPORT.run_subprocess(tmp_path, f"--scorecards={bad}",
                                 f"--output={tmp_path / 'r.html'}")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{bad}: expected a worldeval scorecard" in done.stderr
    assert "a bare NaN at metrics[0].value" in done.stderr
