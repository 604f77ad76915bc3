"""The README stays a two-minute read that leads to every page of the documentation site.

The README is under 200 lines; every page of ``docs/`` is linked from it and listed in
``mkdocs.yml``'s nav; its relative links name files that exist, and so do the repository
paths the pages name (``calendar_rest/serving/read_lane.py``), so a moved module shows
here. Building the site (``mkdocs build --strict``: every link and anchor) is left to
``.ci/run``, which keeps this loop fast.
"""

from __future__ import annotations

import re
import typing as t
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MAX_README_LINES = 200
#: a Markdown link's target: ``[text](target)``
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: a repository path in a code span: ``calendar_rest/rules/permissions.py``
REPO_PATH = re.compile(r"`((?:calendar_rest|tests|examples|bench)/[\w./-]*)`")


def pages() -> list[str]:
    """Every page of the site, relative to ``docs/``."""
    return sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))


def relative_targets(text: str) -> list[str]:
    """Targets of the links that point into the repository, without their anchors."""
    targets = (target.split("#", 1)[0] for target in LINK.findall(text))
    return [target for target in targets if target and not re.match(r"[a-z]+:", target)]


def nav_pages(entries: t.Any) -> set[str]:
    """The pages ``mkdocs.yml``'s nav lists, at any depth."""
    if isinstance(entries, str):
        return {entries}
    if isinstance(entries, list):
        return set().union(*(nav_pages(entry) for entry in entries))
    if isinstance(entries, dict):
        return set().union(*(nav_pages(value) for value in entries.values()))
    return set()


def test_the_readme_is_under_200_lines() -> None:
    lines = len(README.read_text().splitlines())
    assert lines < MAX_README_LINES, f"README.md has {lines} lines"


def test_every_page_is_linked_from_the_readme() -> None:
    linked = {target.removeprefix("docs/") for target in relative_targets(README.read_text())}
    assert pages(), "docs/ holds no page"
    assert set(pages()) <= linked, sorted(set(pages()) - linked)


def test_every_page_is_in_the_nav_and_the_nav_names_only_pages() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert nav_pages(config["nav"]) == set(pages())


@pytest.mark.parametrize("document", ["README.md", *(f"docs/{page}" for page in pages())])
def test_relative_links_and_named_paths_exist(document: str) -> None:
    path = ROOT / document
    text = path.read_text()
    missing = [target for target in relative_targets(text) if not (path.parent / target).exists()]
    missing += [named for named in REPO_PATH.findall(text) if not (ROOT / named).exists()]
    assert not missing, missing
