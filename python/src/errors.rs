//! gridsim's errors as the exceptions of `gridsim.errors` (defined in Python, where their
//! attributes are documented), each with the message the CLI prints after `gridsim: error: `.
//!
//! * An experiment file that does not load: `ExperimentError`, with the file, line, column and
//!   field of its first problem and every problem in `diagnostics`.
//! * A run of the sweep that failed: `RunError`. Ctrl-C during a sweep: `Interrupted` (also a
//!   `KeyboardInterrupt`). An argument out of range: `ArgumentError` (also a `ValueError`)
//!   naming the argument. Anything else (a file that cannot be written): `GridsimError`.

use std::path::Path;

use gridsim::experiment::ExperimentError;
use gridsim::runner::interrupt::Interrupted;
use gridsim::runner::RunFailed;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

/// An instance of `gridsim.errors.<class>(message, **attributes)`, as a `PyErr` to raise; if the
/// class cannot be built, the error that says why.
fn raise(py: Python<'_>, class: &str, message: String, attributes: &Bound<'_, PyDict>) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let class = py.import("gridsim.errors")?.getattr(class)?;
        let instance = class.call((message,), Some(attributes))?;
        Ok(PyErr::from_value(instance))
    };
    build().unwrap_or_else(|e| e)
}

/// `ArgumentError` for the argument `name`: `NAME: MESSAGE`.
pub fn argument(py: Python<'_>, name: &str, message: impl std::fmt::Display) -> PyErr {
    let attributes = PyDict::new(py);
    if let Err(e) = attributes.set_item("field", name) {
        return e;
    }
    raise(py, "ArgumentError", format!("{name}: {message}"), &attributes)
}

/// The exception for `err`, raised by a call about the experiment file `file`.
pub fn to_py(py: Python<'_>, err: &anyhow::Error, file: &Path) -> PyErr {
    // The CLI's text: the error and its causes, as `{:#}` joins them.
    let message = format!("{err:#}");
    let attributes = PyDict::new(py);
    let class = if err.downcast_ref::<Interrupted>().is_some() {
        "Interrupted"
    } else if err.downcast_ref::<RunFailed>().is_some() {
        "RunError"
    } else if let Some(experiment) = err.downcast_ref::<ExperimentError>() {
        if let Err(e) = diagnostics(py, experiment, file, &attributes) {
            return e;
        }
        "ExperimentError"
    } else {
        "GridsimError"
    };
    raise(py, class, message, &attributes)
}

/// Sets `diagnostics` (one `(file, line, column, field, message)` per problem) in `attributes`.
/// A problem that concerns a file it could not read names no file of its own (its message
/// does): it is located at `file`, the file the call was given.
fn diagnostics(py: Python<'_>, error: &ExperimentError, file: &Path, attributes: &Bound<'_, PyDict>) -> PyResult<()> {
    let list = PyList::empty(py);
    for d in &error.diagnostics {
        let path = if d.file.as_os_str().is_empty() { file } else { &d.file };
        let item = PyTuple::new(
            py,
            [
                path.to_string_lossy().into_pyobject(py)?.into_any(),
                d.line.into_pyobject(py)?.into_any(),
                d.column.into_pyobject(py)?.into_any(),
                d.field.as_str().into_pyobject(py)?.into_any(),
                d.message.as_str().into_pyobject(py)?.into_any(),
            ],
        )?;
        list.append(item)?;
    }
    attributes.set_item("diagnostics", list)
}
