"""Dedupe's lookups in the seen-set: boilerplate, regions, agencies, slugs, an older file (no server)."""

from __future__ import annotations

from pathlib import Path

from jobsearch.dedupe import tables
from jobsearch.dedupe.store import SeenSet
from jobsearch.listing import Listing
from jobsearch.profile import Search
from tests.jobsearch.test_dedupe_match import posting as match_posting

ABOUT = (
    "About Northwind. Northwind builds warehouse robots that pick and pack parcels for online shops "
    "in twelve countries, and we are a team of two hundred people in Berlin and Lisbon. "
)
BENEFITS = (
    "What we offer. Thirty days of leave, a yearly learning budget, a public transport ticket, a "
    "pension with a generous employer share, and a robot named Fred who brings the coffee. "
    "Northwind is an equal opportunity employer: we welcome applications from everyone, whatever "
    "their background, and we will make any adjustments you need during the interviews."
)
PRODUCT_SECURITY = (
    "The role. You will find and fix vulnerabilities in the fleet software before attackers do: "
    "threat models with each team, reviews of risky changes, a bug bounty that pays, and the tools "
    "that make the secure way the easy way for the engineers who write our planning services. "
)
CLOUD_SECURITY = (
    "The role. You will own the security of our cloud accounts: identity and access policies, "
    "network boundaries between environments, detection rules for the logs we collect, and the "
    "incident response runbooks the on-call engineers follow when an alarm fires at night. "
)
PLATFORM = (
    "The role. You will run the Kubernetes clusters every Northwind service deploys to, keep the "
    "deployment pipeline fast and safe, and build the paved roads that let a team launch a new "
    "service in a day without asking anyone for permission or waiting for a ticket. "
)


def posting(external_id: str, title: str, **fields: object) -> Listing:
    """A Greenhouse posting of Northwind Robotics in Berlin, with the platform role's text, unless
    `fields` say otherwise."""
    defaults: dict[str, object] = {
        "company": "Northwind Robotics",
        "description": ABOUT + PLATFORM + BENEFITS,
    }
    return match_posting(external_id, title, **(defaults | fields))


def run(path: Path, *postings: Listing) -> list[str]:
    """Feed postings to the seen-set at `path`: the merged id of each."""
    seen = SeenSet(path)
    try:
        return [seen.record(p, Search(), "run").listing.id for p in postings]
    finally:
        seen.close()


def test_shared_boilerplate_is_not_evidence(tmp_path: Path) -> None:
    """ "Security Engineer" and "Security Engineer, Cloud" at one company share its About and
    benefits, which its other listings have too: two jobs. An aggregator's shortened copy of the
    cloud posting (its role text kept) joins the cloud posting."""
    ids = run(
        tmp_path / "seen.sqlite",
        posting("1", "Platform Engineer"),
        posting("2", "Security Engineer", description=ABOUT + PRODUCT_SECURITY + BENEFITS),
        posting("3", "Security Engineer, Cloud", description=ABOUT + CLOUD_SECURITY + BENEFITS),
        posting(
            "rok-3",
            "Cloud Security Engineer - Remote",
            board="remoteok",
            url="https://remoteok.example/3",
            locations=["Germany"],
            description=ABOUT + CLOUD_SECURITY + BENEFITS[:200],
        ),
    )
    assert len({ids[1], ids[2]}) == 2
    assert ids[3] == ids[2]


def test_other_qualifiers_are_other_jobs(tmp_path: Path) -> None:
    """ "Backend Engineer, Payments" and "Backend Engineer, Risk" with the same text: two jobs."""
    ids = run(
        tmp_path / "seen.sqlite",
        posting("1", "Backend Engineer, Payments"),
        posting("2", "Backend Engineer, Risk"),
    )
    assert len(set(ids)) == 2


def test_regions_split_one_title_and_region_names_are_not_cities(tmp_path: Path) -> None:
    """One title at "Remote - Americas" and "Remote - EMEA": two jobs; "USA Only" and "Remote - US",
    or "Latin America" and "São Paulo, Brazil", are one place."""
    ids = run(
        tmp_path / "seen.sqlite",
        posting("1", "Customer Support Specialist", locations=["Remote - Americas"]),
        posting("2", "Customer Support Specialist", locations=["Remote - EMEA"]),
        posting("3", "Data Scientist", locations=["Remote - US"]),
        posting(
            "rok-3", "Data Scientist", board="remoteok", url="https://r.example/3", locations=["USA Only"]
        ),
        posting("4", "QA Engineer (LATAM)", locations=["São Paulo, Brazil"]),
        posting(
            "rem-4", "QA Engineer", board="remotive", url="https://r.example/4", locations=["Latin America"]
        ),
    )
    assert ids[0] != ids[1]
    assert ids[2] == ids[3]
    assert ids[4] == ids[5]


def test_an_aggregator_line_and_a_partner_name_the_employer(tmp_path: Path) -> None:
    """An aggregator's "Company: Northwind Robotics" line, or a staffing firm "partnering with
    Northwind Robotics", put the copy beside the employer's own posting: one job."""
    own = posting("1", "Platform Engineer")
    feed = posting(
        "rjd-1",
        "Platform Engineer | Remote Europe",
        board="rss",
        company="Remote Jobs Weekly",
        url="https://feed.example/1",
        locations=[],
        description="Company: Northwind Robotics\nLocation: Berlin\n\n" + PLATFORM + BENEFITS,
    )
    agency = posting(
        "sr-1",
        "Platform Engineer",
        board="smartrecruiters",
        company="Talentbridge Staffing",
        url="https://sr.example/1",
        description="Talentbridge Staffing is partnering with Northwind Robotics, a robotics firm. "
        + PLATFORM,
    )
    assert len(set(run(tmp_path / "seen.sqlite", own, feed, agency))) == 1


def test_a_board_slug_is_the_company_it_begins(tmp_path: Path) -> None:
    """Lever's "northwind" and an agency's "Northwind Robotics" (the slug and a word like
    "Robotics") are one company: the same title in the same city is one job, in either order."""
    lever = posting(
        "lv-1",
        "Field Service Technician [Contract]",
        board="lever",
        company="northwind",
        url="https://jobs.lever.example/northwind/1",
        locations=["Austin, TX"],
        employment_type="Contract",
    )
    agency = posting(
        "sr-7",
        "Field Service Technician (Contract) - Austin, TX",
        board="smartrecruiters",
        company="Talentbridge Staffing",
        url="https://sr.example/7",
        locations=["Austin, TX, United States"],
        employment_type="Contract",
        description="On behalf of our client Northwind Robotics, we are hiring a technician. " + BENEFITS,
    )
    assert len(set(run(tmp_path / "a.sqlite", lever, agency))) == 1
    assert len(set(run(tmp_path / "b.sqlite", agency, lever))) == 1


def test_an_older_file_gets_features_and_blocks_anew(tmp_path: Path) -> None:
    """A seen-set written by an older normalisation (no features version, blocks missing) is
    brought up to date when opened: a posting then finds the listing recorded before."""
    path = tmp_path / "seen.sqlite"
    (first,) = run(path, posting("1", "Platform Eng. (EMEA, Remote)", locations=["EMEA"]))
    seen = SeenSet(path)
    with seen.conn:
        seen.conn.execute("DELETE FROM dedupe_title_tokens")
        seen.conn.execute("DELETE FROM dedupe_meta")
        seen.conn.execute("UPDATE dedupe_listings SET features = replace(features, 'engineer', 'eng emea')")
    seen.close()
    seen = SeenSet(path)
    version = seen.conn.execute("SELECT value FROM dedupe_meta WHERE key = 'features'").fetchone()[0]
    seen.close()
    assert int(version) == tables.FEATURES_VERSION
    (again,) = run(path, posting("rem-1", "Platform Engineer", board="remotive", url="https://r.example/1"))
    assert again == first
