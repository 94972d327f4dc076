"""The `sample` board: fictional listings shipped with the package, read with no network.

`data/sample.json` holds ~40 hand-written postings (SAMPLE DATA, not real jobs: every company is
made up and every URL is on the reserved `.example` domain) with the cases the pipeline must get
right: cross-posts, a repost with tracking parameters, reworded titles, similar titles at one
company, one title at different companies, non-Latin text, missing fields and one hostile posting.
`Sample(size=N)` instead generates N deterministic postings (scale benchmarks).
"""

from __future__ import annotations

import functools
import importlib.resources
from datetime import date, timedelta

import msgspec

from jobsearch.listing import Salary, SalaryInterval, Workplace
from jobsearch.profile import Sample
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, parse_date


class SamplePosting(msgspec.Struct, kw_only=True, frozen=True):
    """One posting in `data/sample.json` (the sample board's own shape)."""

    id: str
    url: str
    title: str
    company: str = ""
    locations: list[str] = []
    remote: bool | None = None
    workplace: Workplace | None = None
    employment_type: str | None = None
    salary: Salary | None = None
    posted_at: str | None = None
    department: str | None = None
    description: str = ""  # HTML
    sample_note: str | None = None  # why the posting is in the set (for people reading the file)


class SampleFile(msgspec.Struct, kw_only=True, frozen=True):
    """`data/sample.json`: a notice that the data is fictional, and the postings."""

    notice: str
    postings: list[SamplePosting]


@functools.cache
def bundled() -> SampleFile:
    """The bundled sample postings (read once per process)."""
    raw = importlib.resources.files("jobsearch.sources").joinpath("data/sample.json").read_bytes()
    return msgspec.json.decode(raw, type=SampleFile)


def fetch(source: Sample, name: str) -> Fetched:
    """The sample board's listings: the bundled set, or `source.size` generated ones."""
    collector = Collector("sample", name)
    postings = bundled().postings if source.size is None else generate(source.size)
    for p in postings:
        description, hidden = text.visible_text(p.description)
        collector.add(
            external_id=p.id,
            url=p.url,
            title=p.title,
            company=p.company,
            locations=p.locations,
            remote=p.remote,
            workplace=p.workplace,
            employment_type=p.employment_type,
            salary=p.salary,
            posted_at=parse_date(p.posted_at),
            description=description,
            hidden_parts=hidden,
            department=p.department,
        )
    return collector.result()


_COMPANIES = (
    "Northwind Robotics", "Lumen Analytics", "Blue Heron Health", "Quillstone Labs", "Tidewater Logistics",
    "Kestrel Games", "Orbita Fintech", "Ferngrove Energy", "Copperleaf Security", "Mosaic Learning",
    "Glacier Maps", "Teapot Systems", "Vortex Audio", "Pinecone Co-op", "Sunfield Bank", "Amberline Freight",
    "Juniper Clinics", "Basalt Cloud", "Marigold Retail", "Cobalt Insurance", "Sakura Data", "Ромашка Софт",
)  # fmt: skip
_LEVELS = ("Junior", "", "Senior", "Staff", "Lead", "Principal")
_ROLES = (
    "Backend Engineer", "Frontend Engineer", "Data Engineer", "Site Reliability Engineer",
    "Machine Learning Engineer", "Product Designer", "Data Analyst", "Mobile Engineer",
    "Security Engineer", "Platform Engineer", "QA Engineer", "Engineering Manager",
)  # fmt: skip
_PLACES = (
    ("Berlin, Germany", "EUR"), ("London, UK", "GBP"), ("New York, NY", "USD"), ("Toronto, ON", "CAD"),
    ("Remote", "USD"), ("Lisbon, Portugal", "EUR"), ("Tokyo, Japan", "JPY"), ("Austin, TX", "USD"),
)  # fmt: skip
_TYPES = ("Full-time", "Full-time", "Full-time", "Contract", "Part-time")
_YEAR: SalaryInterval = "year"


def generate(size: int) -> list[SamplePosting]:
    """`size` deterministic fictional postings; every 10th re-posts an earlier one on another host."""
    out: list[SamplePosting] = []
    start = date(2026, 11, 1)
    for i in range(size):
        if i % 10 == 9:  # a cross-post: the job of posting i - 5 at another URL, with a new id
            twin = out[i - 5]
            out.append(
                msgspec.structs.replace(
                    twin,
                    id=f"gen-{i:06d}",
                    url=twin.url.replace("jobs.", "careers.", 1),
                    sample_note="cross-post",
                )
            )
            continue
        company = _COMPANIES[i % len(_COMPANIES)]
        role = _ROLES[(i // len(_COMPANIES)) % len(_ROLES)]
        level = _LEVELS[(i // 7) % len(_LEVELS)]
        place, currency = _PLACES[(i // 3) % len(_PLACES)]
        title = f"{level} {role}".strip() + (f" {i // 264}" if i >= 264 else "")
        base = 40_000 + (i * 7919) % 120_000
        slug = company.lower().replace(" ", "-")
        out.append(
            SamplePosting(
                id=f"gen-{i:06d}",
                url=f"https://jobs.{slug}.example/postings/{i}",
                title=title,
                company=company,
                locations=[place],
                remote=place == "Remote" or None,
                employment_type=_TYPES[i % len(_TYPES)],
                salary=Salary(min=float(base), max=float(base + 20_000), currency=currency, interval=_YEAR),
                posted_at=(start + timedelta(days=i % 28)).isoformat(),
                department=role.split()[-1] + "s",
                description=(
                    f"<p>SAMPLE DATA: a generated posting, not a real job.</p><p>{company} is hiring a "
                    f"{title} in {place}. You will work with Python, SQL and a friendly team.</p>"
                ),
            )
        )
    return out
