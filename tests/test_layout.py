"""The checks that keep the house readable as it grows (issue 31): every package has a
guide naming what it holds, modules stay small, the top level stays short, and the
files ARCHITECTURE.md walks a request through exist.

They read the source tree only (nothing is imported), so a new module or package is
checked the moment it is added.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "calendar_rest"
#: the guideline of ARCHITECTURE.md: a module past it holds more than one job
MAX_MODULE_LINES = 400
#: modules directly in calendar_rest/ (``__init__`` and ``__main__`` included): only
#: what every layer shares stays at the top, the rest lives in packages
MAX_TOP_MODULES = 12
#: a backticked path of a Python file in ARCHITECTURE.md (``edge/dispatch.py``)
FILE_PATH = re.compile(r"`([\w./-]+\.py)`")


def _packages() -> list[Path]:
    return sorted(init.parent for init in PACKAGE.rglob("__init__.py"))


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(REPO)).replace("/", ".").removesuffix(".py")


def _contents(package: Path) -> list[str]:
    """The modules and subpackages standing directly in ``package``."""
    modules = [path.stem for path in package.glob("*.py") if path.name != "__init__.py"]
    subpackages = [path.name for path in package.iterdir() if (path / "__init__.py").is_file()]
    return sorted(modules + subpackages)


def _named(docstring: str, name: str) -> bool:
    """Whether the guide names ``name`` in backticks (``events``, ``events.py``,
    ``lookups/``)."""
    return re.search(rf"`{re.escape(name)}(\.py|/)?`", docstring) is not None


@pytest.mark.parametrize("package", _packages(), ids=_name)
def test_every_package_has_a_guide_naming_what_it_holds(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    assert docstring and "(guide to write)" not in docstring, (
        f"{_name(package)} has no guide: its __init__ docstring says what the package is "
        "for, then one line per module or subpackage"
    )
    unnamed = [name for name in _contents(package) if not _named(docstring, name)]
    assert not unnamed, f"the guide of {_name(package)} does not name {', '.join(unnamed)}"


def test_no_module_is_over_the_line_guideline() -> None:
    long = {
        str(path.relative_to(REPO)): lines
        for path in _modules()
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by job): {long}"


def test_the_top_level_holds_only_what_every_layer_shares() -> None:
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, f"{len(top)} modules in calendar_rest/: {top}"


def test_every_file_architecture_names_exists() -> None:
    text = (REPO / "ARCHITECTURE.md").read_text()
    named = sorted(set(FILE_PATH.findall(text)))
    assert named, "ARCHITECTURE.md names no file: the traces name each file they pass"
    missing = [
        path for path in named if not (PACKAGE / path).is_file() and not (REPO / path).is_file()
    ]
    assert not missing, f"ARCHITECTURE.md names files that do not exist: {missing}"
