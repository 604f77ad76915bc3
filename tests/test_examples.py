"""Every script in ``examples/`` runs to completion (new examples are picked up by glob)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.py"))
#: extra arguments for examples that would otherwise run until interrupted
ARGUMENTS = {"standalone_waitress.py": ["--once", "--port", "0"]}


def test_there_are_examples() -> None:
    assert EXAMPLES, "examples/ has no scripts"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_example_runs(path: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(path), *ARGUMENTS.get(path.name, [])],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,  # anything an example writes by default lands in a scratch folder
        check=False,
    )
    assert done.returncode == 0, f"{path.name} failed:\n{done.stdout}\n{done.stderr}"
    assert list(tmp_path.iterdir()) == [], "the example left files in its working directory"
