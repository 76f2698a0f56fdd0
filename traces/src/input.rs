//! Turning bytes into lines: gzip detection and a line reader with a bounded line length.
//!
//! Every reader of this crate takes an `impl BufRead`; [`decompress`] wraps one so that gzip
//! input (recognised by its magic bytes `1f 8b`, RFC 1952 §2.3.1, whatever the file is called)
//! is inflated on the fly and anything else passes through. Concatenated gzip members (what
//! `cat a.gz b.gz` makes) are read as one stream.
//!
//! [`Lines`] hands out one line at a time from a reused buffer, with its 1-based number. A line
//! longer than [`MAX_LINE_BYTES`] is an error rather than an allocation as large as the input (a
//! binary file has no newlines), and text that is not UTF-8 is an error naming the line. A gzip
//! stream that ends early or is corrupt is an error at the line being read when it happened.

use std::io::{self, BufRead, BufReader, Read};

use flate2::bufread::MultiGzDecoder;

use crate::error::TraceError;

/// The longest line any reader accepts, in bytes.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How the input was stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (RFC 1952).
    Gzip,
}

/// Looks at the first bytes of `input` and returns a reader of its decompressed text.
pub fn decompress<'a, R: BufRead + 'a>(mut input: R) -> io::Result<(Compression, Box<dyn BufRead + 'a>)> {
    let head = input.fill_buf()?;
    if head.starts_with(&[0x1f, 0x8b]) {
        let decoder = MultiGzDecoder::new(input);
        Ok((Compression::Gzip, Box::new(BufReader::with_capacity(1 << 16, decoder))))
    } else {
        Ok((Compression::None, Box::new(input)))
    }
}

/// A line reader over decompressed text; see the module docs.
pub struct Lines<R> {
    input: R,
    buffer: Vec<u8>,
    number: u64,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    /// Reads lines from `input`.
    pub fn new(input: R) -> Lines<R> {
        Lines {
            input,
            buffer: Vec::with_capacity(256),
            number: 0,
            done: false,
        }
    }

    /// The number of the line last returned (0 before the first).
    pub fn number(&self) -> u64 {
        self.number
    }

    /// The next line without its line ending (`\n` or `\r\n`), or `None` at the end of input.
    pub fn next_line(&mut self) -> Option<Result<(u64, &str), TraceError>> {
        if self.done {
            return None;
        }
        self.buffer.clear();
        self.number += 1;
        let limit = MAX_LINE_BYTES as u64 + 2;
        let read = (&mut self.input).take(limit).read_until(b'\n', &mut self.buffer);
        match read {
            Err(e) => {
                self.done = true;
                return Some(Err(TraceError::line(self.number, read_error_message(&e))));
            }
            Ok(0) => {
                self.done = true;
                return None;
            }
            Ok(_) => {}
        }
        if self.buffer.last() == Some(&b'\n') {
            self.buffer.pop();
            if self.buffer.last() == Some(&b'\r') {
                self.buffer.pop();
            }
        } else if self.buffer.len() > MAX_LINE_BYTES {
            self.done = true;
            return Some(Err(TraceError::line(
                self.number,
                format!("line is longer than {MAX_LINE_BYTES} bytes (is this a binary file?)"),
            )));
        }
        match std::str::from_utf8(&self.buffer) {
            Ok(text) => Some(Ok((self.number, text))),
            Err(e) => {
                self.done = true;
                Some(Err(TraceError::line(
                    self.number,
                    format!("not UTF-8 text (invalid byte at column {})", e.valid_up_to() + 1),
                )))
            }
        }
    }
}

fn read_error_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "the gzip stream ends early (truncated file?)".to_string(),
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData => format!("corrupt gzip stream: {e}"),
        _ => format!("read error: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn all_lines(bytes: &[u8]) -> Vec<Result<(u64, String), TraceError>> {
        let (_, r) = decompress(bytes).unwrap();
        let mut lines = Lines::new(r);
        let mut out = Vec::new();
        while let Some(l) = lines.next_line() {
            out.push(l.map(|(n, t)| (n, t.to_string())));
        }
        out
    }

    #[test]
    fn plain_and_gzip_give_the_same_lines() {
        let text = b"a b\r\nc\n\nlast";
        let plain = all_lines(text);
        let gz = all_lines(&gzip(text));
        assert_eq!(plain, gz);
        let expected: Vec<Result<(u64, String), TraceError>> = vec![
            Ok((1, "a b".into())),
            Ok((2, "c".into())),
            Ok((3, String::new())),
            Ok((4, "last".into())),
        ];
        assert_eq!(plain, expected);
    }

    #[test]
    fn concatenated_gzip_members_are_one_stream() {
        let mut bytes = gzip(b"1\n2\n");
        bytes.extend(gzip(b"3\n"));
        let lines: Vec<u64> = all_lines(&bytes).into_iter().map(|l| l.unwrap().0).collect();
        assert_eq!(lines, vec![1, 2, 3]);
    }

    #[test]
    fn a_truncated_gzip_stream_is_an_error_at_the_line_being_read() {
        let text: String = (0..5000).map(|i| format!("line {i} with some text\n")).collect();
        let gz = gzip(text.as_bytes());
        let cut = &gz[..gz.len() / 2];
        let lines = all_lines(cut);
        let last = lines.last().unwrap().as_ref().unwrap_err();
        assert!(last.message.contains("ends early"), "{last}");
        assert!(last.line > 1);
        assert!(lines[..lines.len() - 1].iter().all(|l| l.is_ok()));
    }

    #[test]
    fn corrupt_gzip_is_an_error() {
        let mut gz = gzip(b"hello\nworld\n");
        let n = gz.len();
        for b in &mut gz[10..n - 8] {
            *b ^= 0x55;
        }
        let lines = all_lines(&gz);
        assert!(lines.iter().any(|l| l.is_err()));
    }

    #[test]
    fn an_overlong_line_and_invalid_utf8_are_errors() {
        let long = vec![b'x'; MAX_LINE_BYTES + 10];
        let lines = all_lines(&long);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].as_ref().unwrap_err().message.contains("longer than"));
        let lines = all_lines(b"ok\n\xff\xfe\n");
        assert_eq!(lines[1].as_ref().unwrap_err().line, 2);
        assert!(lines[1].as_ref().unwrap_err().message.contains("UTF-8"));
    }
}
