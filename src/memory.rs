//! What a command is about to allocate, against what the machine has: a sweep, a run's tables
//! or a benchmark that cannot fit is refused before it starts, with the amount it would need,
//! instead of swapping the machine to a halt or being killed by the kernel half way.

/// Bytes the kernel says can be allocated without swapping (`MemAvailable` of /proc/meminfo),
/// if it says (other systems: no check).
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `Err` naming `what`, the bytes it would need and those available, when `needed` exceeds
/// what the machine has.
pub fn check_fits(what: &str, needed: u64) -> Result<(), String> {
    match available_bytes() {
        Some(available) if needed > available => Err(format!(
            "{what} would need about {} of memory; this machine has {} available",
            human(needed),
            human(available)
        )),
        _ => Ok(()),
    }
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
        if available_bytes().is_some() {
            let err = check_fits("the test", u64::MAX).unwrap_err();
            assert!(err.starts_with("the test would need about 18.4 EB of memory; this machine has "));
            assert!(check_fits("the test", 1).is_ok());
        }
    }
}
