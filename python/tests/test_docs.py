"""docs/python.md's examples run as written and print what the page shows."""

import doctest
import os

from conftest import REPO


def test_the_python_page_runs_as_written(tmp_path, monkeypatch):
    # A working directory like the checkout's: the page names experiments/lds.toml (whose
    # platform is ../platforms/...) and saves its figure under docs/figures/.
    for name in ("experiments", "platforms"):
        os.symlink(REPO / name, tmp_path / name)
    (tmp_path / "docs" / "figures").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(
        str(REPO / "docs" / "python.md"),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
    )
    assert result.attempted >= 20
    assert result.failed == 0, "docs/python.md: see the doctest report above"
    figure = tmp_path / "docs" / "figures" / "python-lds-quick.png"
    assert figure.read_bytes().startswith(b"\x89PNG")
