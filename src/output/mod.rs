//! CSV output: number formatting, atomic file writes, tidy tables in and out.
//!
//! Everything gridsim writes under `results/` goes through [`write_atomic`]: the bytes go to a
//! temporary file in the destination's directory, are flushed to disk, and the file is renamed
//! over the destination. A reader (or a process killed half-way) therefore sees either the old
//! file or the new one, never a torn row.
//!
//! Numbers are printed in their shortest round-trip form ([`format_f64`]), so a CSV is a pure
//! function of the values and reading it back gives the same `f64`s bit for bit.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use schedulers::family::ParamValue;

/// Shortest text that parses back to the same `f64`.
///
/// Plain decimal between 1e-5 and 1e16 (`0.25`, `1500`), exponent form outside (`1e21`,
/// `2.5e-7`), and `NaN`, `inf`, `-inf` for the non-finite values (all of which
/// `str::parse::<f64>` reads back).
pub fn format_f64(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let a = x.abs();
    if a != 0.0 && !(1e-5..1e16).contains(&a) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The CSV text of a parameter or table value.
pub fn format_value(value: &ParamValue) -> String {
    match value {
        ParamValue::Float(x) => format_f64(*x),
        other => other.to_string(),
    }
}

/// Writes `bytes` to `path` atomically: temporary file in the same directory, `fsync`, rename.
/// Creates the parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = temp_file_beside(path)?;
    tmp.write_all(bytes)
        .with_context(|| format!("writing {}", path.display()))?;
    persist_synced(tmp, path)
}

/// An empty temporary file in `path`'s directory (created if needed), to be renamed over `path`.
fn temp_file_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).with_context(|| format!("creating directory {}", dir.display()))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tmp-");
    // Results are shared with collaborators: create files as any program would, 0666 less the
    // umask (tempfile's own default is 0600).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder
        .tempfile_in(&dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))
}

/// Flushes `tmp` to disk and renames it over `path`.
fn persist_synced(tmp: tempfile::NamedTempFile, path: &Path) -> Result<()> {
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("flushing {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("renaming into {}", path.display()))?;
    Ok(())
}

/// gridsim's CSV dialect: `\n` line ends, fields quoted only when they need it.
fn csv_writer<W: io::Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out)
}

/// A CSV file written row by row into a temporary file beside its destination, then flushed and
/// renamed over it by [`CsvFileWriter::finish`] (the streaming form of [`write_atomic`], for
/// tables too large to build in memory). Dropped without `finish`, it leaves nothing behind.
pub struct CsvFileWriter {
    path: PathBuf,
    columns: usize,
    rows: usize,
    writer: csv::Writer<io::BufWriter<tempfile::NamedTempFile>>,
}

impl CsvFileWriter {
    /// Starts `path` with its header line. Same format as [`CsvTable::to_bytes`].
    pub fn create(path: &Path, header: &[String]) -> Result<CsvFileWriter> {
        let mut writer = csv_writer(io::BufWriter::new(temp_file_beside(path)?));
        writer
            .write_record(header)
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(CsvFileWriter {
            path: path.to_path_buf(),
            columns: header.len(),
            rows: 0,
            writer,
        })
    }

    /// Appends one row, which must be as long as the header.
    pub fn write_row<S: AsRef<[u8]>>(&mut self, row: &[S]) -> Result<()> {
        if row.len() != self.columns {
            bail!("row {} has {} cells for {} columns", self.rows, row.len(), self.columns);
        }
        self.rows += 1;
        self.writer
            .write_record(row)
            .with_context(|| format!("writing {}", self.path.display()))
    }

    /// Flushes the rows to disk and renames the file into place.
    pub fn finish(self) -> Result<()> {
        let path = self.path;
        let tmp = self
            .writer
            .into_inner()
            .map_err(|e| anyhow::anyhow!("writing {}: {}", path.display(), e.error()))?
            .into_inner()
            .map_err(|e| anyhow::anyhow!("writing {}: {}", path.display(), e.error()))?;
        persist_synced(tmp, &path)
    }
}

/// A table of text cells with a header, as written to or read from a CSV file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CsvTable {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<String>>,
}

impl CsvTable {
    /// An empty table with these columns.
    pub fn new(header: Vec<String>) -> CsvTable {
        CsvTable {
            header,
            rows: Vec::new(),
        }
    }

    /// Position of a column.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The CSV bytes: a header line, then one line per row, `\n` line ends, fields quoted only
    /// when they need it.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut writer = csv_writer(Vec::new());
        writer.write_record(&self.header)?;
        for (i, row) in self.rows.iter().enumerate() {
            if row.len() != self.header.len() {
                bail!("row {i} has {} cells for {} columns", row.len(), self.header.len());
            }
            writer.write_record(row)?;
        }
        writer.into_inner().map_err(|e| anyhow::anyhow!("{}", e.error()))
    }

    /// Writes the table to `path` atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.to_bytes()?)
    }

    /// Reads a CSV file with a header line.
    pub fn read(path: &Path) -> Result<CsvTable> {
        let file = fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        CsvTable::from_reader(file).with_context(|| format!("reading {}", path.display()))
    }

    /// Reads CSV text with a header line.
    pub fn from_reader(reader: impl io::Read) -> Result<CsvTable> {
        let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(reader);
        let header = reader.headers()?.iter().map(str::to_string).collect();
        let mut table = CsvTable::new(header);
        for record in reader.records() {
            let record = record?;
            table.rows.push(record.iter().map(str::to_string).collect());
        }
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_trip_in_shortest_form() {
        let cases = [
            (0.1, "0.1"),
            (1500.0, "1500"),
            (1e21, "1e21"),
            (2.5e-7, "2.5e-7"),
            (-3.75, "-3.75"),
            (0.0, "0"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, text) in cases {
            assert_eq!(format_f64(x), text);
            assert_eq!(text.parse::<f64>().unwrap(), x);
        }
        assert_eq!(format_f64(f64::NAN), "NaN");
        assert!("NaN".parse::<f64>().unwrap().is_nan());
        for x in [1.0 / 3.0, 123456789.12345679, 9.999999999999998e15, 1e16, 1e-5, 9.99e-6] {
            assert_eq!(format_f64(x).parse::<f64>().unwrap().to_bits(), x.to_bits(), "{x}");
        }
    }

    #[test]
    fn csv_round_trips_and_quotes_only_when_needed() {
        let mut t = CsvTable::new(vec!["a".into(), "b".into()]);
        t.rows.push(vec!["1".into(), "x,y".into()]);
        t.rows.push(vec!["2".into(), "say \"hi\"".into()]);
        let bytes = t.to_bytes().unwrap();
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            "a,b\n1,\"x,y\"\n2,\"say \"\"hi\"\"\"\n"
        );
        assert_eq!(CsvTable::from_reader(&bytes[..]).unwrap(), t);
        t.rows.push(vec!["3".into()]);
        assert!(t.to_bytes().is_err());
    }

    #[test]
    fn streamed_csv_equals_the_in_memory_table_and_appears_only_when_finished() {
        let dir = tempfile::tempdir().unwrap();
        let mut table = CsvTable::new(vec!["a".into(), "b c".into()]);
        table.rows.push(vec!["1".into(), "x,y".into()]);
        table.rows.push(vec!["\"q\"".into(), "".into()]);
        let path = dir.path().join("t.csv");
        let mut w = CsvFileWriter::create(&path, &table.header).unwrap();
        for row in &table.rows {
            w.write_row(row).unwrap();
        }
        assert!(w.write_row(&["only one"]).is_err());
        assert!(!path.exists(), "nothing at the destination before finish");
        w.finish().unwrap();
        assert_eq!(fs::read(&path).unwrap(), table.to_bytes().unwrap());
        // Abandoned: no file, no temporary left.
        let other = dir.path().join("u.csv");
        drop(CsvFileWriter::create(&other, &table.header).unwrap());
        assert!(!other.exists());
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("t.csv")]);
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/out.csv");
        write_atomic(&path, b"one\n").unwrap();
        write_atomic(&path, b"two\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two\n");
        let names: Vec<_> = fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out.csv")]);
    }
}
