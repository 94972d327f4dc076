"""`jobsearch boards find` against a real local HTTP server standing in for every board and site.

The finder's `Mirrors` (the `JOBSEARCH_FIND_BASES` hook) point each board and the company's site
at the server, so the boards' own adapters run their real HTTP code; unscripted paths answer 404,
as a board answers a name it does not know.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from jetjobs import ConfigError
from jobsearch import cli
from jobsearch.finding import (
    Company,
    CompanyReport,
    Finding,
    Mirrors,
    append_sources,
    find_company,
    slug_candidates,
    source_table,
)
from jobsearch.finding.careers import linked_source
from jobsearch.finding.command import render
from jobsearch.finding.probe import BoardGates
from jobsearch.profile import Ashby, Greenhouse, Lever, ProfileError, Recruitee, Source, Workday, load_profile
from tests.http_target import Answer, HttpTarget
from tests.jobsearch.boards import board, client, ok_file, ok_json

__all__ = ["board"]  # the fixture, imported for the tests below

GREENHOUSE = "/v1/boards/{}/jobs?content=true&pay_transparency=true"
LEVER = "/v0/postings/{}?mode=json&skip=0&limit=100"
ASHBY = "/posting-api/job-board/{}?includeCompensation=true"
WORKABLE = "/api/v1/widget/accounts/{}?details=true"
SMARTRECRUITERS = "/v1/companies/{}/postings?limit=100&offset=0"
WORKDAY_SITE = "https://acme.wd5.myworkdayjobs.com/en-US/External"
CAREERS = """<!doctype html><html><head><title>Careers at Acme</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
 {"@type": "JobPosting", "title": "Robot Trainer", "identifier": "rt-1",
  "url": "https://acme.test/careers/robot-trainer", "hiringOrganization": {"name": "Acme"}},
 {"@type": "JobPosting", "title": "Field Engineer", "identifier": "fe-2",
  "url": "https://acme.test/careers/field-engineer", "hiringOrganization": {"name": "Acme"}}]}</script>
</head><body>
<a href="https://acme.wd5.myworkdayjobs.com/en-US/External/job/Berlin/Robot-Whisperer_R-1">Workday</a>
<a href="https://jobs.lever.co/quillstone">Our sister company</a>
<script src="https://boards.greenhouse.io/embed/job_board/js?for=acme-robotics"></script>
</body></html>"""
WORKDAY_JOBS = {
    "total": 1,
    "jobPostings": [{"title": "Robot Whisperer", "externalPath": "/job/Berlin/Robot-Whisperer_R-1"}],
}


def mirrors(target: HttpTarget) -> Mirrors:
    """Every board, and acme.test's site, on the local server."""
    root = target.url("")
    return Mirrors(
        bases={
            **dict.fromkeys(("greenhouse", "lever", "ashby", "workable", "smartrecruiters", "workday"), root),
            "personio": target.url("/personio/{slug}"),
            "recruitee": target.url("/recruitee/{slug}"),
            "bamboohr": target.url("/bamboohr/{slug}"),
            "breezy": target.url("/breezy/{slug}"),
        },
        site=target.url("/site/{domain}"),
    )


def script_acme(target: HttpTarget) -> None:
    """Acme's boards: Greenhouse `acme-robotics`, Lever `acmerobotics`, Personio
    `acme-robotics-gmbh` (its XML feed), Recruitee `acme`, an
    empty Ashby `acme`, a failing Workable `acme-robotics`, SmartRecruiters' empty answer to any
    name, BambooHR's HTML home page for a name it does not know; and acme.test's careers page."""
    target.script(GREENHOUSE.format("acme-robotics"), ok_file("greenhouse_jobs.json"))
    target.script(LEVER.format("acmerobotics"), ok_file("lever_postings.json"))
    target.script("/personio/acme-robotics-gmbh/xml", ok_file("personio_feed.xml", "application/xml"))
    target.script("/recruitee/acme/api/offers/", ok_file("recruitee_offers.json"))
    target.script(ASHBY.format("acme"), ok_json({"apiVersion": "1", "jobs": []}))
    target.script(WORKABLE.format("acme-robotics"), Answer(503, b"busy", {"Content-Type": "text/plain"}))
    target.script(SMARTRECRUITERS.format("acme"), ok_json({"totalFound": 0, "content": []}))
    target.script(
        "/bamboohr/acme/careers/list", Answer(200, b"<html>BambooHR</html>", {"Content-Type": "text/html"})
    )
    target.script("/site/acme.test/robots.txt", Answer(200, b"User-agent: *\nDisallow: /join-us\n"))
    target.script("/site/acme.test/careers", Answer(200, CAREERS.encode(), {"Content-Type": "text/html"}))
    target.script("/wday/cxs/acme/External/jobs", ok_json(WORKDAY_JOBS))
    target.script(LEVER.format("quillstone"), ok_file("lever_postings.json"))


async def test_finds_exactly_the_sources_with_postings(board: HttpTarget) -> None:
    """Each board is tried for every slug; a source is found when its board lists postings, the
    careers page adds its Workday site, the Lever board it links to and its own JobPostings; an
    empty board is `empty`, a 503 `unchecked`, and wrong slugs (404, an HTML page, SmartRecruiters'
    empty answer to any name) are in no finding."""
    script_acme(board)
    async with client() as http:
        report = await find_company(http, Company("Acme Robotics GmbH", "acme.test"), mirrors(board))
    assert report.slugs == ["acmerobotics", "acme-robotics", "acme", "acmeroboticsgmbh", "acme-robotics-gmbh"]
    assert [(f.verdict, f.what, f.postings, f.sample) for f in report.findings] == [
        ("found", "greenhouse:acme-robotics", 3, "Senior Backend Engineer & Team Lead"),
        ("found", "lever:acmerobotics", 2, "Platform Engineer"),
        ("empty", "ashby:acme", 0, ""),
        ("unchecked", "workable:acme-robotics", 0, ""),
        ("found", "personio:acme-robotics-gmbh", 3, "Senior Backend Engineer (m/w/d) \u2013 Python & Go"),
        ("found", "recruitee:acme", 5, "Senior Backend-Entwickler & Teamlead (m/w/d)"),
        ("found", f"workday:{WORKDAY_SITE}", 1, "Robot Whisperer"),
        ("found", "lever:quillstone", 2, "Platform Engineer"),
        ("found", "jobposting:https://acme.test/careers", 2, "Robot Trainer"),
    ]
    unchecked = report.findings[3]
    assert "HTTP 503" in unchecked.reason
    assert len(board.to(WORKABLE.format("acme-robotics"))) == 3  # BoardHttp's retries, then given up
    found = {f.what: f.source for f in report.findings}
    assert found[f"workday:{WORKDAY_SITE}"] == Workday(url=WORKDAY_SITE, base_url=board.url(""))
    assert found["recruitee:acme"] == Recruitee(company="acme", base_url=board.url("/recruitee/acme"))


async def test_wrong_slugs_are_tried_once_each_and_skipped_quietly(board: HttpTarget) -> None:
    """Every slug is asked of every board once (a board the page links to as well is not asked
    twice); the 404s leave no trace in the report but the count of sources tried; robots.txt keeps
    the finder off a disallowed careers path."""
    script_acme(board)
    async with client() as http:
        report = await find_company(http, Company("Acme Robotics GmbH", "acme.test"), mirrors(board))
    for slug in report.slugs:
        assert len(board.to(GREENHOUSE.format(slug))) == 1
        assert len(board.to(SMARTRECRUITERS.format(slug))) == 1
        assert len(board.to(f"/breezy/{slug}/json?verbose=true")) == 1
    assert len(report.tried) == 9 * 5 + 2 + 1  # 9 boards x 5 slugs, 2 linked, the pages
    assert report.tried[-1] == "1 page(s) of acme.test"
    assert not any("acmeroboticsgmbh" in f.what or "breezy" in f.what for f in report.findings)
    assert board.to("/site/acme.test/join-us") == []
    assert len(board.to("/site/acme.test/careers/")) == 1  # tried, 404, quietly


async def test_without_a_domain_no_page_is_read(board: HttpTarget) -> None:
    """Without a domain only the slugs are tried: no site request, no Workday."""
    script_acme(board)
    async with client() as http:
        report = await find_company(http, Company("Acme Robotics"), mirrors(board))
    assert [f.what for f in report.findings if f.verdict == "found"] == [
        "greenhouse:acme-robotics",
        "lever:acmerobotics",
    ]
    assert not [r for r in board.requests if r.path.startswith(("/site/", "/wday/"))]


def test_printed_sources_load_as_toml_tables() -> None:
    """The printout is TOML: the found sources as `[[sources]]` tables with their count and a
    sample title in a comment, the empty board commented out, the unchecked one a comment."""
    report = CompanyReport(
        Company("Acme", "acme.test"),
        ["acme"],
        tried=["greenhouse:acme", "ashby:acme", "workable:acme"],
        findings=[
            Finding("greenhouse:acme", "found", Greenhouse(token="acme"), 3, 'Lead "Robots" Engineer\x1b[2J'),
            Finding("ashby:acme", "empty", Ashby(board_name="acme")),
            Finding("workable:acme", "unchecked", reason="workable: HTTP 503 after 3 attempts"),
        ],
    )
    printed = render(report)
    assert tomllib.loads(printed) == {"sources": [{"board": "greenhouse", "token": "acme"}]}
    assert '# Acme: 3 posting(s), e.g. "Lead "Robots" Engineer [2J"\n[[sources]]\n' in printed
    assert "\x1b" not in printed
    assert "# Acme: ashby:acme exists, no open postings (uncomment to read it)\n# [[sources]]\n" in printed
    assert "# Acme: could not check workable:acme: workable: HTTP 503 after 3 attempts" in printed
    assert printed.startswith("# Acme (acme.test): 3 tried (slugs: acme): 1 found\n")


PROFILE = """# Mara's profile: hand-written, with comments that must survive.
[person]
name = "Mara"   # the name drafts sign with

[search]
terms = ["robotics"]

# The boards I read already.
[[sources]]
board = "greenhouse"
token = "Acme-Robotics"   # case differs: still the same board
"""


def found_tables(target_url: str) -> list[tuple[Source, str]]:
    """Three sources as the finder hands them to `--add`, one the profile already has."""
    return [
        (Greenhouse(token="acme-robotics"), "Acme: 3 posting(s)"),
        (Lever(site="acmerobotics", base_url=target_url), 'Acme: 2 posting(s), e.g. "Platform \\ Engineer"'),
        (Workday(url=WORKDAY_SITE), "Acme: 1 posting(s)"),
    ]


def test_add_appends_text_keeping_the_profile_and_skips_sources_it_has(tmp_path: Path) -> None:
    """`--add` appends the new sources after the file's own text, byte for byte kept; the source
    the profile already has is not added; the file loads after; a second run adds nothing."""
    path = tmp_path / "me.toml"
    path.write_text(PROFILE, encoding="utf-8")
    appended = append_sources(path, found_tables("http://127.0.0.1:9"), heading="Found on 2026-11-20")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(PROFILE)
    assert text[len(PROFILE) :] == (
        "\n# Found on 2026-11-20\n"
        '# Acme: 2 posting(s), e.g. "Platform \\ Engineer"\n[[sources]]\nboard = "lever"\n'
        'site = "acmerobotics"\nbase_url = "http://127.0.0.1:9"\n\n'
        '# Acme: 1 posting(s)\n[[sources]]\nboard = "workday"\n'
        f'url = "{WORKDAY_SITE}"\n'
    )
    assert [type(s).__name__ for s in appended.added] == ["Lever", "Workday"]
    assert appended.present == [Greenhouse(token="acme-robotics")]
    assert [type(s).__name__ for s in load_profile(path).sources] == ["Greenhouse", "Lever", "Workday"]
    again = append_sources(path, found_tables("http://127.0.0.1:9"), heading="Found on 2026-11-21")
    assert again.added == []
    assert path.read_text(encoding="utf-8") == text


def test_add_leaves_a_profile_that_cannot_take_tables_untouched(tmp_path: Path) -> None:
    """A profile whose `sources` is an inline array cannot take `[[sources]]` tables: the error
    says so and the file is as it was."""
    path = tmp_path / "inline.toml"
    original = 'sources = []\n[person]\nname = "Mara"\n'
    path.write_text(original, encoding="utf-8")
    with pytest.raises(ProfileError, match="left as it was"):
        append_sources(path, found_tables("http://127.0.0.1:9"), heading="Found")
    assert path.read_text(encoding="utf-8") == original


def test_slug_candidates() -> None:
    """The name lowercased and joined or hyphenated, without its legal form first, the domain's
    first label, umlauts written out, then with the legal form."""
    assert slug_candidates("Acme Robotics GmbH", "www.acme.io") == [
        "acmerobotics",
        "acme-robotics",
        "acme",
        "acmeroboticsgmbh",
        "acme-robotics-gmbh",
    ]
    assert slug_candidates("Müller & Söhne GmbH & Co. KG")[:4] == [
        "mullersohne",
        "muller-sohne",
        "muellersoehne",
        "mueller-soehne",
    ]
    assert slug_candidates("Globex B.V.") == ["globex", "globexbv", "globex-bv"]
    assert slug_candidates("Initech, Inc.") == ["initech", "initechinc", "initech-inc"]


@pytest.mark.parametrize(
    ("url", "source"),
    [
        ("https://boards.greenhouse.io/acme/jobs/123", Greenhouse(token="acme")),
        ("https://boards.greenhouse.io/embed/job_board?for=acme", Greenhouse(token="acme")),
        ("https://jobs.lever.co/acme/5f2c-1a9e", Lever(site="acme")),
        ("https://jobs.eu.lever.co/acme", Lever(site="acme", base_url="https://api.eu.lever.co")),
        ("https://acme.recruitee.com/o/engineer", Recruitee(company="acme")),
        (f"{WORKDAY_SITE}/job/Berlin/X_R-1", Workday(url=WORKDAY_SITE)),
        ("https://apply.workable.com/j/AB12CD", None),
        ("https://www.recruitee.com/", None),
        ("https://www.myworkdayjobs.com/", None),
    ],
)
def test_board_links_name_their_sources(url: str, source: Source | None) -> None:
    """A board URL names its source; the boards' own pages name none."""
    assert linked_source(url) == source


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"monster": "http://x"}, "unknown board 'monster'"),
        ({"recruitee": "http://127.0.0.1:1"}, "must carry {slug}"),
        (["http://x"], "a JSON object of strings"),
    ],
)
def test_bad_mirrors_fail_naming_the_variable(data: object, message: str) -> None:
    """A wrong `JOBSEARCH_FIND_BASES` fails at start, naming the variable and what is wrong."""
    with pytest.raises(ConfigError, match=message):
        Mirrors.parse(data, "JOBSEARCH_FIND_BASES")


def _wired() -> bool:
    """Whether `jobsearch.cli` has the `boards` command yet (its wiring is one line there)."""
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            cli.build_parser().parse_args(["boards", "find", "Acme"])
        except SystemExit:
            return False
    return True


@pytest.mark.skipif(not _wired(), reason="add_boards_commands is not wired into jobsearch.cli yet")
def test_cli_finds_a_list_of_companies_and_adds_them(board: HttpTarget, tmp_path: Path) -> None:
    """`jobsearch boards find NAME --from FILE --add PROFILE`, end to end in a process: every
    company's sources printed as TOML, the progress on stderr, the profile appended to and loading."""
    script_acme(board)
    board.script(GREENHOUSE.format("globex"), ok_file("greenhouse_jobs.json"))
    companies = tmp_path / "companies.txt"
    companies.write_text("# targets\nAcme Robotics GmbH,acme.test\n\nInitech, Inc.\n", encoding="utf-8")
    profile = tmp_path / "me.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    local = mirrors(board)
    env = dict(os.environ) | {
        "JOBSEARCH_FIND_BASES": json.dumps({**local.bases, "site": local.site}),
        "JOBSEARCH_ALLOW_HOSTS": "127.0.0.1",
        "JOBSEARCH_HTTP_MIN_INTERVAL": "0",
        "JOBSEARCH_HTTP_RETRIES": "0",
    }
    command = ["boards", "find", "Globex", "--from", str(companies), "--add", str(profile)]
    done = subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    printed = tomllib.loads(done.stdout)["sources"]
    assert [
        (s["board"], s.get("token") or s.get("site") or s.get("company") or s["url"]) for s in printed
    ] == [
        ("greenhouse", "globex"),
        ("greenhouse", "acme-robotics"),
        ("lever", "acmerobotics"),
        ("personio", "acme-robotics-gmbh"),
        ("recruitee", "acme"),
        ("workday", WORKDAY_SITE),
        ("lever", "quillstone"),
        ("jobposting", "https://acme.test/careers"),
    ]
    assert (
        "# Initech, Inc.: 27 tried (slugs: initech, initechinc, initech-inc): no board found" in done.stdout
    )
    assert "could not check workable:acme-robotics" in done.stdout
    assert "3/3" in done.stderr
    assert "added 7 source(s)" in done.stderr
    assert "(1 already there)" in done.stderr
    text = profile.read_text(encoding="utf-8")
    assert text.startswith(PROFILE)
    assert [type(s).__name__ for s in load_profile(profile).sources] == [
        "Greenhouse",
        "Greenhouse",
        "Lever",
        "Personio",
        "Recruitee",
        "Workday",
        "Lever",
        "JobPosting",
    ]


def test_source_table_writes_only_what_differs_from_the_defaults() -> None:
    """A source's table names its board and the fields set, not the defaults."""
    assert source_table(Greenhouse(token="acme")) == '[[sources]]\nboard = "greenhouse"\ntoken = "acme"\n'


async def test_a_subdomain_board_is_gated_as_one_service() -> None:
    """Every company's Recruitee probes share one gate of `per_host` (many host names, one
    service); Greenhouse's one host is BoardHttp's own to space."""
    gates = BoardGates(2)
    first, second = gates.of(Recruitee(company="acme")), gates.of(Recruitee(company="globex"))
    assert first is not None
    assert first is second
    assert first.total_tokens == 2
    assert gates.of(Greenhouse(token="acme")) is None
