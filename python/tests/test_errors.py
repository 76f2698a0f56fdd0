"""A bad experiment raises with its file, line and field and the CLI's message."""

import pytest

import gridsim

from conftest import REPO


def bad_experiment(tmp_path, bad_line, replace):
    """lds.toml with one line changed; returns its path and the 1-based number of that line."""
    text = (REPO / "experiments" / "lds.toml").read_text()
    platform = (REPO / "platforms/data/grid90.xml").as_posix()
    text = text.replace('"../platforms/data/grid90.xml"', f'"{platform}"')
    assert bad_line in text
    text = text.replace(bad_line, replace, 1)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    line = text.splitlines().index(replace.splitlines()[0]) + 1
    return path, line


def test_a_bad_parameter_raises_experiment_error_located_like_the_cli(cli, tmp_path):
    # wq's chunk is a number of tasks of at least 1.
    path, line = bad_experiment(tmp_path, 'params = { chunk = 1 }', 'params = { chunk = 0 }')
    done = cli("validate", path)
    assert done.returncode == 1
    for call in (lambda: gridsim.validate(path), lambda: gridsim.run(path, out=tmp_path / "out")):
        with pytest.raises(gridsim.ExperimentError) as raised:
            call()
        e = raised.value
        assert isinstance(e, gridsim.GridsimError)
        assert done.stderr == f"gridsim: error: {e}\n"
        assert e.message == str(e)
        assert e.file == str(path) and e.line == line
        # The first [[schedulers]] entry's parameter.
        assert e.field == "schedulers[0].params.chunk"
        assert e.diagnostics[0] == (str(path), line, e.column, e.field, e.diagnostics[0].message)
    assert not (tmp_path / "out").exists()


def test_a_syntax_error_has_a_line_and_no_field(cli, tmp_path):
    path, line = bad_experiment(tmp_path, "task_bytes = 1000", "task_bytes = = 1000")
    with pytest.raises(gridsim.ExperimentError) as raised:
        gridsim.validate(path)
    e = raised.value
    assert e.line == line and e.field is None and e.file == str(path)
    assert cli("validate", path).stderr == f"gridsim: error: {e}\n"


def test_a_missing_file_names_it(cli, tmp_path):
    path = tmp_path / "none.toml"
    with pytest.raises(gridsim.ExperimentError) as raised:
        gridsim.run(path)
    assert raised.value.file == str(path) and raised.value.line is None
    assert cli("run", path).stderr == f"gridsim: error: {raised.value}\n"


@pytest.mark.parametrize(
    "arguments, field",
    [
        ({"jobs": 0}, "jobs"),
        ({"shard": "3/2"}, "shard"),
        ({"progress_every": 0.0}, "progress_every"),
        ({"print": True, "plots": False}, "print"),
    ],
)
def test_arguments_out_of_range_raise_argument_error_naming_them(in_repo, tmp_path, arguments, field):
    with pytest.raises(gridsim.ArgumentError) as raised:
        gridsim.run("experiments/lds.toml", quick=True, out=tmp_path, **arguments)
    assert isinstance(raised.value, ValueError)
    assert raised.value.field == field and str(raised.value).startswith(f"{field}: ")
    assert not (tmp_path / "results").exists()


def test_a_run_that_fails_raises_run_error_with_the_cli_message(cli, tmp_path, monkeypatch):
    # The bad-input catalogue's case of a parameter only a run can refuse: a timeline window
    # that would cut the run into 8e17 windows.
    case = REPO / "tests" / "bad_inputs" / "amoget-timeline-window-too-small" / "exp.toml"
    for side in ("cli", "py"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "exp.toml").write_text(case.read_text())
    done = cli("run", "exp.toml", "--no-plots", cwd=tmp_path / "cli")
    assert done.returncode == 1
    monkeypatch.chdir(tmp_path / "py")
    with pytest.raises(gridsim.RunError) as raised:
        gridsim.run("exp.toml", plots=False)
    e = raised.value
    assert isinstance(e, gridsim.GridsimError) and not isinstance(e, gridsim.ExperimentError)
    assert "exp.toml: run #0 amoget-adaptive rep 0 failed:" in e.message
    # The CLI adds its progress line before the error (stderr is not a terminal here).
    assert done.stderr.endswith(f"gridsim: error: {e}\n")
