"""Browser fixtures: one Chromium per session (Debian's package, driven by Playwright), a page per test.

No browser can be downloaded here, so Playwright launches the system's Chromium by path
(`$CHROMIUM`, else `chromium` on PATH). Without one the browser tests skip, except under
`CI=true`, where they fail: CI installs the package, and a missing browser is a broken build.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Dialog, Page, async_playwright

# Chromium's background services (updates, sync, QUIC probes) try the network, which is closed here.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def chromium_path() -> str | None:
    """The Chromium to drive: `$CHROMIUM`, else `chromium` or `chromium-browser` on PATH."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    """A headless Chromium for the whole session (each test gets its own context)."""
    path = chromium_path()
    if path is None:
        message = "no Chromium: apt-get install -y chromium (or set CHROMIUM=/path/to/chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


class DialogWatch:
    """Every `alert`/`confirm`/`prompt` the page opened: a script from a listing would open one."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, dialog: Dialog) -> None:
        self.seen.append(f"{dialog.type}: {dialog.message}")
        await dialog.dismiss()


@pytest.fixture
async def page(browser: Browser) -> AsyncIterator[Page]:
    """A fresh page (own cookies and storage); its dialogs are recorded in `page.dialogs`."""
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(15_000)
    opened = await context.new_page()
    watch = DialogWatch()
    opened.on("dialog", watch)
    opened.dialogs = watch.seen  # type: ignore[attr-defined]
    yield opened
    await context.close()
