"""`jobsearch listings` and `jobsearch schemas`: no server, the SQLite file and the schema files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jobsearch.cli import main
from jobsearch.dedupe.report import read_listings
from jobsearch.dedupe.store import SeenSet
from jobsearch.profile import Person, Profile, Search
from tests.jobsearch.test_dedupe_match import posting


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A pipeline data dir with two postings of one job, and one listing the filters dropped."""
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("JOBSEARCH_DB", raising=False)
    seen = SeenSet(tmp_path / "jobsearch.sqlite")
    keep = Search(exclude=["bakery"])
    seen.record(posting("1", "Backend Engineer"), keep, "r")
    seen.record(
        posting("2", "Backend Engineer (m/w/d)", board="arbeitnow", url="https://a.example/2"), keep, "r"
    )
    seen.record(posting("3", "Baker", company="Bakery\x1b[31m Ltd", url="https://b.example/3"), keep, "r")
    seen.close()
    return tmp_path


def test_listings_prints_merged_listings_with_their_sources(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The kept listing shows once with both board postings; the dropped one only with --all, with
    its reason, and a control character in scraped text is printed escaped."""
    assert main(["listings"]) == 0
    out = capsys.readouterr().out
    assert out.count("Backend Engineer") == 1
    assert "greenhouse" in out
    assert "arbeitnow" in out
    assert "Baker" not in out
    assert main(["listings", "--all"]) == 0
    out = capsys.readouterr().out
    assert "exclude: 'bakery' in the company" in out
    assert "\x1b" not in out
    assert "\\u001b" in out


def test_listings_explain_says_why_each_posting_joined(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--explain ID (a prefix will do) names each posting, how it joined (the first posting, or
    fuzzy with its title score), and an unknown id exits 1 with a message."""
    assert main(["listings", "--json"]) == 0
    [item] = json.loads(capsys.readouterr().out)
    assert main(["listings", "--explain", item["listing"]["id"][:8]]) == 0
    out = capsys.readouterr().out
    assert "greenhouse:1" in out
    assert "joined by new: the first posting of the listing" in out
    assert re.search(r"arbeitnow:2 .*\n    joined by fuzzy: same title \(title \d+/100", out), out
    assert main(["listings", "--explain", "nothing-like-it"]) == 1
    assert "no listing has the id" in capsys.readouterr().err


def test_listings_json(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints each merged listing with its sources, state and drop reason."""
    assert main(["listings", "--json", "--all"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert sorted(len(item["listing"]["sources"]) for item in items) == [1, 2]
    assert {item["state"] for item in items} == {"pending", "dropped"}


def test_listings_without_a_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No database yet: a message, exit 0, and no file created."""
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path / "none"))
    monkeypatch.delenv("JOBSEARCH_DB", raising=False)
    assert main(["listings"]) == 0
    assert "no listings yet" in capsys.readouterr().out
    assert not (tmp_path / "none").exists()


def test_schemas_command_writes_and_checks(tmp_path: Path) -> None:
    """`jobsearch schemas DIR` writes files that `--check` accepts; an edit makes --check fail."""
    assert main(["schemas", str(tmp_path)]) == 0
    assert main(["schemas", "--check", str(tmp_path)]) == 0
    (tmp_path / "search.schema.json").write_text("{}")
    assert main(["schemas", "--check", str(tmp_path)]) == 1


def test_listings_rank_by_fit_with_reasons_and_filter_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Listings recorded with the run's profile carry their fit: `listings` puts the best first with
    its reasons, `--min-fit` keeps those at or above it, and `--json` gives `fit` and `fit_reasons`
    for every listing, the dropped ones included."""
    monkeypatch.setenv("JOBSEARCH_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("JOBSEARCH_DB", raising=False)
    profile = Profile(
        person=Person(name="Ada", skills=["Python", "PostgreSQL"]),
        search=Search(terms=["Backend Engineer"], exclude=["bakery"]),
    )
    seen = SeenSet(tmp_path / "jobsearch.sqlite")
    seen.record(posting("1", "Office Manager", url="https://o.example/1"), profile.search, "r", profile)
    seen.record(posting("2", "Backend Engineer", url="https://b.example/2"), profile.search, "r", profile)
    seen.record(
        posting("3", "Baker", company="Bakery Ltd", url="https://k.example/3"), profile.search, "r", profile
    )
    seen.close()

    assert main(["listings", "--all"]) == 0
    out = capsys.readouterr().out
    assert out.index("Backend Engineer") < out.index("Office Manager") < out.index("Baker")
    assert "the title is your role (Backend Engineer)" in out
    assert main(["listings", "--all", "--json"]) == 0
    items = {item["listing"]["title"]: item for item in json.loads(capsys.readouterr().out)}
    assert set(items) == {"Backend Engineer", "Office Manager", "Baker"}
    assert all(isinstance(item["fit"], int) for item in items.values())
    assert items["Backend Engineer"]["fit"] > items["Office Manager"]["fit"] > items["Baker"]["fit"]
    assert {"points", "text"} <= set(items["Baker"]["fit_reasons"][0])
    assert items["Baker"]["state"] == "dropped"
    top = items["Backend Engineer"]["fit"]
    assert main(["listings", "--all", "--min-fit", str(top)]) == 0
    out = capsys.readouterr().out
    assert "Backend Engineer" in out
    assert "Office Manager" not in out


def test_a_fault_of_the_fit_score_never_costs_the_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The score raising for a listing leaves it recorded and kept, only unscored."""

    def broken(*args: object) -> object:
        raise ValueError("a bug in a rule")

    monkeypatch.setattr("jobsearch.dedupe.store.score", broken)
    profile = Profile(person=Person(name="Ada"), search=Search())
    seen = SeenSet(tmp_path / "jobsearch.sqlite")
    decision = seen.record(posting("1", "Backend Engineer"), profile.search, "r", profile)
    seen.close()
    assert decision.outcome == "new"
    assert decision.fit is None
    [stored] = read_listings(tmp_path / "jobsearch.sqlite")
    assert stored.fit is None
