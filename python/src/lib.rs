//! `gridsim._gridsim`, the native module of the `gridsim` Python package: the `gridsim` library
//! crate (`src/` of the workspace) behind a thin layer of conversions, so that a study run from
//! Python goes through the code path of `gridsim run` (the runner, its resume and its files).
//! The Python side (`python/gridsim/`) reads the CSV files into DataFrames and defines the
//! exceptions this module raises (`gridsim.errors`).
//!
//! Each file registers its own functions; a new group of functions is a file and one line here.

use pyo3::prelude::*;

mod errors;
mod policies;
mod reference;
mod step;
mod study;

#[pymodule]
fn _gridsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("BUILD_ID", gridsim::BUILD_ID)?;
    study::register(m)?;
    reference::register(m)?;
    step::register(m)?;
    Ok(())
}
