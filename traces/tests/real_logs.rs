//! The readers on the real logs gridsim ships (`traces/data/`, see `SOURCES.txt`). Every expected
//! value was read by hand from the decompressed file (`zcat FILE | less`), or computed from it
//! with the `awk` one-liner quoted beside it, not by the code under test.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use traces::hbd::HbdReader;
use traces::info::{summarize, TraceInfo};
use traces::input::{decompress, Compression};
use traces::job::{read_workload, Selection};
use traces::swf::{SwfReader, SwfStatus};
use traces::TraceFormat;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data").join(name)
}

fn open(name: &str) -> Box<dyn std::io::BufRead> {
    let file = File::open(data(name)).unwrap();
    let (compression, reader) = decompress(BufReader::new(file)).unwrap();
    assert_eq!(compression, Compression::Gzip);
    reader
}

const KTH: &str = "KTH-SP2-1996-2.1-cln.swf.gz";
const CSD: &str = "CSD-trace.csv.gz";

#[test]
fn kth_first_and_last_jobs_and_header() {
    let mut reader = SwfReader::new(open(KTH));
    let jobs: Vec<_> = reader.by_ref().map(|j| j.unwrap()).collect();
    // 28,490 job numbers in the original log; the cleaned log removed 498 lines (its header
    // says MaxJobs 28490, MaxRecords 28476): `zcat KTH | grep -vc '^;'` gives 27992.
    assert_eq!(jobs.len(), 27992);
    // First job line: `15   599850 192180   3477    4     -1    -1    4  53940    -1  1  12  12  -1 -1 -1 -1 -1`.
    let first = &jobs[0];
    assert_eq!(first.job_number, 15);
    assert_eq!(first.submit_s, 599850.0);
    assert_eq!(first.wait_s, Some(192180.0));
    assert_eq!(first.run_s, Some(3477.0));
    assert_eq!(first.allocated_procs, Some(4.0));
    assert_eq!(first.average_cpu_s, None);
    assert_eq!(first.requested_procs, Some(4.0));
    assert_eq!(first.requested_s, Some(53940.0));
    assert_eq!(first.status_kind(), SwfStatus::Completed);
    assert_eq!((first.user_id, first.group_id), (Some(12), Some(12)));
    assert_eq!(first.think_s, None);
    // Last line: `28490 29363618    720      8    1     -1    -1    1  30000    -1  1  98 198  -1 -1 -1 -1 -1`.
    let last = jobs.last().unwrap();
    assert_eq!(last.job_number, 28490);
    assert_eq!(last.submit_s, 29363618.0);
    assert_eq!(last.run_s, Some(8.0));
    assert_eq!(last.requested_s, Some(30000.0));
    assert_eq!((last.user_id, last.group_id), (Some(98), Some(198)));
    // Header lines 1-18.
    let h = reader.header();
    assert_eq!(h.get("Version"), Some("2.2"));
    assert_eq!(h.get("Computer"), Some("IBM SP2"));
    assert_eq!(h.get("MaxJobs"), Some("28490"));
    assert_eq!(h.get("MaxProcs"), Some("100"));
    assert_eq!(h.get("UnixStartTime"), Some("843480031"));
    assert_eq!(h.get("TimeZoneString"), Some("Europe/Stockholm"));
    assert_eq!(h.get("Note"), Some("uses the EASY scheduler"));
    // `; Information: http://www.pdc.kth.se/` continues on the next `;` line.
    assert_eq!(
        h.get("Information"),
        Some("http://www.pdc.kth.se/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/")
    );
}

#[test]
fn kth_summary() {
    let TraceInfo::Jobs(info) = summarize(TraceFormat::Swf, open(KTH)).unwrap() else {
        panic!("a job trace")
    };
    assert_eq!(info.jobs, 27992);
    assert_eq!((info.first_submit_s, info.last_submit_s), (599850.0, 29363618.0));
    assert_eq!(info.processors, Some(100.0));
    // Status column: `awk '{print $11}' | sort | uniq -c` gives 7509 zeros, 20483 ones.
    assert_eq!(info.odd.failed, 7509);
    assert_eq!(info.odd.cancelled, 0);
    // Σ run time × processors: `awk '$4>=0 && $5>0 {w+=$4*$5}'` = 1972976954 over
    // (29363618 − 599850) s × 100 processors.
    let expected = 1972976954.0 / ((29363618.0 - 599850.0) * 100.0);
    assert!((info.utilisation_offered.unwrap() - expected).abs() < 1e-12);
    // Columns 6, 7, 10, 14-18 are -1 on every line of this log.
    assert_eq!(
        info.all_unknown_fields,
        vec![
            "average_cpu_time",
            "used_memory",
            "requested_memory",
            "executable",
            "queue",
            "partition",
            "preceding_job",
            "think_time"
        ]
    );
}

#[test]
fn csd_process_trace_counts_fractions_and_sorting() {
    let records: Vec<_> = HbdReader::new(open(CSD)).map(|r| r.unwrap()).collect();
    // 184,613 lines including the header (SOURCES.txt).
    assert_eq!(records.len(), 184612);
    // First data line `240,0.5,5,0.09,s5make`: fractional minute and CPU seconds.
    let first = &records[0];
    assert_eq!(
        (first.hour, first.minute, first.class, first.cpu_s),
        (240, 0.5, 5, 0.09)
    );
    assert_eq!(first.program, "s5make");
    assert_eq!(first.arrival_s(), 240.0 * 3600.0 + 30.0);
    // Last line `479,59.7,0,0.02,sed`.
    let last = records.last().unwrap();
    assert_eq!(
        (last.hour, last.minute, last.cpu_s, last.program.as_str()),
        (479, 59.7, 0.02, "sed")
    );

    // The workload sorts the five blocks of hours: the first job is the first hour-0 line,
    // `0,0.1,4,0.02,cpp2.1`, at 6 s; rebased to 0. Σ CPU seconds (`awk -F, 'NR>1{s+=$4}'`)
    // = 68228.045.
    let w = read_workload(TraceFormat::Hbd, open(CSD), &Selection::default()).unwrap();
    assert_eq!(w.jobs.len(), 184612);
    assert_eq!(w.jobs[0].runtime_s, 0.02);
    assert_eq!(w.jobs[0].submit_s, 0.0);
    assert!(w.jobs.windows(2).all(|p| p[0].submit_s <= p[1].submit_s));
    let cpu: f64 = w.jobs.iter().map(|j| j.runtime_s).sum();
    assert!((cpu - 68228.045).abs() < 1e-6, "{cpu}");
    // 479 h 59.7 min − 0 h 0.1 min.
    assert!((w.jobs.last().unwrap().submit_s - (479.0 * 3600.0 + 59.6 * 60.0)).abs() < 1e-6);
}

#[test]
fn selection_on_kth() {
    // First day after the first job (599850 s): `awk '$2 < 599850+86400' | wc -l` gives 160 lines.
    let day = Selection {
        window_s: Some((0.0, 86400.0)),
        ..Selection::default()
    };
    let w = read_workload(TraceFormat::Swf, open(KTH), &day).unwrap();
    assert_eq!(w.jobs.len(), 160);
    assert_eq!(w.jobs[0].id, 15);
    // Serial jobs among the first 1000 kept ones, load scale 2: arrivals halve.
    let serial = Selection {
        first: Some(1000),
        serial_only: true,
        load_scale: 2.0,
        ..Selection::default()
    };
    let s = read_workload(TraceFormat::Swf, open(KTH), &serial).unwrap();
    assert_eq!(s.jobs.len(), 1000);
    assert!(s.jobs.iter().all(|j| j.procs == 1));
    // The first serial job is job 20 at 605396 s (line `20 605396 0 16 1 ...`); the 1000th
    // is rebased to it and halved.
    assert_eq!(s.jobs[0].id, 20);
    let unscaled = read_workload(
        TraceFormat::Swf,
        open(KTH),
        &Selection {
            load_scale: 1.0,
            ..serial.clone()
        },
    )
    .unwrap();
    assert_eq!(s.jobs[999].submit_s * 2.0, unscaled.jobs[999].submit_s);
}
