"""`jobsearch boards find`: a company's boards, printed as `[[sources]]` tables or added to a profile.

A command that needs no NATS server, added to the `jobsearch` parser with `add_boards_commands`
like `jobsearch.local_commands`. Standard output is TOML throughout (what is not a source is a
comment), so it can be pasted into a profile as it is; progress goes to standard error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Final

import anyio

from jetjobs import ConfigError
from jobsearch.fetch.handlers import load_http_policy
from jobsearch.finding.probe import Company, CompanyReport, Finding, Mirrors, find_companies
from jobsearch.finding.profile_append import append_sources, source_table, toml_comment
from jobsearch.finding.slugs import normal_domain
from jobsearch.profile import Source, load_profile
from jobsearch.sources import BoardHttp

# A test and mirror hook: JSON `{"<board>": "<base URL>", "site": "<base URL>"}` (docs/boards.md).
BASES_VARIABLE: Final = "JOBSEARCH_FIND_BASES"


def cmd_boards_find(args: argparse.Namespace) -> int:
    """Find the companies' boards; 0 when any source has postings, 1 when none has, 2 on bad input."""
    try:
        companies = companies_of(args.names, args.domain, args.from_file)
    except ValueError as exc:
        print(f"jobsearch: error: {exc}", file=sys.stderr)
        return 2
    mirrors = mirrors_from_env(os.environ)
    if args.add is not None:
        load_profile(args.add)  # a profile that does not load fails before any request
    reports = anyio.run(_find, companies, mirrors)
    tables: list[tuple[Source, str]] = []
    for report in reports:
        print(render(report))
        tables += _tables(report)
    if args.add is not None and tables:
        appended = append_sources(
            args.add, tables, heading=f"Found by `jobsearch boards find` on {date.today()}"
        )
        print(
            f"jobsearch: added {len(appended.added)} source(s) to {args.add}"
            + (f" ({len(appended.present)} already there)" if appended.present else ""),
            file=sys.stderr,
        )
    return 0 if tables else 1


async def _find(companies: list[Company], mirrors: Mirrors) -> list[CompanyReport]:
    count = 0

    def done(report: CompanyReport) -> None:
        nonlocal count
        count += 1
        found = sum(1 for f in report.findings if f.verdict == "found")
        print(f"jobsearch: {count}/{len(companies)} {report.company.name}: {found} found", file=sys.stderr)

    async with BoardHttp(load_http_policy()) as http:
        return await find_companies(http, companies, mirrors, done=done)


def companies_of(names: list[str], domain: str | None, from_file: Path | None) -> list[Company]:
    """The companies named on the command line and in `--from` (`Name` or `Name,domain` a line).

    Raises:
        ValueError: no company, a bad domain, `--domain` with several names, an unreadable file.
    """
    if domain is not None and len(names) != 1:
        raise ValueError("--domain goes with one company name (for several, a --from file of `Name,domain`)")
    companies = [Company(n.strip(), normal_domain(domain) if domain else None) for n in names if n.strip()]
    if from_file is not None:
        try:
            lines = from_file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read {from_file}: {exc}") from None
        companies += [
            _company_line(line) for line in lines if line.strip() and not line.lstrip().startswith("#")
        ]
    if not companies:
        raise ValueError("name a company (or give a --from file, one company a line)")
    return list({(c.name.casefold(), c.domain): c for c in companies}.values())


def _company_line(line: str) -> Company:
    """`Acme` or `Acme, acme.com`; a comma not followed by a domain is the name's ("Acme, Inc.")."""
    name, comma, rest = line.strip().rpartition(",")
    if comma and rest.strip():
        try:
            return Company(name.strip(), normal_domain(rest))
        except ValueError:
            pass
    return Company(line.strip())


def mirrors_from_env(env: Mapping[str, str]) -> Mirrors:
    """The mirrors `JOBSEARCH_FIND_BASES` names (none when unset).

    Raises:
        ConfigError: the variable is not a JSON object of base URLs for known boards.
    """
    raw = env.get(BASES_VARIABLE, "").strip()
    if not raw:
        return Mirrors()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ConfigError(f"{BASES_VARIABLE}: not JSON: {exc}") from None
    return Mirrors.parse(data, BASES_VARIABLE)


def render(report: CompanyReport) -> str:
    """One company's findings as TOML: a table per source with postings, comments for the rest."""
    company = report.company
    found = [f for f in report.findings if f.verdict == "found"]
    where = f" ({company.domain})" if company.domain else ""
    slugs = ", ".join(report.slugs) or "none"
    summary = f"{company.name}{where}: {len(report.tried)} tried (slugs: {slugs}): "
    summary += f"{len(found)} found" if found else "no board found"
    parts = [toml_comment(summary)]
    parts += [source_table(f.source, _found_comment(report, f)) for f in found if f.source is not None]
    for finding in report.findings:
        if finding.verdict == "empty" and finding.source is not None:
            lines = source_table(finding.source).splitlines()
            note = f"{company.name}: {finding.what} exists, no open postings (uncomment to read it)"
            parts.append(toml_comment("\n".join([note, *lines])) + "\n")
    unchecked = [f for f in report.findings if f.verdict == "unchecked"]
    parts += [toml_comment(f"{company.name}: could not check {f.what}: {f.reason}") for f in unchecked]
    return "\n".join(parts).rstrip("\n") + "\n"


def _tables(report: CompanyReport) -> list[tuple[Source, str]]:
    """The sources with postings, each with its comment: what `--add` appends."""
    return [
        (f.source, _found_comment(report, f))
        for f in report.findings
        if f.verdict == "found" and f.source is not None
    ]


def _found_comment(report: CompanyReport, finding: Finding) -> str:
    sample = f', e.g. "{finding.sample}"' if finding.sample else ""
    return f"{report.company.name}: {finding.postings} posting(s){sample}"


def add_boards_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `boards find` to the `jobsearch` parser."""
    boards = sub.add_parser(
        "boards", help="find companies' job boards", description="Find the job boards companies post on."
    )
    commands = boards.add_subparsers(dest="boards_command", required=True, metavar="SUBCOMMAND")
    p = commands.add_parser(
        "find",
        help="find a company's boards and print them as [[sources]] tables",
        description="Try each company's likely names on every board keyed by a company name "
        "(Greenhouse, Lever, Ashby, Workable, SmartRecruiters, Personio, Recruitee, BambooHR, Breezy) "
        "and, with a domain, read its careers pages for links to a board (Workday included) and "
        "schema.org JobPosting data. Prints the sources with postings as TOML [[sources]] tables.",
    )
    p.add_argument("names", nargs="*", metavar="COMPANY", help='a company name ("Acme Robotics GmbH")')
    p.add_argument("--domain", help="the company's domain (one COMPANY only): its careers pages are read")
    p.add_argument(
        "--from",
        dest="from_file",
        type=Path,
        metavar="FILE",
        help="more companies, one a line: `Name` or `Name,domain` (# comments allowed)",
    )
    p.add_argument(
        "--add",
        type=Path,
        metavar="PROFILE",
        help="append the sources found to this profile TOML (its text kept; sources it has skipped)",
    )
    p.set_defaults(func=None, local=cmd_boards_find)
