"""The review page's edits in Chromium: unsaved edits ask before leaving, a save over a newer edit
from the tracker shows both, "Draft this" and a failed re-draft's reason (real nats-server, the
draft and export stages)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from nats.aio.client import Client as NATS
from openpyxl import load_workbook
from playwright.async_api import Page, expect

from jetjobs import App, Settings
from jobsearch import draft as draft_stage
from jobsearch import export as export_stage
from jobsearch.jobs import QUEUES
from jobsearch.llm import LlmClient, load_llm_settings
from jobsearch.settings import PipelineSettings
from jobsearch.store import Store
from jobsearch.tracker import export_tracker
from tests.jobsearch import provider_servers
from tests.support import running_worker
from tests.ui.listings import listing, seed
from tests.ui.server import page_env, serving

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.timeout(120)]

PROFILE = '[person]\nname = "Ada Example"\nskills = ["Python", "NATS"]\n'


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """Three listings with drafts (one hostile), their run finished."""
    path = tmp_path / "jobsearch.sqlite"
    with Store.open(path) as store:
        seed(store)
        store.finish_run("run-1", outcome="ok", summary={})
    return path


def page_args(db_path: Path, *more: str) -> list[str]:
    """`jobsearch ui` on any free port over `db_path`."""
    return ["ui", "--port", "0", "--db", str(db_path), *more]


def edit_in_tracker(path: Path, listing_id: str, **cells: str) -> None:
    """Change cells of one row of the tracker as a person would in a spreadsheet program."""
    book = load_workbook(path)
    sheet = book.worksheets[0]
    header = [c.value for c in sheet[1]]
    for row in sheet.iter_rows(min_row=2):
        if row[header.index("ID")].value == listing_id:
            for name, value in cells.items():
                row[header.index(name)].value = value
    book.save(path)


async def test_unsaved_edits_ask_before_leaving_and_a_save_does_not(
    page: Page, settings: Settings, db_path: Path
) -> None:
    """An edited note (or letter) not yet saved: leaving the page asks first (and staying keeps the
    text); saving it leaves without asking."""
    async with serving("jobsearch.cli", page_args(db_path), page_env(settings)) as url:
        await page.goto(f"{url}listings/L0001")
        await page.locator("#notes").fill("Call back on Monday")
        async with page.expect_event("dialog") as asked:
            await page.get_by_role("link", name="← listings").click()
        assert (await asked.value).type == "beforeunload"
        assert page.url.endswith("/listings/L0001")  # the dialog was dismissed: still here
        await expect(page.locator("#notes")).to_have_value("Call back on Monday")

        await page.locator("#save-notes").click()
        await expect(page.locator("#saved")).to_have_text("notes saved")
        await page.locator("#text-cover_letter").fill("Dear Acme, a new letter.")
        await page.locator("#save-cover_letter").click()
        await expect(page.locator("#saved")).to_have_text("cover letter saved")
        await page.get_by_role("link", name="← listings").click()
        await expect(page.locator("#listing-table")).to_be_visible()
    assert page.dialogs == ["beforeunload: "]  # type: ignore[attr-defined]


async def test_a_save_over_a_newer_tracker_edit_shows_both_and_the_person_chooses(
    page: Page, settings: Settings, db_path: Path, tmp_path: Path
) -> None:
    """The page shows notes and status; meanwhile the person edits both in the tracker and an
    export reads them back. Saving the page's versions then writes nothing: a conflict page shows
    the tracker's version beside theirs; "Keep yours" saves the note, "Keep the newer" keeps the
    tracker's status. A draft re-written meanwhile (another tab) is the same."""
    tracker = tmp_path / "tracker.xlsx"
    with Store.open(db_path) as store:
        export_tracker(store, tracker)
    async with serving("jobsearch.cli", page_args(db_path), page_env(settings)) as url:
        await page.goto(f"{url}listings/L0001")
        await expect(page.locator("#status")).to_have_value("Drafted")
        other = await page.context.new_page()  # a second tab, opened before the tracker edit too
        await other.goto(f"{url}listings/L0001")
        edit_in_tracker(tracker, "L0001", Status="Interview", Notes="Recruiter called (from the sheet)")
        with Store.open(db_path) as store:
            export_tracker(store, tracker)  # the next export reads the edits back
            assert store.listing("L0001").status == "Interview"

        await page.locator("#notes").fill("Referred by Grace")
        await page.locator("#save-notes").click()
        await expect(page.locator("#conflict")).to_have_text("Notes changed since you opened the page")
        await expect(page.locator(".notice")).to_contain_text("The tracker wrote a newer version")
        await expect(page.locator("#theirs")).to_have_text("Recruiter called (from the sheet)")
        await expect(page.locator("#mine")).to_have_value("Referred by Grace")
        with Store.open(db_path) as store:
            assert store.listing("L0001").notes == "Recruiter called (from the sheet)"  # nothing written
        await page.locator("#mine").fill("Referred by Grace; recruiter called")
        await page.locator("#keep-mine").click()
        await expect(page.locator("#saved")).to_have_text("notes saved")
        await expect(page.locator("#notes")).to_have_value("Referred by Grace; recruiter called")

        await other.locator("#status").select_option("Applied")
        await other.locator("#save-status").click()
        await expect(other.locator("#conflict")).to_have_text("Status changed since you opened the page")
        await expect(other.locator("#theirs")).to_have_text("Interview")
        await expect(other.locator("#mine")).to_have_value("Applied")
        await other.locator("#keep-theirs").click()
        await expect(other.locator("#saved")).to_have_text("kept the newer status")
        await expect(other.locator("#status")).to_have_value("Interview")
        await other.close()

        await page.locator("#text-cover_letter").fill("My own letter, by hand.")
        with Store.open(db_path) as store:
            store.save_draft_edit("L0001", "cover_letter", "A letter from another tab.")
        await page.locator("#save-cover_letter").click()
        await expect(page.locator("#conflict")).to_have_text("Cover letter changed since you opened the page")
        await expect(page.locator("#theirs")).to_have_text("A letter from another tab.")
        await page.locator("#keep-mine").click()
        await expect(page.locator("#text-cover_letter")).to_have_value("My own letter, by hand.")
    with Store.open(db_path) as store:
        notes = [h for h in store.draft_history("L0001") if h.step == "cover_letter"]
        assert [d.text for d in notes[-2:]] == ["A letter from another tab.", "My own letter, by hand."]
        sources = [h["source"] for h in store.status_history("L0001")]
        assert sources == ["pipeline", "tracker"]  # the page's Applied was never written
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_draft_this_drafts_a_listing_that_has_none_and_shows_it_when_it_lands(
    page: Page, nc: NATS, settings: Settings, db_path: Path, tmp_path: Path
) -> None:
    """A listing below the drafting bar has no draft: "Draft this" submits its `jobsearch.draft`
    job through jetjobs; the draft stage writes it, the export stage records it, and the page shows
    it without a reload. Only configured providers are offered."""
    profile = tmp_path / "profile.toml"
    profile.write_text(PROFILE)
    with Store.open(db_path) as store:
        store.start_run("run-2", profile="profile.toml")
        store.record_export(run_id="run-2", job_id="run-2-export-7", drafts=[],
                            listing=listing(7, title="Data Engineer", company="Initrode"))  # fmt: skip
        store.finish_run("run-2", outcome="ok", summary={})
    app = App("review-test", builtins=False)
    draft_stage.register(app, env={})  # the offline provider: no key, no network
    export_stage.register(
        app, PipelineSettings(data_dir=tmp_path, db_path=db_path, tracker_path=tmp_path / "t.xlsx")
    )
    async with (
        running_worker(app, nc, settings, queues=[QUEUES["draft"], QUEUES["export"]]),
        serving("jobsearch.cli", page_args(db_path, "--profile", str(profile)), page_env(settings)) as url,
    ):
        await page.goto(f"{url}listings/L0007")
        await expect(page.locator("#provider option")).to_have_text(["offline"])  # no key, no Ollama
        await expect(page.locator("#draft-this-form")).to_contain_text("Not drafted")
        await page.locator("#draft-this").click()
        await expect(page.locator("#saved")).to_have_text("draft submitted")
        await page.evaluate("window.loadedOnce = true")
        await expect(page.locator("#drafts")).to_have_attribute("data-mode", "job")
        await expect(page.locator("#redraft-state")).to_contain_text("Draft: landed", timeout=20_000)
        await expect(page.locator("#text-cover_letter")).to_have_value(re.compile("Initrode"))
        await expect(page.locator("#drafts h3").first).to_contain_text("offline/")
        await expect(page.locator("#draft-this")).to_have_count(0)
        await expect(page.locator("#drafts")).to_have_attribute("data-mode", "idle")
        assert await page.evaluate("window.loadedOnce") is True, "the page reloaded"
    with Store.open(db_path) as store:
        detail = store.listing("L0007")
    assert detail.status == "Drafted"
    assert {d.provider for d in detail.drafts.values()} == {"offline"}
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_a_redraft_that_dies_says_why(
    page: Page, nc: NATS, settings: Settings, db_path: Path, tmp_path: Path
) -> None:
    """The page's environment has an OpenAI key, the draft service's has none: a re-draft pinned
    to openai dies, and the page says why in the provider layer's words, not only "dead"."""
    profile = tmp_path / "profile.toml"
    profile.write_text(PROFILE)
    app = App("review-test", builtins=False)
    draft_stage.register(app, env={})
    async with (
        running_worker(app, nc, settings, queues=[QUEUES["draft"]]),
        serving(
            "jobsearch.cli",
            page_args(db_path, "--profile", str(profile)),
            page_env(settings, {"OPENAI_API_KEY": "sk-test-not-a-key"}),
        ) as url,  # fmt: skip
    ):
        await page.goto(f"{url}listings/L0002")
        await expect(page.locator("#provider option")).to_have_text(["openai", "offline"])
        await page.locator("#provider").select_option("openai")
        await page.locator("#redraft").click()
        await expect(page.locator("#saved")).to_have_text("re-draft with openai submitted")
        state = page.locator("#redraft-state")
        await expect(state).to_have_attribute("data-state", "dead", timeout=20_000)
        await expect(state).to_contain_text("Re-draft with openai: dead")
        await expect(page.locator("#redraft-reason")).to_contain_text("not configured: set OPENAI_API_KEY")
        await expect(page.locator("#drafts")).to_have_attribute("data-mode", "idle")
    assert page.dialogs == []  # type: ignore[attr-defined]


async def test_a_redraft_whose_provider_refuses_says_the_providers_words(
    page: Page, nc: NATS, settings: Settings, db_path: Path, tmp_path: Path
) -> None:
    """The draft service's OpenAI key is wrong: the provider (a local server in OpenAI's shape)
    answers 401, no retry mends that, and the page shows the provider's error beside "failed"."""
    profile = tmp_path / "profile.toml"
    profile.write_text(PROFILE)
    with provider_servers.serving() as providers:
        service_env = {"OPENAI_API_KEY": "sk-wrong", "OPENAI_BASE_URL": providers.base_url("openai")}
        app = App("review-test", builtins=False)
        llm = LlmClient(load_llm_settings(service_env))  # ours, to close: it keeps its connections
        draft_stage.register(app, llm=llm)
        async with (
            llm,
            running_worker(app, nc, settings, queues=[QUEUES["draft"]]),
            serving(
                "jobsearch.cli",
                page_args(db_path, "--profile", str(profile)),
                page_env(settings, service_env),
            ) as url,  # fmt: skip
        ):
            await page.goto(f"{url}listings/L0001")
            await page.locator("#provider").select_option("openai")
            await page.locator("#redraft").click()
            state = page.locator("#redraft-state")
            await expect(state).to_have_attribute("data-state", "failed", timeout=20_000)
            await expect(state).to_contain_text("Re-draft with openai: failed")
            await expect(page.locator("#redraft-reason")).to_contain_text("401")
            await expect(page.locator("#redraft-reason")).to_contain_text("Incorrect API key provided")
        assert [seen.provider for seen in providers.seen] == ["openai"]
    with Store.open(db_path) as store:
        assert store.current_drafts("L0001")["cover_letter"].provider == "anthropic"  # the old draft stands
    assert page.dialogs == []  # type: ignore[attr-defined]
