"""What the tests share: the checkout, the CLI binary to compare with, and running it."""

import os
import subprocess
from pathlib import Path

import pytest

#: The checkout (python/tests/ is two levels below it).
REPO = Path(__file__).resolve().parents[2]


def cli_binary() -> Path:
    """The `gridsim` binary of this checkout: $GRIDSIM_BIN, else the release build in the
    target directory (scripts/test.sh runs `cargo test --release` first, which builds it)."""
    if os.environ.get("GRIDSIM_BIN"):
        return Path(os.environ["GRIDSIM_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "release" / "gridsim"


@pytest.fixture(scope="session")
def gridsim_bin() -> Path:
    path = cli_binary()
    if not path.is_file():
        pytest.fail(
            f"{path}: no gridsim binary to compare with; build it with `cargo build --release` "
            "or name it in GRIDSIM_BIN"
        )
    return path


@pytest.fixture(scope="session")
def cli(gridsim_bin):
    """Runs the CLI from the checkout: cli(*args) -> CompletedProcess (text, not checked)."""

    def run(*args, cwd=REPO):
        return subprocess.run(
            [str(gridsim_bin), *map(str, args)],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=600,
        )

    return run


@pytest.fixture
def in_repo(monkeypatch):
    """The tests' calls name experiments as the CLI's do, relative to the checkout."""
    monkeypatch.chdir(REPO)
    return REPO
