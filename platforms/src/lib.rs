//! Platform formats and generators -> [`sim_core::platform::Platform`].
//!
//! - [`parse_simgrid_xml`]: SimGrid XML platforms (DTD v4.1), with SimGrid 3.32's semantics for
//!   units, routing (Full, Floyd, Dijkstra, clusters, zone routes) and profiles.
//! - [`parse_gridsim_toml`]: gridsim's own TOML format (see `docs/platforms.md`).
//! - [`load_platform`]: reads either from disk, by extension.
//! - [`parse_profile`]: SimGrid's profile text format (`date value`, `LOOPAFTER`, `PERIODICITY`);
//!   the measured semantics are in [`profile_text`].
//! - [`topology`]: SimGrid 3.32's TORUS, FAT_TREE and DRAGONFLY clusters (links and routes).
//! - [`units`]: SimGrid unit strings (`98.095Mf`, `125MBps`, `50us`, `1GiB`).
//! - [`random_grid`], [`homogeneous_cluster`] and [`topology_cluster`]: generators.
//!
//! Parsers work on `&str` and read referenced files (profiles) through a [`FileResolver`];
//! every error is a [`PlatformError`] naming the file, line, element and attribute.

// PlatformError carries file, line, element, field and cause by value (~150 bytes): parsing
// stops at the first error, so the size of the error path does not matter.
#![allow(clippy::result_large_err)]

mod builder;
pub mod error;
pub mod generators;
pub mod profile_text;
mod toml_format;
pub mod topology;
pub mod units;
mod xml;
mod xml_tree;

use std::path::{Path, PathBuf};

pub use error::{ErrorKind, Field, PlatformError};
pub use generators::{
    homogeneous_cluster, random_grid, topology_cluster, GeneratorError, RandomGridParams, TopologyClusterParams,
};
pub use profile_text::{parse_profile, parse_profile_with_periodicity, ProfileParseError};
pub use toml_format::parse_gridsim_toml;
pub use xml::parse_simgrid_xml;

/// Checks one platform setting as the engine will when it starts: a `network/*` or `smpi/*` key
/// must be a setting gridsim knows and its value must suit it, `sharing` must be `fast` or
/// `exact`, `cpu/optim` and `host/model` must name what gridsim's models are equivalent to;
/// other keys are left to other models. The message names the setting: `network setting
/// 'network/model': bad value 'SMPI': ...`.
pub fn check_setting(key: &str, value: &str) -> Result<(), String> {
    if key == "sharing" {
        return sim_core::sharing::SharingMode::from_setting(value)
            .map(|_| ())
            .map_err(|e| e.to_string());
    }
    match key {
        // SimGrid's CPU update scheme: TI (trace integration) gives the same dates as the
        // default lazy update on one-core hosts, the only ones SimGrid 3.32 accepts under it
        // (checked on the platform as a whole: see `check_settings`).
        "cpu/optim" => {
            return match value {
                "Lazy" | "Full" | "TI" => Ok(()),
                _ => Err(format!(
                    "setting 'cpu/optim': bad value '{value}': expected Lazy, Full or TI (all give the same \
                     dates)"
                )),
            }
        }
        // The compound host model is the CPU model with the network model, which is what
        // gridsim runs; the parallel-task model L07 couples them differently.
        "host/model" => {
            return match value {
                "default" | "compound" => Ok(()),
                _ => Err(format!(
                    "setting 'host/model': bad value '{value}': expected default or compound (SimGrid's \
                     ptask_L07 parallel-task model is not implemented)"
                )),
            }
        }
        _ => {}
    }
    let one = if key.starts_with("smpi/") {
        // Checked as the SMPI model would read it; that the platform selects SMPI is checked
        // when the engine reads the whole configuration.
        std::collections::BTreeMap::from([
            ("network/model".to_string(), "SMPI".to_string()),
            (key.to_string(), value.to_string()),
        ])
    } else if key.starts_with("network/") {
        std::collections::BTreeMap::from([(key.to_string(), value.to_string())])
    } else {
        return Ok(());
    };
    sim_core::NetworkParams::from_config(&one)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Reads a text file: its contents, or a message naming the file and, for text that is not
/// UTF-8, the line of the first bad byte (`FILE:LINE: not valid UTF-8 (byte 0xe9)`).
pub fn read_text_file(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..bad].iter().filter(|&&b| b == b'\n').count();
        format!(
            "{}:{line}: not valid UTF-8 (byte 0x{:02x})",
            path.display(),
            e.as_bytes()[bad]
        )
    })
}

/// Reads the files a platform references (profiles), by the name written in the platform.
pub trait FileResolver {
    /// The text of the file `name`, or a message saying why it cannot be read.
    fn read_to_string(&mut self, name: &str) -> Result<String, String>;
}

impl<F: FnMut(&str) -> Result<String, String>> FileResolver for F {
    fn read_to_string(&mut self, name: &str) -> Result<String, String> {
        self(name)
    }
}

/// A resolver for platforms that reference no file: every read fails.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl FileResolver for NoFiles {
    fn read_to_string(&mut self, _name: &str) -> Result<String, String> {
        Err("this platform was parsed without access to files".into())
    }
}

/// Reads files relative to a directory (absolute names are used as they are).
#[derive(Clone, Debug)]
pub struct DirFiles(pub PathBuf);

impl FileResolver for DirFiles {
    fn read_to_string(&mut self, name: &str) -> Result<String, String> {
        read_text_file(&self.0.join(name))
    }
}

/// Loads a platform file: `.xml` as SimGrid XML, `.toml` as gridsim TOML. Referenced files are
/// resolved relative to the platform file's directory. Errors name the file as given.
pub fn load_platform(path: &Path) -> Result<sim_core::platform::Platform, PlatformError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        PlatformError::file(
            &name,
            ErrorKind::ReadFile {
                path: name.clone(),
                message: e.to_string(),
            },
        )
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut files = DirFiles(dir);
    match path.extension().and_then(|e| e.to_str()) {
        Some("xml") => parse_simgrid_xml(&text, &name, &mut files),
        Some("toml") => parse_gridsim_toml(&text, &name, &mut files),
        _ => Err(PlatformError::file(
            &name,
            ErrorKind::Unsupported("platform files must end in .xml (SimGrid) or .toml (gridsim)".into()),
        )),
    }
}
