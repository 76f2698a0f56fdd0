//! What the integration tests share: running the built `gridsim` binary and reading what it did.
//!
//! A test file includes it with `mod support;` (Cargo builds `tests/support/mod.rs` into each
//! test binary that names it, and builds no test binary of its own from a subdirectory).
//!
//! ```ignore
//! let out = gridsim(dir, ["validate", "e.toml"]);
//! assert!(out.ok, "{}", out.stderr);
//! let out = Gridsim::new().args(["run", "e.toml"]).current_dir(dir).umask(0o077).run();
//! ```
//!
//! Every invocation runs with no standard input unless [`Gridsim::stdin`] gives one, with
//! `RUST_BACKTRACE` and `RUST_LIB_BACKTRACE` removed (so that a panic reads the same whatever the
//! developer's shell sets), and in the repository root unless [`Gridsim::current_dir`] says
//! otherwise.

// Each test binary uses only part of this module; the rest would warn as dead code there (and
// fail `cargo clippy --all-targets -- -D warnings`).
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The repository root (the `gridsim` package's directory).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `gridsim ARGS` in `dir` to its end: the common case of [`Gridsim`].
pub fn gridsim<I, S>(dir: impl AsRef<Path>, args: I) -> Outcome
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Gridsim::new().current_dir(dir).args(args).run()
}

/// One invocation of the `gridsim` binary: built up, then [`run`](Gridsim::run) to its end or
/// [`spawn`](Gridsim::spawn)ed for a test that acts on it while it runs.
pub struct Gridsim {
    command: Command,
    stdin: Option<String>,
    stdout: Option<Stdio>,
    stderr: Option<Stdio>,
    timeout: Option<Duration>,
}

impl Default for Gridsim {
    fn default() -> Self {
        Self::new()
    }
}

impl Gridsim {
    /// `gridsim` with no arguments, in the repository root.
    pub fn new() -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gridsim"));
        command
            .current_dir(root())
            .env_remove("RUST_BACKTRACE")
            .env_remove("RUST_LIB_BACKTRACE");
        Gridsim {
            command,
            stdin: None,
            stdout: None,
            stderr: None,
            timeout: None,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.command.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Runs in `dir` instead of the repository root.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.command.current_dir(dir);
        self
    }

    /// Feeds `text` to standard input (from a thread of its own, so that a gridsim that never
    /// reads it cannot block the test).
    pub fn stdin(mut self, text: &str) -> Self {
        self.stdin = Some(text.to_string());
        self
    }

    /// Standard output goes to `stdio` instead of being captured (`Outcome::stdout` is empty).
    pub fn stdout(mut self, stdio: Stdio) -> Self {
        self.stdout = Some(stdio);
        self
    }

    /// Standard error goes to `stdio` instead of being captured (`Outcome::stderr` is empty).
    pub fn stderr(mut self, stdio: Stdio) -> Self {
        self.stderr = Some(stdio);
        self
    }

    /// Runs under this file-mode creation mask.
    pub fn umask(mut self, umask: u32) -> Self {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only `umask`, which is async-signal-safe and touches
        // only the child's own state, is called.
        unsafe {
            self.command.pre_exec(move || {
                libc::umask(umask as libc::mode_t);
                Ok(())
            });
        }
        self
    }

    /// Runs with its address space limited to `bytes` (`RLIMIT_AS`, as `ulimit -v` sets it).
    pub fn address_space_limit(mut self, bytes: u64) -> Self {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only `setrlimit`, which is async-signal-safe, is called.
        unsafe {
            self.command.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: bytes as libc::rlim_t,
                    rlim_max: bytes as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
        self
    }

    /// Kills gridsim once it has run for `limit` (a hang): the outcome is then `hung`, with no
    /// exit code.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Starts gridsim and leaves it running; standard output and error are piped unless set
    /// otherwise. [`finish`] waits for it.
    pub fn spawn(mut self) -> Child {
        self.command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(self.stdout.take().unwrap_or_else(Stdio::piped))
            .stderr(self.stderr.take().unwrap_or_else(Stdio::piped));
        let mut child = self.command.spawn().expect("gridsim starts");
        if let (Some(text), Some(mut input)) = (self.stdin.take(), child.stdin.take()) {
            std::thread::spawn(move || {
                let _ = input.write_all(text.as_bytes());
            });
        }
        child
    }

    /// Runs gridsim to its end (or until its [`timeout`](Gridsim::timeout)).
    pub fn run(mut self) -> Outcome {
        let timeout = self.timeout.take();
        let mut child = self.spawn();
        let stdout = read_all(child.stdout.take());
        let stderr = read_all(child.stderr.take());
        let started = Instant::now();
        let mut hung = false;
        let status = match timeout {
            None => child.wait().expect("waiting for gridsim"),
            Some(limit) => loop {
                if let Some(status) = child.try_wait().expect("waiting for gridsim") {
                    break status;
                }
                if started.elapsed() > limit {
                    hung = true;
                    let _ = child.kill();
                    break child.wait().expect("waiting for gridsim");
                }
                std::thread::sleep(Duration::from_millis(5));
            },
        };
        Outcome::new(status, text(stdout), text(stderr), hung)
    }
}

/// Waits for a [spawned](Gridsim::spawn) gridsim to end and collects what it wrote.
pub fn finish(child: Child) -> Outcome {
    let Output { status, stdout, stderr } = child.wait_with_output().expect("waiting for gridsim");
    Outcome::new(
        status,
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
        false,
    )
}

/// Reads a piped stream to its end on a thread of its own, so that neither pipe can fill while
/// the other is read or the process is waited for.
fn read_all(stream: Option<impl Read + Send + 'static>) -> Option<JoinHandle<Vec<u8>>> {
    stream.map(|mut stream| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            bytes
        })
    })
}

fn text(reader: Option<JoinHandle<Vec<u8>>>) -> String {
    let bytes = reader.map(|r| r.join().unwrap_or_default()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// What one run of gridsim did.
#[derive(Debug)]
pub struct Outcome {
    pub status: ExitStatus,
    /// It exited with code 0.
    pub ok: bool,
    /// The exit code; `None` when it was killed as hung or ended by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// It ran past its [`timeout`](Gridsim::timeout) and was killed.
    pub hung: bool,
}

impl Outcome {
    fn new(status: ExitStatus, stdout: String, stderr: String, hung: bool) -> Self {
        Outcome {
            status,
            ok: !hung && status.success(),
            code: if hung { None } else { status.code() },
            stdout,
            stderr,
            hung,
        }
    }
}
