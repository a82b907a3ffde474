"""docs/catalog.md is the catalog rendered; the table shows every entry and no more claims."""

from proto import catalog_pb2
from proto import scorecard_pb2
from tools.catalog import catalog_lib
from tools.catalog import render


def test_docs_page_is_up_to_date():
    page = (catalog_lib.repo_root() / "docs" / "catalog.md").read_text(encoding="utf-8")
    assert page == render.markdown(catalog_lib.load_catalog()), (
        f"docs/catalog.md is stale: regenerate it with {render.COMMAND}")


def test_table_has_a_row_per_benchmark():
    catalog = catalog_lib.load_catalog()
    lines = render.table(catalog).splitlines()
    assert lines[0].split() == ["id", "set", "environment", "implementation", "verification"]
    rows = lines[2:2 + len(catalog.benchmarks)]
    assert [row.split()[0] for row in rows] == catalog_lib.benchmark_ids(catalog)
    assert lines[-1].startswith("42 benchmarks (30 video generation, 12 world model)")


def test_markdown_has_a_section_and_a_row_per_benchmark():
    catalog = catalog_lib.load_catalog()
    page = render.markdown(catalog)
    for entry in catalog.benchmarks:
        assert f"\n### {entry.id}\n" in page
        assert f"| [`{entry.id}`](#{entry.id.replace('.', '')}) |" in page
    assert "## Video generation (30)" in page and "## World models (12)" in page
    runnable = [e.id for e in render.runnable(catalog)]
    assert len(runnable) >= 5 and "memobench" in runnable and "vbench" in runnable
    assert f"worldeval runs {len(runnable)} of them today: [`{runnable[0]}`]" in page


def test_verification_names_the_data_of_its_evidence():
    entry = catalog_pb2.BenchmarkEntry(id="x", verification=scorecard_pb2.BOUNDED)
    assert render.verification(entry) == "BOUNDED"
    entry.evidence.add(data=catalog_pb2.BUNDLED_SAMPLE)
    assert render.verification(entry) == "BOUNDED (bundled sample, not official data)"


def test_cells_cannot_break_the_table():
    entry = catalog_pb2.BenchmarkEntry(
        id="x", name="a|b", measures="m", task_family=catalog_pb2.WORLD_MODEL,
        environment=1, implementation=catalog_pb2.NOT_IMPLEMENTED,
        verification=scorecard_pb2.NOT_EXECUTED)
    page = render.markdown(catalog_pb2.Catalog(benchmarks=[entry]))
    row, = [line for line in page.splitlines() if line.startswith("| [`x`]")]
    assert "a\\|b" in row and row.count(" | ") == 7
