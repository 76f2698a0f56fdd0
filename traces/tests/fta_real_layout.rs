//! The FTA reader on a real archive file's layout: `traces/data/lanl-fta-first-200.tab` is the
//! header and the first 200 events of the LANL `event_trace.tab` as it circulates (see
//! `traces/data/SOURCES.txt`), padding, tabs and empty padding columns kept byte for byte.
//! Every expected value is read off the file by hand or computed by the `awk` line quoted beside
//! it (awk splits on runs of spaces and tabs, as the reader does for this layout).

use std::path::PathBuf;

use traces::fta::{self, availability, AvailabilityOptions, EventType, FtaEvent, FtaReader, GapPolicy};
use traces::info::{summarize, TraceInfo};
use traces::TraceFormat;

const FILE: &str = "lanl-fta-first-200.tab";

fn text() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data").join(FILE);
    std::fs::read_to_string(path).unwrap()
}

fn events() -> Vec<FtaEvent> {
    FtaReader::new(text().as_bytes()).map(|e| e.unwrap()).collect()
}

#[test]
fn every_event_is_read_and_the_first_ones_field_by_field() {
    let events = events();
    // `awk 'NR>1' lanl-fta-first-200.tab | wc -l` → 200.
    assert_eq!(events.len(), 200);
    // Line 2: `    0\t       0\t     655\t    3\t       10.000\t         0\t   \t\t1099755300\t   \t\t1099906200\t       \t8000`.
    assert_eq!(
        events[0],
        FtaEvent {
            event_id: 0,
            component_id: 0,
            node_id: 655,
            platform_id: 3,
            node_name: "10.000".to_string(),
            event_type: EventType::Unavailable,
            start_s: 1099755300.0,
            end_s: Some(1099906200.0),
            end_reason: Some(8000),
        }
    );
    // Line 5: reason `   2` after a padding tab.
    assert_eq!(
        (events[3].event_type, events[3].end_reason),
        (EventType::Available, Some(2))
    );
    // Line 10: reason `           0`, spaces only after the last tab.
    assert_eq!((events[8].node_id, events[8].end_reason), (656, Some(0)));
    // Line 40: the second layout (`    0\t    0\t  711\t    3\t              10.112\t ...`).
    assert_eq!(
        (events[38].node_id, events[38].node_name.as_str(), events[38].start_s),
        (711, "10.112", 1105134180.0)
    );
}

#[test]
fn node_names_stay_text_and_shared_names_stay_two_nodes() {
    let events = events();
    // Lines 7-15 are node 656 and line 16 node 701, both named `10.100`.
    let named: Vec<i64> = events
        .iter()
        .filter(|e| e.node_name == "10.100")
        .map(|e| e.node_id)
        .collect();
    assert_eq!(named.iter().filter(|&&n| n == 656).count(), 9);
    assert_eq!(named.iter().filter(|&&n| n == 701).count(), 1);
    let a = availability(events, &AvailabilityOptions::default()).unwrap();
    // `awk 'NR>1{print $3}' lanl-fta-first-200.tab | sort -u | wc -l` → 84 nodes,
    // `awk 'NR>1{print $5}' lanl-fta-first-200.tab | sort -u | wc -l` → 80 names.
    assert_eq!(a.nodes.len(), 84);
    let mut names: Vec<&str> = a.nodes.iter().map(|n| n.node_name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 80);
    assert!(a.nodes.iter().any(|n| n.node_id == 655 && n.node_name == "10.000"));
    // Origin: `awk 'NR>1{print $7}' lanl-fta-first-200.tab | sort -n | head -1` → 1067860800.
    assert_eq!(a.origin_s, 1067860800.0);
    // End: `awk 'NR>1{print $8}' lanl-fta-first-200.tab | sort -n | tail -1` → 1125482580.
    assert_eq!(a.span_s, 1125482580.0 - 1067860800.0);
}

#[test]
fn the_summary_counts_match_awk() {
    let info = match summarize(TraceFormat::Fta, text().as_bytes()).unwrap() {
        TraceInfo::Availability(a) => a,
        TraceInfo::Jobs(_) => panic!("an FTA trace summarises as availability"),
    };
    assert_eq!((info.events, info.nodes), (200, 84));
    // `awk 'NR>1 && $6==1' lanl-fta-first-200.tab | wc -l` → 58;
    // `awk 'NR>1 && $6==0' lanl-fta-first-200.tab | wc -l` → 142.
    assert_eq!(
        (info.available_events, info.unavailable_events, info.other_events),
        (58, 142, 0)
    );
    assert_eq!(info.open_events, 0);
    assert_eq!((info.first_event_s, info.last_event_s), (1067860800.0, 1125482580.0));
    // Summed unavailable time: `awk 'NR>1 && $6==0 {s+=$8-$7} END{print s}'` → 7467960.
    let q = info.unavailable_interval_s.unwrap();
    assert!((q.mean * 142.0 - 7467960.0).abs() < 1e-6, "{}", q.mean);
}

#[test]
fn the_format_is_recognised_from_the_header_or_a_headerless_line() {
    let text = text();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let first = lines.next().unwrap();
    assert_eq!(TraceFormat::detect("trace.txt", header), Some(TraceFormat::Fta));
    // Without the header: a line of 9 fields split on runs of white space.
    assert_eq!(TraceFormat::detect("trace.txt", first.trim()), Some(TraceFormat::Fta));
}

/// Line 2 of the file with one column replaced.
fn line_with(column: usize, value: &str) -> String {
    let text = text();
    let line = text.lines().nth(1).unwrap();
    let mut parts: Vec<String> = line.split('\t').map(str::to_string).collect();
    // The layout's columns, as tab-separated pieces: padding pieces are blank.
    let mut seen = 0;
    for part in parts.iter_mut() {
        if part.trim().is_empty() {
            continue;
        }
        if seen == column {
            *part = format!("   {value}");
        }
        seen += 1;
    }
    parts.join("\t")
}

#[test]
fn malformed_lines_in_this_layout_name_line_and_field() {
    let text = text();
    let header = text.lines().next().unwrap();
    let err = |bad: &str| {
        let file = format!("{header}\n{bad}\n");
        FtaReader::new(file.as_bytes()).next().unwrap().unwrap_err()
    };
    // A missing field: the end reason dropped leaves 8 fields.
    let mut missing = line_with(8, "");
    missing.truncate(missing.trim_end().len());
    let e = err(&missing);
    assert_eq!((e.line, e.field.as_deref()), (2, None));
    assert!(
        e.message
            .contains("8 split on runs of spaces and tabs; an FTA event line has 9"),
        "{e}"
    );
    // A start after its end.
    let e = err(&line_with(6, "1099906201"));
    assert_eq!((e.line, e.field.as_deref()), (2, Some("event_end_time")));
    assert!(
        e.message
            .contains("1099906200 comes before the event's start 1099906201"),
        "{e}"
    );
    // Text in a time.
    let e = err(&line_with(7, "soon"));
    assert_eq!((e.line, e.field.as_deref()), (2, Some("event_end_time")));
    assert!(e.message.contains("\"soon\""), "{e}");
    let e = err(&line_with(6, "2004-11-06"));
    assert_eq!((e.line, e.field.as_deref()), (2, Some("event_start_time")));
}

#[test]
fn header_variants_are_accepted_and_other_columns_refused() {
    let data =
        "    0\t    0\t  711\t    3\t              10.112\t         0\t   1105134180\t   1105134240\t       8000\n";
    for header in [
        "event_id  component_id node_id  platform_id   node_name     event_type   event_start_time     event_stop_time  event_end_reason",
        "event_id\tcomponent_id\tnode_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\tevent_end_time\tevent_end_reason",
        "# event_id component_id node_id platform_id node_name event_type event_start_time event_stop_time event_end_reason",
    ] {
        let file = format!("{header}\n{data}");
        let read: Vec<_> = FtaReader::new(file.as_bytes()).collect();
        assert_eq!(read.len(), 1, "{header}");
        assert!(read[0].is_ok(), "{header}: {:?}", read[0]);
    }
    // `event_stop_time` stands for the end column only: in the start's place it is refused.
    let swapped = "event_id component_id node_id platform_id node_name event_type event_stop_time event_start_time event_end_reason";
    let file = format!("{swapped}\n{data}");
    let e = FtaReader::new(file.as_bytes()).next().unwrap().unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (1, None));
    assert!(
        e.message.contains("event_stop_time may stand for event_end_time"),
        "{e}"
    );
}

#[test]
fn a_line_of_nine_tab_columns_keeps_the_tab_reading() {
    // Nine single-tab columns: the name may hold a space and an empty column is missing.
    let e = fta::parse_line(1, "1\t1\t1\t1\thost a\t0\t100\t\t").unwrap();
    assert_eq!((e.node_name.as_str(), e.end_s, e.end_reason), ("host a", None, None));
    // Padding around tabs that still gives nine tab columns reads the same way.
    let e = fta::parse_line(1, "  1\t 1\t 1\t 1\t 10.000\t 1\t 100\t 200\t 0").unwrap();
    assert_eq!((e.node_name.as_str(), e.end_s), ("10.000", Some(200.0)));
}

#[test]
fn availability_profiles_with_gaps_on_follow_the_failures() {
    let options = AvailabilityOptions {
        offset_s: 0.0,
        gaps: GapPolicy::On,
    };
    let a = availability(events(), &options).unwrap();
    // Node 701 (line 16) has one unavailability, 1073321160 to 1073580480: with gaps on it is
    // off for those 259,320 s of the 57,621,780 s span and on otherwise.
    let n701 = a.nodes.iter().find(|n| n.node_id == 701).unwrap();
    let expected = 1.0 - 259320.0 / 57621780.0;
    assert!(
        (n701.available_fraction - expected).abs() < 1e-12,
        "{}",
        n701.available_fraction
    );
}
