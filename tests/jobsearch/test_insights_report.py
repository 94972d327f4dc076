"""`jobsearch report --html`: the insights page as one file that refers to nothing outside itself."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from jobsearch.cli import main
from jobsearch.insights.charts import CHART_KEYS
from jobsearch.store import Store
from tests.jobsearch.export_support import drafts, listing

HOSTILE = "<script>alert('company')</script>"


class References(HTMLParser):
    """Every address an element of the document names (href, src, action, ...), and its tags."""

    def __init__(self) -> None:
        super().__init__()
        self.addresses: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("href", "src", "action", "srcset", "poster", "data", "xlink:href") and value:
                self.addresses.append(value)


def test_report_writes_one_self_contained_file_with_every_chart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file holds every chart's SVG, table and CSV (as a data: link), its stylesheet inline, no
    script, and no address outside itself; a company's markup is text."""
    db = tmp_path / "jobsearch.sqlite"
    with Store.open(db) as store:
        store.start_run("r1", profile="p.toml")
        for n in range(1, 5):
            store.record_export(
                run_id="r1",
                job_id=f"j{n}",
                drafts=drafts(),
                listing=listing(n, company=HOSTILE if n == 2 else f"Co {n}"),
            )
        store.finish_run("r1", outcome="ok", summary={"listings_new": 4})
        store.set_status("L00001", "Applied", source="ui")
        store.set_status("L00001", "Screen", source="ui")
    out = tmp_path / "out.html"
    assert main(["report", "--html", str(out), "--db", str(db)]) == 0
    assert f"report: {out}" in capsys.readouterr().out
    html = out.read_text(encoding="utf-8")
    parsed = References()
    parsed.feed(html)
    assert "script" not in parsed.tags
    assert "link" not in parsed.tags
    assert "img" not in parsed.tags
    assert all(a.startswith(("data:text/csv", "#")) for a in parsed.addresses), parsed.addresses
    assert not re.search(r"https?://|//[a-z]", html.replace("https://jobs.example.com", "")), (
        "an outside address"
    )
    assert re.findall(r"url\(([^)]*)\)", html) == [
        a for a in re.findall(r"url\(([^)]*)\)", html) if a.startswith("#")
    ]
    assert "@import" not in html
    assert parsed.tags.count("svg") == len(CHART_KEYS) - 1  # no fit scores: that chart says so instead
    csv_links = [unquote(a) for a in parsed.addresses if a.startswith("data:text/csv")]
    assert len(csv_links) == len(CHART_KEYS)
    assert "From found to offer" in html
    assert "<style>" in html
    assert HOSTILE not in html


def test_report_on_a_fresh_data_dir_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A data dir with no listings gives a report that says to run a search."""
    for name in ("JOBSEARCH_DB", "JOBSEARCH_TRACKER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path))
    out = tmp_path / "fresh.html"
    assert main(["report", "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert 'id="insights-empty"' in html
    assert "jobsearch run --profile PROFILE" in html
    assert "<svg" not in html


def test_report_into_a_missing_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unwritable output path is an error message and exit code 2, not a traceback."""
    db = tmp_path / "jobsearch.sqlite"
    assert main(["report", "--html", str(tmp_path / "no" / "such" / "dir.html"), "--db", str(db)]) == 2
    assert "cannot write" in capsys.readouterr().err
