//! SWF and process-trace readers on crafted files, one per oddity the formats allow or forbid,
//! and round trips through their writers.

use proptest::prelude::*;
use traces::hbd::{HbdReader, ProcessRecord};
use traces::info::{summarize, TraceInfo};
use traces::input::decompress;
use traces::job::{read_workload, Selection};
use traces::swf::{SwfJob, SwfReader, SwfStatus};
use traces::{TraceError, TraceFormat};

const ODDITIES: &str = include_str!("data/swf-oddities.swf");

fn swf(text: &str) -> Result<Vec<SwfJob>, TraceError> {
    SwfReader::new(text.as_bytes()).collect()
}

fn first_error(text: &str) -> TraceError {
    swf(text).unwrap_err()
}

#[test]
fn every_allowed_oddity_is_read_as_written() {
    let jobs = swf(ODDITIES).unwrap();
    // 8 job lines although the header says MaxJobs 5000; job numbers repeat and skip.
    assert_eq!(jobs.len(), 8);
    assert_eq!(
        jobs.iter().map(|j| j.job_number).collect::<Vec<_>>(),
        [101, 7, 7, 9, 10, 10, 10, 11]
    );
    // Line 11: submit 3600.5 (does not start at 0, fractional), run time 0.
    assert_eq!((jobs[0].submit_s, jobs[0].run_s), (3600.5, Some(0.0)));
    // Line 12: fractional run time, processors, CPU time and memory; run 120.25 > request 60.
    let j = &jobs[1];
    assert_eq!(j.run_s, Some(120.25));
    assert_eq!(j.allocated_procs, Some(2.5));
    assert_eq!(j.average_cpu_s, Some(100.5));
    assert_eq!(j.used_memory_kb, Some(2048.75));
    // Lines 13-18: status 0, 5, 1, 2, 3, 4.
    let kinds: Vec<SwfStatus> = jobs[2..].iter().map(|j| j.status_kind()).collect();
    assert_eq!(
        kinds,
        [
            SwfStatus::Failed,
            SwfStatus::Cancelled,
            SwfStatus::Completed,
            SwfStatus::PartialContinued,
            SwfStatus::PartialLastCompleted,
            SwfStatus::PartialLastFailed
        ]
    );
    assert_eq!((jobs[4].preceding_job, jobs[4].think_s), (Some(7), Some(5.0)));
    let mut reader = SwfReader::new(ODDITIES.as_bytes());
    reader.by_ref().for_each(drop);
    assert_eq!(reader.header().get("MaxJobs"), Some("5000"));
    assert_eq!(
        reader.header().get("Note"),
        Some("every oddity SWF v2.2 allows,\none job line each")
    );
}

#[test]
fn the_summary_counts_the_oddities() {
    let TraceInfo::Jobs(info) = summarize(TraceFormat::Swf, ODDITIES.as_bytes()).unwrap() else {
        panic!("a job trace")
    };
    let o = &info.odd;
    assert_eq!(o.runtime_zero, 1); // line 11
    assert_eq!(o.runtime_above_request, 1); // line 12
    assert_eq!(o.runtime_unknown, 1); // line 14, the cancelled job
    assert_eq!(o.procs_unknown_or_zero, 1); // line 18 (0 and 0); line 14 has 8 requested
    assert_eq!((o.failed, o.cancelled, o.partial), (2, 1, 3)); // status 0 and 4; 5; 2, 3, 4
    assert_eq!(o.duplicate_job_number, 3); // 7 once more, 10 twice more
    assert_eq!(info.processors, Some(64.0));
}

#[test]
fn the_workload_drops_what_cannot_run_and_partial_lines() {
    let w = read_workload(TraceFormat::Swf, ODDITIES.as_bytes(), &Selection::default()).unwrap();
    // Line 14 (run time -1) dropped for its run time, line 18 (0 processors) for processors;
    // the two partial lines (status 2, 3) skipped: 101, 7, 7, 10 remain.
    assert_eq!(w.records, 8);
    assert_eq!((w.dropped.unknown_runtime, w.dropped.no_processors), (1, 1));
    assert_eq!(w.jobs.iter().map(|j| j.id).collect::<Vec<_>>(), [101, 7, 7, 10]);
    // 2.5 processors round up to 3; arrivals rebased to the first job (3600.5 s).
    assert_eq!(w.jobs[1].procs, 3);
    assert_eq!(w.jobs[1].submit_s, 99.5);
    let keep = Selection {
        keep_partial: true,
        ..Selection::default()
    };
    assert_eq!(
        read_workload(TraceFormat::Swf, ODDITIES.as_bytes(), &keep)
            .unwrap()
            .jobs
            .len(),
        6
    );
}

const GOOD: &str = "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n";

#[test]
fn each_bad_line_gets_its_own_message() {
    let e = first_error(&format!("{GOOD}2 5 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1\n"));
    assert_eq!(e.line, 2);
    assert!(e.message.starts_with("17 fields; SWF job lines have 18"), "{e}");

    let e = first_error("1 0 0 1O 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
    assert_eq!(e.to_string(), "1: field run_time: \"1O\" is not a number");

    let e = first_error("1 -5 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
    assert_eq!(e.field.as_deref(), Some("submit_time"));
    assert!(e.message.contains("negative"), "{e}");

    let e = first_error(&format!("; c\n{}{GOOD}", GOOD.replacen("1 0", "1 50", 1)));
    assert_eq!((e.line, e.field.as_deref()), (3, Some("submit_time")));
    assert!(e.message.contains("before the previous job's 50 (line 2)"), "{e}");
    assert!(e.message.contains("refused, not reordered"), "{e}");

    let e = first_error("1 0 0 10 1 -1 -1 1 60 -1 1 1.5 1 -1 -1 -1 -1 -1\n");
    assert_eq!(e.field.as_deref(), Some("user_id"));

    let e = first_error("1 0 -3 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
    assert_eq!(e.field.as_deref(), Some("wait_time"));

    let e = first_error("1 0 0 inf 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
    assert_eq!(e.field.as_deref(), Some("run_time"));
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn a_truncated_gzip_log_is_an_error_not_a_shorter_log() {
    let text: String = (0..20000)
        .map(|i| format!("{i} {i} 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"))
        .collect();
    let gz = gzip(text.as_bytes());
    let (_, reader) = decompress(&gz[..gz.len() * 2 / 3]).unwrap();
    let result: Result<Vec<SwfJob>, TraceError> = SwfReader::new(reader).collect();
    let e = result.unwrap_err();
    assert!(e.message.contains("ends early"), "{e}");
}

#[test]
fn process_trace_errors() {
    let read = |text: &str| HbdReader::new(text.as_bytes()).collect::<Result<Vec<ProcessRecord>, TraceError>>();
    assert!(read("hour,min,unk,sec,prog\n1,2.5,0,0.1,ls\n").is_ok());
    let e = read("time,cpu\n1,2\n").unwrap_err();
    assert!(e.message.contains("expected the header"), "{e}");
    let e = read("hour,min,unk,sec,prog\n1,60,0,0.1,ls\n").unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (2, Some("min")));
    let e = read("hour,min,unk,sec,prog\n1,2,0,-0.1,ls\n").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("sec"));
    let e = read("hour,min,unk,sec,prog\n1,2,0\n").unwrap_err();
    assert!(e.message.starts_with("3 fields"), "{e}");
    let e = read("hour,min,unk,sec,prog\n-1,2,0,1,ls\n").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("hour"));
}

fn unknown_or(value: impl Strategy<Value = f64>) -> impl Strategy<Value = Option<f64>> {
    prop_oneof![Just(None), value.prop_map(Some)]
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![0.0..1e9f64, (0u32..100_000).prop_map(f64::from)]
}

fn id() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![Just(None), (0i64..1_000_000_000).prop_map(Some)]
}

prop_compose! {
    fn swf_job()(
        job_number in 0i64..1_000_000_000,
        submit_s in number(),
        a in proptest::collection::vec(unknown_or(number()), 9),
        ids in proptest::collection::vec(id(), 7),
        think_s in unknown_or(number()),
    ) -> SwfJob {
        SwfJob {
            job_number, submit_s,
            wait_s: a[0], run_s: a[1], allocated_procs: a[2], average_cpu_s: a[3], used_memory_kb: a[4],
            requested_procs: a[5], requested_s: a[6], requested_memory_kb: a[7],
            status: ids[0], user_id: ids[1], group_id: ids[2], executable: ids[3], queue: ids[4],
            partition: ids[5], preceding_job: ids[6], think_s: a[8].or(think_s),
        }
    }
}

proptest! {
    #[test]
    fn any_swf_record_the_writer_emits_reads_back_identical(job in swf_job()) {
        let line = job.to_line();
        let back = swf(&format!("{line}\n")).unwrap();
        prop_assert_eq!(back, vec![job]);
    }

    #[test]
    fn any_process_record_reads_back_identical(
        hour in 0u32..10_000, tenths in 0u32..600, class in 0u32..10, cpu in 0.0..1e6f64,
        program in "[a-zA-Z0-9_.+-]{1,20}",
    ) {
        let record = ProcessRecord { hour, minute: tenths as f64 / 10.0, class, cpu_s: cpu, program };
        let text = format!("{}\n{}\n", traces::hbd::HEADER, record.to_line());
        let back: Vec<ProcessRecord> = HbdReader::new(text.as_bytes()).collect::<Result<_, _>>().unwrap();
        prop_assert_eq!(back, vec![record]);
    }

    #[test]
    fn no_bytes_make_a_reader_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), gz in any::<bool>()) {
        let input = if gz { gzip(&bytes) } else { bytes };
        for format in TraceFormat::ALL {
            let (_, reader) = decompress(input.as_slice()).unwrap();
            let _ = summarize(format, reader);
            let (_, reader) = decompress(input.as_slice()).unwrap();
            let _ = read_workload(format, reader, &Selection::default());
        }
    }

    #[test]
    fn swf_like_garbage_never_panics(lines in proptest::collection::vec("[-0-9. ;a-z]{0,60}", 0..20)) {
        let text = lines.join("\n");
        let (_, reader) = decompress(text.as_bytes()).unwrap();
        let _ = summarize(TraceFormat::Swf, reader);
        for item in SwfReader::new(text.as_bytes()) {
            let _ = item;
        }
    }
}
