"""The third-party checks of the site's pages (site.md §8), for ``tests/test_site_clients.py``.

Each check is a tool someone else wrote, run as a person or a search engine would meet it:

- headless Chromium through puppeteer-core (``tests/clients/site_pages.js``): the events a
  page shows, its rel=next/prev links (followed), axe-core's WCAG 2.1 A/AA violations,
  reflow at 320 px and full-page screenshots, at two widths with JavaScript on and off;
- the Nu Html Checker (``vnu-jar``, Java);
- structured-data-testing-tool with its Google preset and Google's Event rich-result rules
  (``tests/clients/jsonld_events.js``);
- Lighthouse 12.2.3 in mobile emulation (``tests/clients/lighthouse_run.js``).

All of them come from ``tests/clients/package.json`` (``devDependencies``), installed by
``.ci/run``; a missing one skips, or fails under ``CALENDAR_REST_REQUIRE_CLIENTS=1``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import typing as t
from pathlib import Path

import pytest
from client_servers import ARTIFACTS, CLIENTS, chromium, missing, node, run_node

#: a desktop and a phone, in CSS pixels
WIDTHS = (1280, 375)
VNU_JAR = CLIENTS / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
SCREENSHOTS = ARTIFACTS / "screenshots"
LIGHTHOUSE_REPORTS = ARTIFACTS / "lighthouse"
#: what a slow 2-core machine needs for a dozen pages at four loads each
BROWSER_TIMEOUT = 400.0
VNU_TIMEOUT = 120.0

Load = dict[str, t.Any]


def site_tools() -> str:
    """Chromium's path, once Chromium, Node.js, every npm package of ``tests/clients`` and
    Java are known present."""
    browser = chromium()
    node(sections=("dependencies", "devDependencies"))
    if shutil.which("java") is None:
        missing("Java 17 or later, for the Nu Html Checker", "apt-get install default-jre-headless")
    return browser


def browse(
    browser: str, pages: t.Mapping[str, str], screenshots: Path, widths: t.Sequence[int] = WIDTHS
) -> dict[str, list[Load]]:
    """Every page of ``pages`` (name → URL) in Chromium at each width, JavaScript on and
    off; the loads of each page by name (see ``site_pages.js`` for their fields)."""
    plan = {
        "chromium": browser,
        "screenshots": str(screenshots),
        "widths": list(widths),
        "pages": [{"name": name, "url": url} for name, url in pages.items()],
    }
    loads: dict[str, list[Load]] = {name: [] for name in pages}
    for load in run_node("site_pages.js", plan, timeout=BROWSER_TIMEOUT)["loads"]:
        loads[load["name"]].append(load)
    return loads


def nu_messages(files: t.Mapping[str, Path]) -> dict[str, list[dict[str, t.Any]]]:
    """The Nu Html Checker's errors for each file (name → path), in one Java run."""
    if not VNU_JAR.exists():
        missing(f"the Nu Html Checker ({VNU_JAR})", "cd tests/clients && npm ci")
    command = ["java", "-jar", str(VNU_JAR), "--format", "json", "--exit-zero-always"]
    done = subprocess.run(
        [*command, *(str(path) for path in files.values())],
        capture_output=True,
        text=True,
        timeout=VNU_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"vnu.jar exited {done.returncode}: {done.stderr[-2000:]}")
    report = json.loads(done.stderr)  # the checker writes its report to stderr
    by_url: dict[str, list[dict[str, t.Any]]] = {}
    for message in report["messages"]:
        if message["type"] in ("error", "non-document-error"):
            by_url.setdefault(message.get("url", ""), []).append(message)
    return {
        name: by_url.get(path.resolve().as_uri(), []) + by_url.get(f"file:{path.resolve()}", [])
        for name, path in files.items()
    }


def nu_version() -> str:
    done = subprocess.run(
        ["java", "-jar", str(VNU_JAR), "--version"],
        capture_output=True,
        text=True,
        timeout=VNU_TIMEOUT,
        check=False,
    )
    return done.stdout.strip()


def structured_data(files: t.Mapping[str, Path]) -> dict[str, dict[str, t.Any]]:
    """The JSON-LD check of each saved page (name → path): its blocks, types, errors and
    warnings (see ``jsonld_events.js``)."""
    plan = {"pages": [{"name": name, "file": str(path)} for name, path in files.items()]}
    return {page["name"]: page for page in run_node("jsonld_events.js", plan)["pages"]}


def lighthouse(
    browser: str,
    pages: t.Mapping[str, str],
    reports: Path | None = None,
    categories: t.Mapping[str, t.Sequence[str]] | None = None,
) -> dict[str, dict[str, t.Any]]:
    """Lighthouse's mobile scores (0-100) and losing audits for each page (name → URL);
    ``categories`` narrows the categories of some pages (all four otherwise)."""
    plan: dict[str, t.Any] = {
        "chromium": browser,
        "reports": str(reports) if reports else None,
        "pages": [
            {
                "name": name,
                "url": url,
                **(
                    {"categories": list(categories[name])}
                    if categories and name in categories
                    else {}
                ),
            }
            for name, url in pages.items()
        ],
    }
    answer = run_node("lighthouse_run.js", plan, timeout=90.0 * max(1, len(pages)))
    return {page["name"]: {**page, "version": answer["lighthouse"]} for page in answer["pages"]}


def axe_summary(loads: t.Sequence[Load]) -> list[str]:
    """One line per axe violation of any load: width, scripts, rule and elements."""
    return [
        f"{load['width']} px, js {'on' if load['javascript'] else 'off'}: "
        f"{violation['id']} ({violation['impact']}) {violation['help']} at {violation['targets']}"
        for load in loads
        for violation in load["axe"]
    ]


def png(path: Path) -> bool:
    """Whether ``path`` is a non-empty PNG file."""
    with path.open("rb") as image:
        return image.read(8) == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 100
