//! Opening trace files: the binary's side of the `traces` crate (which does no I/O).
//!
//! A trace file may be gzip-compressed (recognised by its magic bytes) and its format is named
//! explicitly or recognised from its name and first line ([`traces::TraceFormat::detect`]).
//! Every error names the file: `kth.swf.gz:42: field run_time: "1O" is not a number`.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::{anyhow, Result};
use traces::input::decompress;
use traces::{TraceError, TraceFormat};

/// A trace file opened for reading.
pub struct OpenTrace<'a> {
    /// Its format.
    pub format: TraceFormat,
    /// Whether it was gzip-compressed.
    pub gzip: bool,
    /// The decompressed text.
    pub reader: Box<dyn BufRead + 'a>,
}

/// Opens `path`, decompressing it if needed, and settles its format (`format` if given).
pub fn open(path: &Path, format: Option<TraceFormat>) -> Result<OpenTrace<'static>> {
    let file = File::open(path).map_err(|e| anyhow!("{}: cannot open trace: {e}", path.display()))?;
    from_reader(path, BufReader::with_capacity(1 << 16, file), format)
}

/// [`open`] on bytes already read from `path` (named in messages and used to detect the format).
pub fn from_reader<'a>(path: &Path, input: impl BufRead + 'a, format: Option<TraceFormat>) -> Result<OpenTrace<'a>> {
    let (compression, mut reader) =
        decompress(input).map_err(|e| anyhow!("{}: cannot read trace: {e}", path.display()))?;
    let format = match format {
        Some(f) => f,
        None => detect(path, &mut reader)?.ok_or_else(|| {
            anyhow!(
                "{}: cannot tell the trace format from the file name or the first line; name it \
                 (one of: {})",
                path.display(),
                TraceFormat::ALL.map(|f| f.name()).join(", ")
            )
        })?,
    };
    Ok(OpenTrace {
        format,
        gzip: compression == traces::input::Compression::Gzip,
        reader,
    })
}

/// The format `path`'s name or the first line of `reader` (decompressed text, nothing consumed)
/// says, if any.
pub fn detect(path: &Path, reader: &mut dyn BufRead) -> Result<Option<TraceFormat>> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let first = first_line(reader).map_err(|e| located(path, &e))?;
    Ok(TraceFormat::detect(&name, &first))
}

/// The first non-blank line within the reader's buffer, without consuming anything.
fn first_line(reader: &mut dyn BufRead) -> Result<String, TraceError> {
    let buffer = reader
        .fill_buf()
        .map_err(|e| TraceError::line(1, format!("cannot read: {e}")))?;
    let text = String::from_utf8_lossy(buffer);
    Ok(text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string())
}

/// A reader error as `FILE:LINE: field NAME: message`.
pub fn located(path: &Path, error: &TraceError) -> anyhow::Error {
    if error.line > 0 {
        anyhow!("{}:{error}", path.display())
    } else {
        anyhow!("{}: {error}", path.display())
    }
}

/// Parses a format name given on the command line or in an experiment file.
pub fn parse_format(name: &str) -> Result<TraceFormat, String> {
    TraceFormat::from_name(name).ok_or_else(|| {
        format!(
            "unknown trace format '{name}' (valid: {})",
            TraceFormat::ALL.map(|f| f.name()).join(", ")
        )
    })
}
