"""Test helper: the report's HTML parsed back (html.parser) into what tests check:
section ids, element ids, links, tags, text, and every number cell by
(data-run, data-metric, data-field)."""

import html.parser

import pytest


class Dom(html.parser.HTMLParser):
    """Section ids, element ids, links, tags, and each data-field element's text."""

    def __init__(self):
        super().__init__()
        self.sections, self.ids, self.hrefs, self.tags = [], set(), [], set()
        self.numbers = {}  # (run, metric, field) -> (text, data-value)
        self._open = None
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "section":
            self.sections.append(a.get("id"))
        if "id" in a:
            self.ids.add(a["id"])
        if "href" in a:
            self.hrefs.append(a["href"])
        if "data-field" in a:
            self._open = ((int(a["data-run"]), a["data-metric"], a["data-field"]),
                          a.get("data-value"), [])

    def handle_endtag(self, tag):
        if self._open and tag in ("td", "span"):
            key, value, text = self._open
            assert key not in self.numbers, f"duplicate cell {key}"
            self.numbers[key] = ("".join(text), value)
            self._open = None

    def handle_data(self, data):
        self.text.append(data)
        if self._open:
            self._open[2].append(data)


def parse(text: str) -> Dom:
    dom = Dom()
    dom.feed(text)
    return dom


def assert_number(dom: Dom, key, expected) -> None:
    """The cell's data-value is `expected` exactly, its text to 4 significant digits."""
    text, value = dom.numbers[key]
    assert float(value) == expected, key
    assert float(text) == pytest.approx(expected, rel=5e-4), key


def assert_headline_matches(dom: Dom, runs) -> None:
    """Every metric's value, n and interval, and coverage, equal the scorecards'."""
    for i, run in enumerate(runs):
        for m in run.card.metrics:
            key = f"{m.id}@{m.split}" if m.split else m.id
            if not m.available:
                assert dom.numbers[(i, key, "value")][0] == "—"
                continue
            assert_number(dom, (i, key, "value"), m.value)
            assert_number(dom, (i, key, "n"), m.sample_count)
            if m.HasField("ci95"):
                assert_number(dom, (i, key, "ci_low"), m.ci95.low)
                assert_number(dom, (i, key, "ci_high"), m.ci95.high)
        assert_number(dom, (i, "coverage", "evaluated"), run.card.coverage.evaluated)


def assert_groups_match(dom: Dom, runs, groups) -> None:
    """Every value of every metric group's table equals the run's pooled metric."""
    for i, run in enumerate(runs):
        pooled = {m.id: m for m in run.card.metrics if not m.split}
        for group in groups:
            for m_id in group.metric_ids:
                m = pooled.get(m_id)
                if m is None or not m.available:
                    assert dom.numbers[(i, m_id, "group_value")][0] == "—"
                else:
                    assert_number(dom, (i, m_id, "group_value"), m.value)
