//! The families' reference (`gridsim list`) from the registry's declarations: the text the CLI
//! prints, the Markdown of `docs/parameters.md`, and one row per parameter for a DataFrame.

use std::path::PathBuf;

use gridsim::reference::{self, ParamRow};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use schedulers::families;
use schedulers::registry::{Kind, Param};

use crate::errors;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(listing, m)?)?;
    m.add_function(wrap_pyfunction!(parameters_markdown, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    Ok(())
}

/// What `gridsim list --root ROOT` prints.
#[pyfunction]
#[pyo3(signature = (root = None))]
fn listing(root: Option<PathBuf>) -> String {
    reference::listing(&root.unwrap_or_else(|| PathBuf::from(".")))
}

/// What `gridsim list --markdown` prints (`docs/parameters.md`).
#[pyfunction]
fn parameters_markdown() -> String {
    reference::families_markdown(&families::all())
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Integer => "integer",
        Kind::Real => "real",
        Kind::Flag => "flag",
        Kind::Bool => "bool",
        Kind::Text => "text",
    }
}

/// The bounds as Python sees them, `(min, min_exclusive, max)`: `None` where the parameter has
/// none (text, booleans, no upper limit, any number). The registry writes "> 0" as a minimum of
/// `f64::MIN_POSITIVE`; here it is 0, exclusive.
fn bounds(p: &Param) -> (Option<f64>, Option<bool>, Option<f64>) {
    match p.kind {
        Kind::Bool | Kind::Text => (None, None, None),
        _ => {
            let max = (p.max < i64::MAX as f64).then_some(p.max);
            if p.min == f64::MIN_POSITIVE {
                (Some(0.0), Some(true), max)
            } else if p.min > f64::MIN {
                (Some(p.min), Some(false), max)
            } else {
                (None, None, max)
            }
        }
    }
}

fn row_dict<'py>(py: Python<'py>, row: &ParamRow) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let named = |s: &'static str| (!s.is_empty()).then_some(s);
    d.set_item("family", row.family)?;
    d.set_item("owner", row.owner.as_str())?;
    d.set_item("policy", named(row.name))?;
    d.set_item("description", named(row.description))?;
    let p = row.param;
    d.set_item("parameter", p.map(|p| p.name))?;
    d.set_item("meaning", p.map(|p| p.meaning))?;
    d.set_item("unit", p.map(|p| p.unit))?;
    d.set_item("kind", p.map(|p| kind_name(p.kind)))?;
    d.set_item("default", p.and_then(|p| p.has_default().then_some(p.default)))?;
    d.set_item(
        "default_is_formula",
        p.map(|p| p.has_default() && p.default_is_formula()),
    )?;
    let (min, min_exclusive, max) = p.map_or((None, None, None), bounds);
    d.set_item("min", min)?;
    d.set_item("min_exclusive", min_exclusive)?;
    d.set_item("max", max)?;
    d.set_item("values", p.map(|p| p.range_text()))?;
    d.set_item("summary", p.map(|p| p.summary()))?;
    Ok(d)
}

/// One dict per parameter of every family (or of `family`), its schedulers' and other
/// entries' first, then the model's; a scheduler without parameters has one row of its own.
#[pyfunction]
#[pyo3(signature = (family = None))]
fn policies<'py>(py: Python<'py>, family: Option<&str>) -> PyResult<Bound<'py, PyList>> {
    let all = families::all();
    let chosen: Vec<_> = match family {
        None => all.clone(),
        Some(name) => match all.iter().find(|f| f.name() == name) {
            Some(f) => vec![*f],
            None => {
                let known: Vec<&str> = all.iter().map(|f| f.name()).collect();
                return Err(errors::argument(
                    py,
                    "family",
                    format!("no family '{name}' (the families are {})", known.join(", ")),
                ));
            }
        },
    };
    let list = PyList::empty(py);
    for row in reference::param_rows(&chosen) {
        list.append(row_dict(py, &row)?)?;
    }
    Ok(list)
}
