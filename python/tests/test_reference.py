"""gridsim.validate and gridsim.list_policies against `gridsim validate` and `gridsim list`."""

import tomllib
from pathlib import Path
from types import SimpleNamespace

import pandas
import pytest

import gridsim

from conftest import REPO


@pytest.mark.parametrize("experiment", ["experiments/lds.toml", "experiments/gridgum.toml"])
def test_validate_says_what_the_cli_says(cli, in_repo, experiment):
    done = cli("validate", experiment)
    assert done.returncode == 0, done.stderr
    checked = gridsim.validate(experiment)
    assert [v["line"] for v in checked] == done.stdout.splitlines()
    # Each file, then depth first the files it includes, as the files themselves say.
    assert [v["file"] for v in checked] == with_includes(Path(experiment))
    first = checked[0]
    assert first["file"] == experiment
    assert f": ok, {first['runs']} runs" in first["line"]


def with_includes(path: Path, seen=None):
    """`path` and, depth first, the experiment files its `includes` name, each once."""
    seen = [] if seen is None else seen
    if path.resolve() in [p.resolve() for p in seen]:
        return []
    seen.append(path)
    order = [str(path)]
    for name in tomllib.loads(path.read_text()).get("includes", []):
        order += with_includes(path.parent / name, seen)
    return order


def test_listing_is_the_cli_listing(cli, in_repo):
    done = cli("list")
    assert done.returncode == 0, done.stderr
    assert gridsim.listing() == done.stdout
    markdown = cli("list", "--markdown")
    assert gridsim.parameters_markdown() == markdown.stdout
    assert (REPO / "docs" / "parameters.md").read_text() == markdown.stdout


def family_sections(listing: str):
    """`gridsim list`'s text cut into its families' sections: name -> lines."""
    sections, current = {}, None
    for line in listing.splitlines():
        if line.startswith("Family "):
            current = line[len("Family "):].split(":")[0]
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return sections


def test_list_policies_has_every_scheduler_and_parameter_gridsim_list_shows(cli, in_repo):
    sections = family_sections(cli("list").stdout)
    rows = gridsim.list_policies(frames="dicts")
    assert list(dict.fromkeys(r["family"] for r in rows)) == list(sections)
    for family, lines in sections.items():
        expected = []
        for r in rows:
            if r["family"] != family:
                continue
            row = SimpleNamespace(**r)
            if row.owner == "scheduler":
                head = f"    {row.policy:<20} {row.description}"
                if head not in expected:
                    expected.append(head)
                if row.parameter is not None:
                    expected.append(f"      {row.parameter:<18} {row.summary}")
            elif row.owner == "entry":
                head = f"  {row.policy} (parameters):"
                if head not in expected:
                    expected.append(head)
                expected.append(f"    {row.parameter:<20} {row.summary}")
            else:
                expected.append(f"    {row.parameter:<20} {row.summary}")
        # The section lists schedulers, entries and model parameters in that order, then the
        # metrics and tables, which are not parameters.
        listed = lines[: lines.index("  metrics (runs.csv):")]
        listed = [l for l in listed if l not in ("  schedulers:", "  parameters:")]
        assert listed == expected, family


def test_list_policies_as_a_dataframe_holds_the_rows():
    frame = gridsim.list_policies(frames="pandas")
    rows = gridsim.list_policies(frames="dicts")
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == gridsim.POLICY_COLUMNS and len(frame) == len(rows)
    assert frame["parameter"].isna().tolist() == [r["parameter"] is None for r in rows]
    assert frame["summary"].dropna().tolist() == [r["summary"] for r in rows if r["summary"] is not None]


def test_list_policies_of_one_family_and_its_typed_columns():
    bot = gridsim.list_policies("bot", frames="dicts")
    assert {r["family"] for r in bot} == {"bot"}
    tss_first = next(r for r in bot if r["policy"] == "tss" and r["parameter"] == "first")
    # tss's first chunk defaults to a formula the policy evaluates: ceil(N/(2P)).
    assert tss_first["default"] == "ceil(N/(2P))" and tss_first["default_is_formula"]
    assert tss_first["kind"] == "integer" and tss_first["min"] == 1 and tss_first["max"] is None
    with pytest.raises(gridsim.ArgumentError) as raised:
        gridsim.list_policies("nope")
    assert raised.value.field == "family" and "bot" in str(raised.value)
