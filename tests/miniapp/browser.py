"""Headless Chromium from Debian's package, driven by Playwright for Python (never
``playwright install``: the system browser is used). Missing, it fails the test (never a
skip: CI installs it, see .ci/run)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}


def require_chromium() -> str:
    """The browser's path; fails the test when it is missing."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)",
                    pytrace=False)
    return CHROMIUM


@asynccontextmanager
async def chromium() -> AsyncIterator[object]:
    """A Playwright browser on the system's Chromium."""
    path = require_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=path, args=ARGS,
                                                   headless=True)
        try:
            yield browser
        finally:
            await browser.close()


async def phone(browser, *, dark: bool = False):
    """A new 390 × 844 touch page (light or dark system theme)."""
    context = await browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True,
                                        has_touch=True,
                                        color_scheme="dark" if dark else "light")
    return await context.new_page()
