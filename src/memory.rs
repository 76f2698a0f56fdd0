//! What a command is about to allocate, against what the process may still allocate: a sweep,
//! a run's tables or a benchmark that cannot fit is refused before it starts, with the amount it
//! would need, instead of swapping the machine to a halt, being killed by the kernel half way,
//! or aborting on a failed allocation ("memory allocation of 9 bytes failed").
//!
//! The machine's free memory is not the whole story: a container or a batch job usually runs
//! in a cgroup with a memory limit far below it (the kernel kills the process at the limit),
//! and `ulimit -v` bounds the process's address space (allocations fail beyond it). So three
//! bounds are read, and the smallest that applies counts:
//!
//! - `MemAvailable` of `/proc/meminfo`: what the kernel can give without swapping;
//! - the cgroup's memory limit less its usage, at the process's cgroup and each of its
//!   ancestors up to the mount (a parent's limit binds its children): cgroup v2 `memory.max`
//!   and `memory.current`, or v1 `memory.limit_in_bytes` and `memory.usage_in_bytes`, where
//!   `/proc/self/cgroup` and `/proc/self/mountinfo` say (both versions can be mounted at
//!   once). Usage counts the page cache, which the kernel drops before it fails an allocation,
//!   so the cgroup's inactive file pages (`memory.stat`) are counted as available;
//! - `RLIMIT_AS` less the address space in use (`/proc/self/statm`).
//!
//! Reading is the I/O wrapper [`available`]; every file's contents are parsed by pure functions
//! tested on literal contents. On systems without these files there is no check.

use std::path::{Path, PathBuf};

/// How much the process may still allocate, and which bound says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Available {
    /// Bytes.
    pub bytes: u64,
    /// The bound that gave the amount.
    pub bound: Bound,
}

/// Where an amount of available memory comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// `MemAvailable` of /proc/meminfo.
    Machine,
    /// A cgroup memory limit less the cgroup's usage.
    Cgroup,
    /// `RLIMIT_AS` less the address space in use.
    AddressSpace,
}

/// Bytes the process may still allocate: the smallest of the bounds that apply (see the module
/// docs), or `None` when none can be read (other systems: no check).
pub fn available() -> Option<Available> {
    let machine = read("/proc/meminfo")
        .and_then(|text| mem_available(&text))
        .map(|bytes| Available {
            bytes,
            bound: Bound::Machine,
        });
    let cgroup = cgroup_available().map(|bytes| Available {
        bytes,
        bound: Bound::Cgroup,
    });
    let address_space = address_space_available().map(|bytes| Available {
        bytes,
        bound: Bound::AddressSpace,
    });
    [machine, cgroup, address_space]
        .into_iter()
        .flatten()
        .min_by_key(|a| a.bytes)
}

/// `Err` naming `what`, the bytes it would need and those available (and under which bound),
/// when `needed` exceeds what the process may still allocate.
pub fn check_fits(what: &str, needed: u64) -> Result<(), String> {
    match available() {
        Some(available) if needed > available.bytes => Err(refusal(what, needed, available)),
        _ => Ok(()),
    }
}

/// The message of [`check_fits`].
fn refusal(what: &str, needed: u64, available: Available) -> String {
    let has = match available.bound {
        Bound::Machine => format!("this machine has {} available", human(available.bytes)),
        Bound::Cgroup => format!(
            "this process has {} available under its cgroup's memory limit",
            human(available.bytes)
        ),
        Bound::AddressSpace => format!(
            "this process has {} available under its address-space limit (RLIMIT_AS, `ulimit -v`)",
            human(available.bytes)
        ),
    };
    format!("{what} would need about {} of memory; {has}", human(needed))
}

/// `1.5 GB`, `320 MB`, `12 kB` (decimal units).
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    for (unit, size) in [
        ("EB", 1e18),
        ("PB", 1e15),
        ("TB", 1e12),
        ("GB", 1e9),
        ("MB", 1e6),
        ("kB", 1e3),
    ] {
        if b >= size {
            return format!("{:.1} {unit}", b / size);
        }
    }
    format!("{bytes} B")
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

// ----- /proc/meminfo ---------------------------------------------------------------------------

/// `MemAvailable` of /proc/meminfo, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

// ----- cgroups ---------------------------------------------------------------------------------

/// The two cgroup hierarchies that can limit memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hierarchy {
    /// cgroup v2, the unified hierarchy.
    V2,
    /// cgroup v1's memory controller.
    V1Memory,
}

impl Hierarchy {
    /// The files of a cgroup directory that hold its limit and its usage.
    fn files(self) -> (&'static str, &'static str) {
        match self {
            Hierarchy::V2 => ("memory.max", "memory.current"),
            Hierarchy::V1Memory => ("memory.limit_in_bytes", "memory.usage_in_bytes"),
        }
    }

    /// The key of `memory.stat` counting the page cache the kernel reclaims first.
    fn inactive_file_key(self) -> &'static str {
        match self {
            Hierarchy::V2 => "inactive_file",
            // The hierarchical total: the cgroup's own plus its children's.
            Hierarchy::V1Memory => "total_inactive_file",
        }
    }
}

/// The process's cgroup path in `hierarchy`, from /proc/self/cgroup (`ID:CONTROLLERS:PATH`
/// lines: v2 is `0::PATH`, v1's memory controller has `memory` among its controllers).
fn cgroup_path(proc_self_cgroup: &str, hierarchy: Hierarchy) -> Option<String> {
    proc_self_cgroup.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (id, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let found = match hierarchy {
            Hierarchy::V2 => id == "0" && controllers.is_empty(),
            Hierarchy::V1Memory => controllers.split(',').any(|c| c == "memory"),
        };
        found.then(|| path.to_string())
    })
}

/// Where `hierarchy` is mounted, from /proc/self/mountinfo: (the cgroup path at the mount
/// point, the mount point). A line is `ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...]
/// - FSTYPE SOURCE SUPER_OPTIONS`; v1's memory controller has `memory` in its super options.
fn cgroup_mount(mountinfo: &str, hierarchy: Hierarchy) -> Option<(String, PathBuf)> {
    mountinfo.lines().find_map(|line| {
        let (head, tail) = line.split_once(" - ")?;
        let head: Vec<&str> = head.split(' ').collect();
        let tail: Vec<&str> = tail.split(' ').collect();
        let (root, mount_point) = (head.get(3)?, head.get(4)?);
        let (fstype, super_options) = (tail.first()?, tail.get(2).copied().unwrap_or(""));
        let found = match hierarchy {
            Hierarchy::V2 => *fstype == "cgroup2",
            Hierarchy::V1Memory => *fstype == "cgroup" && super_options.split(',').any(|o| o == "memory"),
        };
        found.then(|| (unescape(root), PathBuf::from(unescape(mount_point))))
    })
}

/// A mountinfo field with its octal escapes (`\040` for a space) decoded.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match (bytes[i], octal) {
            (b'\\', Some(digits)) => {
                let value = digits.iter().fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
                out.push(value as u8);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The directories of the process's cgroup and of each ancestor up to the mount point, the
/// process's first. The cgroup path is relative to the hierarchy's root, the mount point
/// shows the cgroup `mount_root`; a path outside it (a cgroup namespace, a bind mount of
/// another cgroup) leaves only the mount point, whose limit the process is under.
fn cgroup_dirs(mount_point: &Path, mount_root: &str, path: &str) -> Vec<PathBuf> {
    let root = mount_root.trim_end_matches('/');
    let below = match path.strip_prefix(root) {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
        _ => "",
    };
    let parts: Vec<&str> = below.split('/').filter(|p| !p.is_empty()).collect();
    (0..=parts.len())
        .rev()
        .map(|n| parts[..n].iter().fold(mount_point.to_path_buf(), |dir, p| dir.join(p)))
        .collect()
}

/// A limit file's value: `None` when unlimited (v2 writes `max`; v1 writes the largest page
/// multiple of an i64, 9223372036854771712, or near it on other page sizes).
fn parse_limit(text: &str) -> Option<u64> {
    let text = text.trim();
    if text == "max" {
        return None;
    }
    text.parse::<u64>().ok().filter(|&bytes| bytes < 1 << 62)
}

/// A usage file's value.
fn parse_usage(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// The value of `key` in a `memory.stat` (`KEY VALUE` lines).
fn stat_value(memory_stat: &str, key: &str) -> Option<u64> {
    memory_stat.lines().find_map(|line| {
        let (k, v) = line.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

/// What a cgroup with this limit, usage and inactive page cache leaves to allocate.
fn cgroup_headroom(limit: u64, usage: u64, inactive_file: u64) -> u64 {
    limit.saturating_sub(usage.saturating_sub(inactive_file))
}

/// The smallest headroom over the process's cgroup and its ancestors, in either hierarchy.
fn cgroup_available() -> Option<u64> {
    let cgroups = read("/proc/self/cgroup")?;
    let mountinfo = read("/proc/self/mountinfo")?;
    [Hierarchy::V2, Hierarchy::V1Memory]
        .into_iter()
        .filter_map(|hierarchy| {
            let path = cgroup_path(&cgroups, hierarchy)?;
            let (root, mount_point) = cgroup_mount(&mountinfo, hierarchy)?;
            let (limit_file, usage_file) = hierarchy.files();
            cgroup_dirs(&mount_point, &root, &path)
                .into_iter()
                .filter_map(|dir| {
                    let limit = parse_limit(&read(dir.join(limit_file))?)?;
                    let usage = read(dir.join(usage_file)).and_then(|t| parse_usage(&t)).unwrap_or(0);
                    let inactive = read(dir.join("memory.stat"))
                        .and_then(|t| stat_value(&t, hierarchy.inactive_file_key()))
                        .unwrap_or(0);
                    Some(cgroup_headroom(limit, usage, inactive))
                })
                .min()
        })
        .min()
}

// ----- RLIMIT_AS -------------------------------------------------------------------------------

/// The address space in use, from /proc/self/statm (its first field, in pages).
fn statm_size(statm: &str, page_size: u64) -> Option<u64> {
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    pages.checked_mul(page_size)
}

/// `RLIMIT_AS` less the address space in use, when the limit is set.
fn address_space_available() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `getrlimit` writes the one struct it is given and reads nothing else.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
            return None;
        }
        // SAFETY: `sysconf` only reads a system setting.
        let page_size = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
        let used = statm_size(&read("/proc/self/statm")?, page_size)?;
        Some(limit.rlim_cur.saturating_sub(used))
    }
    #[cfg(not(unix))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_in_decimal_units() {
        assert_eq!(human(999), "999 B");
        assert_eq!(human(7_300_000_000), "7.3 GB");
        assert_eq!(human(u64::MAX), "18.4 EB");
    }

    #[test]
    fn what_cannot_fit_is_refused_with_both_amounts() {
        if available().is_some() {
            let err = check_fits("the test", u64::MAX).unwrap_err();
            assert!(
                err.starts_with("the test would need about 18.4 EB of memory; this "),
                "{err}"
            );
            assert!(err.contains(" available"), "{err}");
            assert!(check_fits("the test", 1).is_ok());
        }
    }

    #[test]
    fn the_refusal_names_the_bound() {
        let at = |bound| Available {
            bytes: 2_000_000_000,
            bound,
        };
        assert_eq!(
            refusal("x", 9_000_000_000, at(Bound::Machine)),
            "x would need about 9.0 GB of memory; this machine has 2.0 GB available"
        );
        assert!(refusal("x", 9_000_000_000, at(Bound::Cgroup))
            .ends_with("this process has 2.0 GB available under its cgroup's memory limit"));
        assert!(refusal("x", 9_000_000_000, at(Bound::AddressSpace)).contains("RLIMIT_AS"));
    }

    #[test]
    fn meminfo_gives_mem_available_in_bytes() {
        let text = "MemTotal:       32614788 kB\nMemFree:         1103296 kB\nMemAvailable:   24079568 kB\n";
        assert_eq!(mem_available(text), Some(24_079_568 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn proc_self_cgroup_names_each_hierarchy() {
        // A hybrid system: v1 controllers, with the memory one nested, and v2 at the root.
        let hybrid = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/0ee8d9cf\n\
                      3:cpuset:/\n2:cpu,cpuacct:/\n0::/\n";
        assert_eq!(
            cgroup_path(hybrid, Hierarchy::V1Memory).as_deref(),
            Some("/process_api/0ee8d9cf")
        );
        assert_eq!(cgroup_path(hybrid, Hierarchy::V2).as_deref(), Some("/"));
        // v2 only: one line.
        let v2 = "0::/user.slice/user-1000.slice/session-3.scope\n";
        assert_eq!(
            cgroup_path(v2, Hierarchy::V2).as_deref(),
            Some("/user.slice/user-1000.slice/session-3.scope")
        );
        assert_eq!(cgroup_path(v2, Hierarchy::V1Memory), None);
        // Memory among other controllers of one v1 hierarchy; a path with a colon.
        let joined = "5:cpu,memory:/batch/job:42\n";
        assert_eq!(
            cgroup_path(joined, Hierarchy::V1Memory).as_deref(),
            Some("/batch/job:42")
        );
        assert_eq!(cgroup_path("", Hierarchy::V2), None);
    }

    #[test]
    fn mountinfo_says_where_each_hierarchy_is_mounted() {
        let text = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
                    32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n\
                    35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n\
                    41 31 0:38 /docker/abc /sys/fs/cgroup/unified\\040dir rw,relatime - cgroup2 cgroup2 rw\n";
        assert_eq!(
            cgroup_mount(text, Hierarchy::V1Memory),
            Some(("/".to_string(), PathBuf::from("/sys/fs/cgroup/memory")))
        );
        assert_eq!(
            cgroup_mount(text, Hierarchy::V2),
            Some(("/docker/abc".to_string(), PathBuf::from("/sys/fs/cgroup/unified dir")))
        );
        assert_eq!(cgroup_mount("", Hierarchy::V2), None);
    }

    #[test]
    fn a_cgroup_and_its_ancestors_are_read_up_to_the_mount() {
        let mount = Path::new("/sys/fs/cgroup");
        assert_eq!(
            cgroup_dirs(mount, "/", "/a/b"),
            vec![mount.join("a/b"), mount.join("a"), mount.to_path_buf()]
        );
        assert_eq!(cgroup_dirs(mount, "/", "/"), vec![mount.to_path_buf()]);
        // The mount shows a nested cgroup: the path is taken below it.
        assert_eq!(
            cgroup_dirs(mount, "/docker/abc", "/docker/abc/sub"),
            vec![mount.join("sub"), mount.to_path_buf()]
        );
        // A path outside what the mount shows (a namespace): only the mount point.
        assert_eq!(cgroup_dirs(mount, "/docker/abc", "/other"), vec![mount.to_path_buf()]);
        assert_eq!(
            cgroup_dirs(mount, "/docker/abc", "/docker/abcd"),
            vec![mount.to_path_buf()]
        );
    }

    #[test]
    fn limits_read_max_and_v1s_unlimited_as_none() {
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(parse_limit("2147483648\n"), Some(2_147_483_648));
        assert_eq!(parse_limit("garbage"), None);
        assert_eq!(parse_usage("876994560\n"), Some(876_994_560));
    }

    #[test]
    fn page_cache_the_kernel_drops_first_counts_as_available() {
        let v2 = "anon 1048576\nfile 8388608\nactive_file 4194304\ninactive_file 3145728\n";
        assert_eq!(stat_value(v2, "inactive_file"), Some(3_145_728));
        let v1 = "cache 100\ninactive_file 7\ntotal_inactive_file 70\n";
        assert_eq!(stat_value(v1, "total_inactive_file"), Some(70));
        assert_eq!(stat_value(v1, "total_active_file"), None);
        // 2 GB limit, 1.5 GB used of which 0.5 GB inactive cache: 1 GB left.
        assert_eq!(cgroup_headroom(2_000, 1_500, 500), 1_000);
        assert_eq!(cgroup_headroom(2_000, 2_500, 0), 0);
        assert_eq!(cgroup_headroom(2_000, 100, 500), 2_000);
    }

    #[test]
    fn statm_gives_the_address_space_in_use() {
        assert_eq!(statm_size("45219 3001 1500 300 0 20000 0\n", 4096), Some(45_219 * 4096));
        assert_eq!(statm_size("", 4096), None);
    }
}
