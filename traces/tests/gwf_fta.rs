//! GWF and FTA readers, writers and the FTA → profile conversion, against files written by hand
//! (`tests/data/gwf-*`, `tests/data/fta-*`): every expected value is derived in a comment from
//! the line it comes from.

use proptest::prelude::*;

use traces::fta::{self, availability, Availability, AvailabilityOptions, EventType, FtaEvent, FtaReader, GapPolicy};
use traces::gwf::{self, GwfHeader, GwfJob, GwfReader};
use traces::input::decompress;
use traces::job::DropReason;
use traces::TraceError;

const GWF_SMALL: &str = include_str!("data/gwf-small.gwf");
const FTA_TWO_NODES: &str = include_str!("data/fta-two-nodes.tab");
const FTA_SPACES: &str = include_str!("data/fta-spaces.tab");

fn gwf_all(text: &str) -> Vec<Result<GwfJob, TraceError>> {
    GwfReader::new(text.as_bytes()).collect()
}

fn gwf_ok(text: &str) -> (GwfHeader, Vec<GwfJob>) {
    let mut reader = GwfReader::new(text.as_bytes());
    let jobs: Vec<GwfJob> = reader.by_ref().map(|j| j.unwrap()).collect();
    (reader.header().clone(), jobs)
}

fn gwf_err(text: &str) -> TraceError {
    gwf_all(text).into_iter().find_map(Result::err).expect("an error")
}

fn fta_all(text: &str) -> Vec<Result<FtaEvent, TraceError>> {
    FtaReader::new(text.as_bytes()).collect()
}

fn fta_ok(text: &str) -> Vec<FtaEvent> {
    fta_all(text).into_iter().map(|e| e.unwrap()).collect()
}

fn fta_err(text: &str) -> TraceError {
    fta_all(text).into_iter().find_map(Result::err).expect("an error")
}

/// A job line of 29 fields: the 11 numeric ones given, the 18 others `-1`.
fn gwf_line(first: &str) -> String {
    let mut tokens: Vec<&str> = first.split(' ').collect();
    tokens.resize(29, "-1");
    tokens.join(" ")
}

// ---------------------------------------------------------------------------------------------
// GWF
// ---------------------------------------------------------------------------------------------

#[test]
fn gwf_header_pairs_continuations_and_column_titles() {
    let (header, _) = gwf_ok(GWF_SMALL);
    // Line 1 `# JobID SubmitTime ...` has no `Key:` and comes before any key: the key-less entry.
    assert_eq!(header.entries[0].0, "");
    assert!(header.entries[0].1.starts_with("JobID SubmitTime WaitTime"));
    assert!(header.entries[0].1.ends_with("VOID ProjectID"));
    // Line 2 `# Version: 1.0`, line 3 `# Computer: DAS-2 (crafted for tests)`.
    assert_eq!(header.get("Version"), Some("1.0"));
    assert_eq!(header.get("Computer"), Some("DAS-2 (crafted for tests)"));
    // Lines 4-5: `# Note: five jobs written by hand` continued by `#       for the gwf_fta tests`.
    assert_eq!(
        header.get("Note"),
        Some("five jobs written by hand\nfor the gwf_fta tests")
    );
    assert_eq!(header.get("MaxJobs"), None);
    // Line 11 (`# a comment among the jobs is skipped`) comes after a job: not a header entry.
    assert_eq!(header.entries.len(), 4);
}

#[test]
fn gwf_jobs_field_by_field() {
    let (_, jobs) = gwf_ok(GWF_SMALL);
    assert_eq!(jobs.len(), 5);
    // Line 7: `1 1136070024 0 15 1 -1 -1 1 900 -1 1 U123 G4 L1 0 -1 fs0 DAS2/fs0 UNITARY -1 ...`
    let j = &jobs[0];
    assert_eq!(j.job_id, 1);
    assert_eq!(j.submit_s, 1136070024.0);
    assert_eq!(j.wait_s, Some(0.0));
    assert_eq!(j.run_s, Some(15.0));
    assert_eq!(j.nprocs, Some(1.0));
    assert_eq!(j.average_cpu_s, None);
    assert_eq!(j.req_time_s, Some(900.0));
    assert_eq!(j.status, Some(1));
    assert_eq!(j.user_id.as_deref(), Some("U123"));
    assert_eq!(j.group_id.as_deref(), Some("G4"));
    assert_eq!(j.executable_id.as_deref(), Some("L1"));
    assert_eq!(j.queue_id.as_deref(), Some("0"));
    assert_eq!(j.partition_id, None);
    assert_eq!(j.orig_site_id.as_deref(), Some("fs0"));
    assert_eq!(j.last_run_site_id.as_deref(), Some("DAS2/fs0"));
    assert_eq!(j.job_structure.as_deref(), Some("UNITARY"));
    // UNITARY: no bag.
    assert_eq!(j.bot_id(), None);
    assert_eq!(j.project_id, None);
    // Line 8: `2 1136070030 2.5 120.25 -1 -1 2048 4 3600 4096 1 17 G4 L2 1 -1 fs1 DAS2/fs1 BoT
    // BatchId=12 -1 -1 cpu,gpu x86_64,Linux -1 -1 -1 vo1 P9`
    let j = &jobs[1];
    assert_eq!(j.wait_s, Some(2.5));
    assert_eq!(j.run_s, Some(120.25));
    assert_eq!(j.nprocs, None);
    assert_eq!(j.used_memory_kb, Some(2048.0));
    assert_eq!(j.req_nprocs, Some(4.0));
    assert_eq!(j.req_memory_kb, Some(4096.0));
    assert_eq!(j.bot_id(), Some("BatchId=12"));
    assert_eq!(j.used_network, None);
    assert_eq!(j.used_resources.as_deref(), Some("cpu,gpu"));
    assert_eq!(j.req_platform.as_deref(), Some("x86_64,Linux"));
    assert_eq!(j.req_resources, None);
    assert_eq!(j.vo_id.as_deref(), Some("vo1"));
    assert_eq!(j.project_id.as_deref(), Some("P9"));
    // Line 9: JobStructure `bot` (lower case), JobStructureParams `12`.
    assert_eq!(jobs[2].bot_id(), Some("12"));
    assert_eq!(jobs[2].status, Some(5));
    // Line 10 is tab-separated: still 29 fields; user `alice`.
    assert_eq!(jobs[3].job_id, 4);
    assert_eq!(jobs[3].user_id.as_deref(), Some("alice"));
    // Line 12: `  5 1136070040 1 60 3 55.5 -1 -1 -1 1024 2 U007 ... 0.5 12 -1 -1 1.5 20 -1 -1 -1  `
    // (leading and trailing spaces).
    let j = &jobs[4];
    assert_eq!(j.job_id, 5);
    assert_eq!(j.average_cpu_s, Some(55.5));
    assert_eq!(j.used_network, Some(0.5));
    assert_eq!(j.used_local_disk, Some(12.0));
    assert_eq!(j.req_network, Some(1.5));
    assert_eq!(j.req_local_disk, Some(20.0));
    assert_eq!(j.project_id, None);
}

#[test]
fn gwf_to_job() {
    let (_, jobs) = gwf_ok(GWF_SMALL);
    // Line 7: 1 processor, run 15 s, request 900 s, no memory, user `U123` → 123, status 1.
    let j = jobs[0].to_job().unwrap();
    assert_eq!(
        (
            j.id,
            j.submit_s,
            j.runtime_s,
            j.procs,
            j.requested_s,
            j.memory_kb,
            j.user,
            j.partial
        ),
        (1, 1136070024.0, 15.0, 1, Some(900.0), None, Some(123), false)
    );
    // Line 8: NProcs -1 → ReqNProcs 4; UsedMemory 2048 wins over ReqMemory 4096; user `17`.
    let j = jobs[1].to_job().unwrap();
    assert_eq!((j.procs, j.memory_kb, j.user), (4, Some(2048.0), Some(17)));
    // Line 9: RunTime -1.
    assert_eq!(jobs[2].to_job(), Err(DropReason::UnknownRuntime));
    // Line 10: NProcs 0 and ReqNProcs -1.
    assert_eq!(jobs[3].to_job(), Err(DropReason::NoProcessors));
    // ... and its user `alice` has no number.
    assert_eq!(jobs[3].user_number(), None);
    // Line 12: status 2 (partial), UsedMemory -1 → ReqMemory 1024, user `U007` → 7.
    let j = jobs[4].to_job().unwrap();
    assert_eq!(
        (j.procs, j.memory_kb, j.user, j.partial),
        (3, Some(1024.0), Some(7), true)
    );
}

#[test]
fn gwf_user_numbers() {
    let (_, jobs) = gwf_ok(GWF_SMALL);
    let mut j = jobs[0].clone();
    for (id, expected) in [
        ("42", Some(42)),
        ("U123", Some(123)),
        ("user_5", Some(5)),
        ("U12x", None),
        ("alice", None),
        ("-3", None),
    ] {
        j.user_id = Some(id.to_string());
        assert_eq!(j.user_number(), expected, "{id}");
    }
    j.user_id = None;
    assert_eq!(j.user_number(), None);
}

#[test]
fn gwf_writer_reads_back_the_crafted_file() {
    let (header, jobs) = gwf_ok(GWF_SMALL);
    let text = gwf::to_text(&header, &jobs);
    let (header2, jobs2) = gwf_ok(&text);
    assert_eq!(header2, header);
    assert_eq!(jobs2, jobs);
    // Line 7 as the writer puts it: single spaces, `-1` for unknown.
    assert_eq!(
        jobs[0].to_line(),
        "1 1136070024 0 15 1 -1 -1 1 900 -1 1 U123 G4 L1 0 -1 fs0 DAS2/fs0 UNITARY -1 -1 -1 -1 -1 -1 -1 -1 -1 -1"
    );
}

#[test]
fn gwf_wrong_field_counts() {
    let line17 = "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 1 1 1 1";
    let e = gwf_err(line17);
    assert_eq!((e.line, e.field.as_deref()), (1, None));
    assert!(e.message.starts_with("17 fields; GWF job lines have 29"), "{e}");
    let line30 = format!("{} extra", gwf_line("1 0 0 10 1"));
    assert!(gwf_err(&line30).message.starts_with("30 fields;"));
}

#[test]
fn gwf_field_errors_name_line_field_and_text() {
    // The second line's RunTime is `1O` (a letter O).
    let text = format!("{}\n{}\n", gwf_line("1 0 0 10 1"), gwf_line("2 5 0 1O 1"));
    let e = gwf_err(&text);
    assert_eq!((e.line, e.field.as_deref()), (2, Some("run_time")));
    assert!(e.message.contains("\"1O\""), "{e}");
    assert_eq!(e.to_string(), "2: field run_time: \"1O\" is not a number");

    let e = gwf_err(&gwf_line("1 -5 0 10 1"));
    assert_eq!((e.line, e.field.as_deref()), (1, Some("submit_time")));
    assert!(e.message.contains("-5 is negative"), "{e}");
    // -1 (unknown) submit time is refused too.
    assert_eq!(gwf_err(&gwf_line("1 -1 0 10 1")).field.as_deref(), Some("submit_time"));

    let e = gwf_err(&gwf_line("-1 0 0 10 1"));
    assert_eq!(e.field.as_deref(), Some("job_id"));
    let e = gwf_err(&gwf_line("1.5 0 0 10 1"));
    assert_eq!(e.field.as_deref(), Some("job_id"));

    // Status 1.5 (field 11).
    let e = gwf_err(&gwf_line("1 0 0 10 1 -1 -1 1 -1 -1 1.5"));
    assert_eq!(e.field.as_deref(), Some("status"));
    // ReqNetwork (field 25) is numeric: `fast` is refused.
    let mut tokens = vec!["-1"; 29];
    tokens[0] = "1";
    tokens[1] = "0";
    tokens[24] = "fast";
    let e = gwf_err(&tokens.join(" "));
    assert_eq!(e.field.as_deref(), Some("req_network"));
    // -2 in a numeric field (WaitTime).
    let e = gwf_err(&gwf_line("1 0 -2 10 1"));
    assert_eq!(e.field.as_deref(), Some("wait_time"));
}

#[test]
fn gwf_unsorted_submit_times_are_refused_naming_both_lines() {
    // Line 2 submits at 50; line 3 is blank; line 4 submits at 40.
    let text = format!(
        "{}\n{}\n\n{}\n",
        gwf_line("1 10 0 1 1"),
        gwf_line("2 50 0 1 1"),
        gwf_line("3 40 0 1 1")
    );
    let results = gwf_all(&text);
    assert!(results[0].is_ok() && results[1].is_ok());
    let e = results[2].as_ref().unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (4, Some("submit_time")));
    assert!(
        e.message.starts_with("40 comes before the previous job's 50 (line 2)"),
        "{e}"
    );
    // Equal submit times are sorted.
    assert!(
        gwf_all(&format!("{}\n{}\n", gwf_line("1 10 0 1 1"), gwf_line("2 10 0 1 1")))
            .iter()
            .all(Result::is_ok)
    );
}

#[test]
fn gwf_garbage_bytes_are_an_error_naming_the_line() {
    let mut bytes = format!("{}\n", gwf_line("1 10 0 1 1")).into_bytes();
    bytes.extend_from_slice(b"\xff\xfe\x00garbage\n");
    let results: Vec<_> = GwfReader::new(&bytes[..]).collect();
    assert_eq!(results.len(), 2);
    let e = results[1].as_ref().unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("UTF-8"), "{e}");
    // A binary blob with no newline: one error, then the reader stops.
    let blob = vec![0u8; traces::input::MAX_LINE_BYTES + 5];
    let results: Vec<_> = GwfReader::new(&blob[..]).collect();
    assert_eq!(results.len(), 1);
    assert!(results[0].is_err());
}

// ---------------------------------------------------------------------------------------------
// FTA reader
// ---------------------------------------------------------------------------------------------

#[test]
fn fta_two_nodes_events() {
    let events = fta_ok(FTA_TWO_NODES);
    // Line 1 is the header, line 7 is blank: 9 events.
    assert_eq!(events.len(), 9);
    // Line 2: `1 1 7 1 host a 1 1000000000 1000000100 NULL`.
    assert_eq!(
        events[0],
        FtaEvent {
            event_id: 1,
            component_id: 1,
            node_id: 7,
            platform_id: 1,
            node_name: "host a".to_string(),
            event_type: EventType::Available,
            start_s: 1000000000.0,
            end_s: Some(1000000100.0),
            end_reason: None,
        }
    );
    // Line 3: type 0, reason 2.
    assert_eq!(
        (events[1].event_type, events[1].end_reason),
        (EventType::Unavailable, Some(2))
    );
    // Line 4: empty reason; line 5: reason `\N`; line 6: empty end and reason (open).
    assert_eq!(events[2].end_reason, None);
    assert_eq!(events[3].end_reason, None);
    assert_eq!(events[3].node_name, "renamed");
    assert_eq!((events[4].end_s, events[4].end_reason), (None, None));
    // Line 10: type 2 → Other(2); line 11: fractional start, reason -1 → missing.
    assert_eq!(events[7].event_type, EventType::Other(2));
    assert_eq!((events[8].start_s, events[8].end_reason), (1000000650.5, None));
}

#[test]
fn fta_space_separated_copy() {
    let events = fta_ok(FTA_SPACES);
    // Line 1 `# event_id component_id ...` (space-separated, `# ` prefix) is the header.
    assert_eq!(events.len(), 2);
    // Line 2: `10 1 4 2 pc-04 0 1234567890.25 1234567990 NULL`.
    assert_eq!(events[0].node_name, "pc-04");
    assert_eq!(events[0].start_s, 1234567890.25);
    assert_eq!(events[0].end_s, Some(1234567990.0));
    // Line 3: runs of spaces, end `\N` → open.
    assert_eq!((events[1].event_id, events[1].end_s), (11, None));
}

#[test]
fn fta_missing_end_markers() {
    for marker in ["", "NULL", "null", "\\N", "-1", "-1.0"] {
        let line = format!("1\t1\t1\t1\tn\t0\t100\t{marker}\t");
        let e = fta::parse_line(1, &line).unwrap();
        assert_eq!((e.end_s, e.end_reason), (None, None), "{marker:?}");
    }
}

#[test]
fn fta_header_variants() {
    let data = "1\t1\t1\t1\tn\t0\t100\t200\t0\n";
    for header in [
        "event_id\tcomponent_id\tnode_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\tevent_end_time\tevent_end_reason",
        "#event_id\tcomponent_id\tnode_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\tevent_end_time\tevent_end_reason",
        "# EVENT_ID\tComponent_Id\tnode_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\tevent_end_time\tevent_end_reason",
    ] {
        assert_eq!(fta_ok(&format!("\n{header}\n{data}")).len(), 1, "{header}");
    }
    // A header naming the columns in another order is refused, at its line (2, after a blank).
    let swapped = "\nevent_id\tnode_id\tcomponent_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\t\
                   event_end_time\tevent_end_reason\n";
    let e = fta_err(&format!("{swapped}{data}"));
    assert_eq!((e.line, e.field.as_deref()), (2, None));
    assert!(e.message.contains("event_id\tnode_id"), "{e}");
    // No header at all is fine.
    assert_eq!(fta_ok(data).len(), 1);
    // A header later in the file (here line 2) is not one: `event_id` is not a number.
    let e = fta_err(&format!(
        "{data}event_id\tcomponent_id\tnode_id\tplatform_id\tnode_name\tevent_type\t\
                              event_start_time\tevent_end_time\tevent_end_reason\n"
    ));
    assert_eq!((e.line, e.field.as_deref()), (2, Some("event_id")));
}

#[test]
fn fta_wrong_column_counts() {
    // 8 tab-separated columns (no end reason column).
    let e = fta_err("1\t1\t1\t1\tn\t0\t100\t200\n");
    assert_eq!((e.line, e.field.as_deref()), (1, None));
    assert!(
        e.message
            .starts_with("8 columns split on single tabs, 8 split on runs of spaces and tabs; an FTA event line has 9"),
        "{e}"
    );
    // 10 columns.
    assert!(fta_err("1\t1\t1\t1\tn\t0\t100\t200\t0\t9\n")
        .message
        .starts_with("10 columns split on single tabs, 10 split on runs"));
    // Space-separated with an empty end: only 8 tokens.
    assert!(fta_err("1 1 1 1 n 0 100 0\n").message.starts_with("8 space-separated"));
    // A node name with a space in a space-separated line: 10 tokens.
    assert!(fta_err("1 1 1 1 host a 0 100 200 0\n")
        .message
        .starts_with("10 space-separated"));
}

#[test]
fn fta_field_errors() {
    let cases = [
        // (line, field named, text in the message)
        ("1\t1\tn7\t1\tn\t0\t100\t200\t0", "node_id", "\"n7\""),
        ("x\t1\t1\t1\tn\t0\t100\t200\t0", "event_id", "\"x\""),
        ("1\t1\t1\t1\tn\t0.5\t100\t200\t0", "event_type", "0.5"),
        (
            "1\t1\t1\t1\tn\t1\tyesterday\t200\t0",
            "event_start_time",
            "\"yesterday\"",
        ),
        ("1\t1\t1\t1\tn\t1\t-5\t200\t0", "event_start_time", "-5 is negative"),
        ("1\t1\t1\t1\tn\t1\t\t200\t0", "event_start_time", "\"\""),
        (
            "1\t1\t1\t1\tn\t1\t100\t99.5\t0",
            "event_end_time",
            "99.5 comes before the event's start 100",
        ),
        ("1\t1\t1\t1\tn\t1\t100\t-7\t0", "event_end_time", "-7 is negative"),
        ("1\t1\t1\t1\tn\t1\t100\tinf\t0", "event_end_time", "\"inf\""),
        ("1\t1\t1\t1\tn\t1\t100\t200\t-2", "event_end_reason", "-2 is negative"),
        ("1\t1\t1\t1\tn\t1\t100\t200\tcrash", "event_end_reason", "\"crash\""),
    ];
    for (line, field, text) in cases {
        let e = fta_err(&format!("\n\n{line}\n"));
        assert_eq!((e.line, e.field.as_deref()), (3, Some(field)), "{line}");
        assert!(e.message.contains(text), "{line}: {e}");
    }
    // An end equal to the start is a zero-length interval, not an error.
    assert!(fta::parse_line(1, "1\t1\t1\t1\tn\t1\t100\t100\t0").is_ok());
}

#[test]
fn fta_garbage_bytes_are_an_error_naming_the_line() {
    let bytes = b"1\t1\t1\t1\tn\t0\t100\t200\t0\n\x80\x81\x82\n";
    let results: Vec<_> = FtaReader::new(&bytes[..]).collect();
    assert_eq!(results.len(), 2);
    let e = results[1].as_ref().unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("UTF-8"), "{e}");
}

#[test]
fn fta_writer_reads_back_the_crafted_file() {
    let events = fta_ok(FTA_TWO_NODES);
    let text: String = events.iter().map(|e| e.to_line() + "\n").collect();
    assert_eq!(fta_ok(&text), events);
    // Line 6 as written back: tabs, `NULL` for the missing end and reason.
    assert_eq!(events[4].to_line(), "5\t1\t7\t1\thost a\t1\t1000000500\tNULL\tNULL");
}

// ---------------------------------------------------------------------------------------------
// FTA → profiles
// ---------------------------------------------------------------------------------------------

fn two_nodes(offset_s: f64, gaps: GapPolicy) -> Availability {
    availability(fta_ok(FTA_TWO_NODES), &AvailabilityOptions { offset_s, gaps }).unwrap()
}

// The file's intervals, relative to the origin 1000000000 (line 2, the earliest start):
//
//   node 7 "host a" (line 2; line 5 calls it "renamed": the first name is kept)
//     line 2  on   [0, 100)
//     line 3  off  [100, 150)
//     (gap 150..200)
//     line 4  on   [200, 400)   taken over at 300 by line 5, and does not resume
//     line 5  off  [300, 350)   then the gap state from 350
//     line 6  on   [500, open)
//   node 3 "hostB" (its lines 8 and 9 are out of order; sorted by start)
//     line 9  off  [50, 60)
//     line 8  on   [60, 600)
//     line 11 on   [650.5, 700)
//     line 10 type 2 [700, 800): ignored, but it ends the trace at 800.
//
// The trace ends at 800 (line 10's end; line 6's open interval does not extend it).

#[test]
fn fta_profiles_gaps_off() {
    let a = two_nodes(0.0, GapPolicy::Off);
    assert_eq!(a.origin_s, 1000000000.0);
    assert_eq!(a.span_s, 800.0);
    // Ascending node ids: 3 before 7, although 7 comes first in the file.
    assert_eq!(a.nodes.iter().map(|n| n.node_id).collect::<Vec<_>>(), vec![3, 7]);
    let (n3, n7) = (&a.nodes[0], &a.nodes[1]);
    assert_eq!(n3.node_name, "hostB");
    assert_eq!(n7.node_name, "host a");
    // Node 3: gap (off) before 50; off [50,60) merges with it; on at 60; gap (off) at 600;
    // on at 650.5; gap (off) at 700.
    assert_eq!(
        n3.profile.events(),
        &[(0.0, 0.0), (60.0, 1.0), (600.0, 0.0), (650.5, 1.0), (700.0, 0.0)]
    );
    assert_eq!(n3.profile.period(), None);
    // On 60..600 (540 s) and 650.5..700 (49.5 s) of 800 s.
    assert!((n3.available_fraction - 589.5 / 800.0).abs() < 1e-12);
    // Node 7: on at 0; off at 100; gap (off) at 150 merges; on at 200; line 5 takes over at 300
    // (off); gap (off) at 350 merges; on at 500, open.
    assert_eq!(
        n7.profile.events(),
        &[(0.0, 1.0), (100.0, 0.0), (200.0, 1.0), (300.0, 0.0), (500.0, 1.0)]
    );
    // On 0..100, 200..300 and 500..800: 500 s of 800.
    assert!((n7.available_fraction - 500.0 / 800.0).abs() < 1e-12);
}

#[test]
fn fta_profiles_gaps_on() {
    let a = two_nodes(0.0, GapPolicy::On);
    let (n3, n7) = (&a.nodes[0], &a.nodes[1]);
    // Node 3: gap (on) before 50; off [50,60); on from 60, and the gaps at 600 and 700 are on.
    assert_eq!(n3.profile.events(), &[(0.0, 1.0), (50.0, 0.0), (60.0, 1.0)]);
    assert!((n3.available_fraction - 790.0 / 800.0).abs() < 1e-12);
    // Node 7: on; off [100,150); gap (on) from 150; on [200,300); off [300,350); gap (on) from
    // 350; on from 500.
    assert_eq!(
        n7.profile.events(),
        &[(0.0, 1.0), (100.0, 0.0), (150.0, 1.0), (300.0, 0.0), (350.0, 1.0)]
    );
    assert!((n7.available_fraction - 700.0 / 800.0).abs() < 1e-12);
}

#[test]
fn fta_profiles_with_an_offset() {
    // Simulation time t is trace time 1000000000 + 120 + t: every date above moves 120 earlier.
    let a = two_nodes(120.0, GapPolicy::Off);
    assert_eq!(a.span_s, 680.0);
    let (n3, n7) = (&a.nodes[0], &a.nodes[1]);
    // Node 3: on since 60 - 120 = -60, so on at 0; gap at 480; on at 530.5; gap at 580.
    assert_eq!(
        n3.profile.events(),
        &[(0.0, 1.0), (480.0, 0.0), (530.5, 1.0), (580.0, 0.0)]
    );
    assert!((n3.available_fraction - (480.0 + 49.5) / 680.0).abs() < 1e-12);
    // Node 7: off since 100 - 120 = -20 (the gap at 30 merges), on at 80, off at 180 (the gap
    // at 230 merges), on at 380.
    assert_eq!(
        n7.profile.events(),
        &[(0.0, 0.0), (80.0, 1.0), (180.0, 0.0), (380.0, 1.0)]
    );
    assert!((n7.available_fraction - 400.0 / 680.0).abs() < 1e-12);
    // At the very end: one event per node holding the last state; span 0 → fraction = state.
    let a = two_nodes(800.0, GapPolicy::Off);
    assert_eq!(a.span_s, 0.0);
    assert_eq!(a.nodes[0].profile.events(), &[(0.0, 0.0)]);
    // Node 7: line 6 is still open.
    assert_eq!(a.nodes[1].profile.events(), &[(0.0, 1.0)]);
    assert_eq!(
        (a.nodes[0].available_fraction, a.nodes[1].available_fraction),
        (0.0, 1.0)
    );
}

#[test]
fn fta_availability_errors() {
    let e = availability(Vec::new(), &AvailabilityOptions::default()).unwrap_err();
    assert_eq!(e.line, 0);
    assert!(e.message.contains("no event"), "{e}");
    let events = fta_ok(FTA_TWO_NODES);
    for offset_s in [-1.0, f64::NAN, f64::INFINITY] {
        let options = AvailabilityOptions {
            offset_s,
            gaps: GapPolicy::Off,
        };
        assert!(availability(events.clone(), &options).is_err(), "{offset_s}");
    }
    // Past the end (800 s after the origin).
    let options = AvailabilityOptions {
        offset_s: 800.5,
        gaps: GapPolicy::Off,
    };
    assert!(availability(events.clone(), &options)
        .unwrap_err()
        .message
        .contains("past the trace's end"));
    // Events built by a program, not read: a NaN start or an end before the start is refused.
    let mut bad = events.clone();
    bad[3].start_s = f64::NAN;
    let e = availability(bad, &AvailabilityOptions::default()).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("event_start_time"));
    let mut bad = events;
    bad[3].end_s = Some(1.0);
    let e = availability(bad, &AvailabilityOptions::default()).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("event_end_time"));
}

#[test]
fn fta_default_options_are_offset_zero_gaps_off() {
    assert_eq!(
        AvailabilityOptions::default(),
        AvailabilityOptions {
            offset_s: 0.0,
            gaps: GapPolicy::Off
        }
    );
    assert_eq!(GapPolicy::default(), GapPolicy::Off);
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/// A finite non-negative number, often whole, sometimes fractional or large.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        (0u32..100_000).prop_map(f64::from),
        (0.0f64..1.0e6),
        (0.0f64..1.0e12),
        Just(0.0),
        Just(1.0e-7),
        Just(1.0e300),
    ]
}

fn opt_number() -> impl Strategy<Value = Option<f64>> {
    proptest::option::of(number())
}

/// A token: no whitespace, not empty, not `-1`.
fn token() -> impl Strategy<Value = Option<String>> {
    proptest::option::of("[A-Za-z0-9_./=,:#é-]{1,12}".prop_filter("-1 means unknown", |s| s != "-1"))
}

prop_compose! {
    fn gwf_numbers()(
        job_id in 0i64..1_000_000_000_000,
        submit_s in number(),
        a in proptest::collection::vec(opt_number(), 12),
        status in proptest::option::of(0i64..10),
    ) -> (i64, f64, Vec<Option<f64>>, Option<i64>) {
        (job_id, submit_s, a, status)
    }
}

prop_compose! {
    fn gwf_job()(
        (job_id, submit_s, n, status) in gwf_numbers(),
        t in proptest::collection::vec(token(), 14),
    ) -> GwfJob {
        GwfJob {
            job_id,
            submit_s,
            wait_s: n[0],
            run_s: n[1],
            nprocs: n[2],
            average_cpu_s: n[3],
            used_memory_kb: n[4],
            req_nprocs: n[5],
            req_time_s: n[6],
            req_memory_kb: n[7],
            status,
            user_id: t[0].clone(),
            group_id: t[1].clone(),
            executable_id: t[2].clone(),
            queue_id: t[3].clone(),
            partition_id: t[4].clone(),
            orig_site_id: t[5].clone(),
            last_run_site_id: t[6].clone(),
            job_structure: t[7].clone(),
            job_structure_params: t[8].clone(),
            used_network: n[8],
            used_local_disk: n[9],
            used_resources: t[9].clone(),
            req_platform: t[10].clone(),
            req_network: n[10],
            req_local_disk: n[11],
            req_resources: t[11].clone(),
            vo_id: t[12].clone(),
            project_id: t[13].clone(),
        }
    }
}

fn event_type() -> impl Strategy<Value = EventType> {
    prop_oneof![
        Just(EventType::Unavailable),
        Just(EventType::Available),
        (-5i64..100).prop_map(EventType::from_code),
    ]
}

prop_compose! {
    fn fta_event()(
        ids in proptest::collection::vec(-1000i64..1_000_000_000, 4),
        node_name in "([A-Za-z0-9_.#é-]([A-Za-z0-9 _.#é-]{0,10}[A-Za-z0-9_.#é-])?)?",
        event_type in event_type(),
        start_s in number(),
        length in opt_number(),
        end_reason in proptest::option::of(0i64..50),
    ) -> FtaEvent {
        FtaEvent {
            event_id: ids[0],
            component_id: ids[1],
            node_id: ids[2],
            platform_id: ids[3],
            node_name,
            event_type,
            start_s,
            // start + length may round; it stays >= start.
            end_s: length.map(|l| start_s + l),
            end_reason,
        }
    }
}

/// The state of `node` at simulation time `t`, straight from the documented rules: the interval
/// that started last at or before the instant (ties: the later in input order) is in force until
/// its end; otherwise the gap state.
fn oracle_state(events: &[FtaEvent], node: i64, origin: f64, options: &AvailabilityOptions, t: f64) -> f64 {
    let x = origin + options.offset_s + t;
    let gap = if options.gaps == GapPolicy::On { 1.0 } else { 0.0 };
    let mut current: Option<&FtaEvent> = None;
    let intervals = events
        .iter()
        .filter(|e| e.node_id == node && matches!(e.event_type, EventType::Available | EventType::Unavailable));
    for e in intervals {
        let later = match current {
            Some(c) => e.start_s >= c.start_s,
            None => true,
        };
        if e.start_s <= x && later {
            current = Some(e);
        }
    }
    match current {
        Some(e) if e.end_s.map_or(true, |end| x < end) => {
            if e.event_type == EventType::Available {
                1.0
            } else {
                0.0
            }
        }
        _ => gap,
    }
}

fn profile_state(events: &[(f64, f64)], t: f64) -> f64 {
    events.iter().rev().find(|e| e.0 <= t).map_or(f64::NAN, |e| e.1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn gwf_written_jobs_read_back_identical(job in gwf_job()) {
        let line = job.to_line();
        prop_assert_eq!(line.split(' ').count(), 29);
        prop_assert_eq!(gwf::parse_line(1, &line).unwrap(), job);
    }

    #[test]
    fn gwf_written_traces_read_back_identical(mut jobs in proptest::collection::vec(gwf_job(), 0..8)) {
        jobs.sort_by(|a, b| a.submit_s.total_cmp(&b.submit_s));
        let header = GwfHeader {
            entries: vec![
                (String::new(), "JobID SubmitTime".to_string()),
                ("Version".to_string(), "1.0".to_string()),
                ("Note".to_string(), "two\nlines".to_string()),
            ],
        };
        let text = gwf::to_text(&header, &jobs);
        let (header2, jobs2) = gwf_ok(&text);
        prop_assert_eq!(header2, header);
        prop_assert_eq!(jobs2, jobs);
    }

    #[test]
    fn fta_written_events_read_back_identical(events in proptest::collection::vec(fta_event(), 1..8)) {
        let text: String = events.iter().map(|e| e.to_line() + "\n").collect();
        prop_assert_eq!(fta_ok(&text), events.clone());
        let with_header = format!("{}\n{text}", fta::FIELDS.join("\t"));
        prop_assert_eq!(fta_ok(&with_header), events);
    }

    #[test]
    fn fta_profiles_follow_the_documented_rules(
        raw in proptest::collection::vec(
            (0i64..4, 0i64..3, 0u32..500, proptest::option::of(0u32..200)),
            1..25,
        ),
        offset in 0u32..300,
        gaps_on in any::<bool>(),
    ) {
        // Whole seconds from an epoch-like origin: every date is exact, so the profile can be
        // compared with the oracle at every instant.
        let events: Vec<FtaEvent> = raw
            .iter()
            .enumerate()
            .map(|(i, &(node, kind, start, length))| FtaEvent {
                event_id: i as i64,
                component_id: 1,
                node_id: node,
                platform_id: 1,
                node_name: format!("n{node}-{i}"),
                event_type: EventType::from_code(kind),
                start_s: 1.0e9 + f64::from(start),
                end_s: length.map(|l| 1.0e9 + f64::from(start + l)),
                end_reason: None,
            })
            .collect();
        let gaps = if gaps_on { GapPolicy::On } else { GapPolicy::Off };
        let options = AvailabilityOptions { offset_s: f64::from(offset), gaps };
        let result = availability(events.clone(), &options);
        let origin = events.iter().map(|e| e.start_s).fold(f64::INFINITY, f64::min);
        let last = events.iter().map(|e| e.end_s.unwrap_or(e.start_s)).fold(f64::NEG_INFINITY, f64::max);
        if last - origin < options.offset_s {
            prop_assert!(result.is_err());
            return Ok(());
        }
        let a = result.unwrap();
        prop_assert_eq!(a.origin_s, origin);
        prop_assert_eq!(a.span_s, last - origin - options.offset_s);
        let mut ids: Vec<i64> = events.iter().map(|e| e.node_id).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(a.nodes.iter().map(|n| n.node_id).collect::<Vec<_>>(), ids);
        for n in &a.nodes {
            let first = events.iter().find(|e| e.node_id == n.node_id).unwrap();
            prop_assert_eq!(&n.node_name, &first.node_name);
            let p = n.profile.events();
            prop_assert_eq!(p[0].0, 0.0);
            prop_assert!(p.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1));
            prop_assert!(p.iter().all(|e| e.1 == 0.0 || e.1 == 1.0));
            // Dates are whole seconds: the state is constant on each [k, k + 1).
            let span = a.span_s as u32;
            let mut on = 0u32;
            for k in 0..span + 5 {
                let expected = oracle_state(&events, n.node_id, origin, &options, f64::from(k));
                prop_assert_eq!(profile_state(p, f64::from(k)), expected, "node {} t {}", n.node_id, k);
                prop_assert_eq!(profile_state(p, f64::from(k) + 0.5), expected);
                if k < span && expected == 1.0 {
                    on += 1;
                }
            }
            let fraction = if span == 0 {
                oracle_state(&events, n.node_id, origin, &options, 0.0)
            } else {
                f64::from(on) / f64::from(span)
            };
            prop_assert!((n.available_fraction - fraction).abs() < 1e-12);
        }
    }

    #[test]
    fn random_bytes_never_panic_the_readers(
        bytes in proptest::collection::vec(
            prop_oneof![
                4 => proptest::sample::select(b"0123456789 \t\n-.#eNULn".to_vec()),
                1 => any::<u8>(),
            ],
            0..2000,
        ),
        gzip_magic in any::<bool>(),
    ) {
        let mut input = if gzip_magic { vec![0x1f, 0x8b] } else { Vec::new() };
        input.extend_from_slice(&bytes);
        if let Ok((_, r)) = decompress(&input[..]) {
            let mut reader = GwfReader::new(r);
            let count = reader.by_ref().count();
            prop_assert!(count <= input.len() + 1);
            let _ = reader.header().to_text('#');
        };
        if let Ok((_, r)) = decompress(&input[..]) {
            let events: Vec<FtaEvent> = FtaReader::new(r).filter_map(Result::ok).collect();
            for gaps in [GapPolicy::Off, GapPolicy::On] {
                let _ = availability(events.clone(), &AvailabilityOptions { offset_s: 0.0, gaps });
            }
        };
    }
}
