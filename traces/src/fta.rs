//! The Failure Trace Archive's `event_trace.tab`, and the per-node state profiles it implies.
//!
//! Source: D. Kondo, B. Javadi, A. Iosup and D. Epema, "The Failure Trace Archive: Enabling
//! Comparative Analysis of Failures in Diverse Distributed Systems", CCGrid 2010, and the
//! archive's format description (fta wiki, page `FTAFormat`). The archive stores each platform
//! as tables (platform, node, component, event_trace, ...); the event trace, exported as
//! tab-separated text, has one availability interval of one component per line, in the columns:
//!
//! | column | meaning | read as |
//! |---|---|---|
//! | `event_id` | the event | whole number |
//! | `component_id` | the component (e.g. the host's availability) | whole number |
//! | `node_id` | the node | whole number |
//! | `platform_id` | the platform | whole number |
//! | `node_name` | the node's name | text |
//! | `event_type` | 0 unavailability, 1 availability, other codes trace-defined | whole number |
//! | `event_start_time` | UNIX epoch seconds | number >= 0 |
//! | `event_end_time` | UNIX epoch seconds; missing while still open at the trace's end | number >= start, or missing |
//! | `event_end_reason` | code, trace-defined | whole number >= 0, or missing |
//!
//! # Readings taken (the reader)
//!
//! - **Separators.** A line that splits on single tabs into exactly nine columns is read that
//!   way: a node name may then hold spaces, and an empty column is a missing value. Any other
//!   line is split on runs of spaces and tabs, the layout in which the archive's files circulate
//!   (the LANL `event_trace.tab`, for one, pads its columns with spaces around the tabs and
//!   leaves empty tab-separated columns that are padding, not values); such a line must then
//!   give nine fields, its node name cannot hold a space, and a missing value is written as a
//!   marker such as `NULL`. A line that gives nine fields neither way is refused with both
//!   counts, since which column is missing cannot be told. Each column is trimmed of
//!   surrounding ASCII white space, the node name included.
//! - **The header.** An optional first line whose first column is `event_id` (possibly written
//!   `#event_id` or `# event_id`) is skipped. Its column names must be the nine above, in that
//!   order (case-insensitively), except that the end column may be named `event_stop_time`,
//!   the name the circulating LANL copy uses: a header naming another order or other columns is
//!   refused rather than misread. Any other line starting with `#` is an error (the format has
//!   no comments). Blank lines are skipped.
//! - **Node names** are text, kept as written: `10.000` stays `10.000` (the LANL trace names
//!   nodes so), and two node ids may share one name (they stay two nodes).
//! - **Missing values.** `event_end_time` and `event_end_reason` may be empty, `NULL`, `\N`
//!   (a MySQL export's null) or `-1`: all mean missing. A missing end time is an interval still
//!   open when the trace ends. The writer writes `NULL`.
//! - **Numbers.** Times may be fractional; identifiers, types and reasons must be whole.
//!   Identifiers are only keys, so any sign is accepted; times must be non-negative (epoch
//!   seconds) and an end must not come before its start (a zero-length interval is accepted).
//!   Event types other than 0 and 1 are kept as [`EventType::Other`].
//! - **Order.** The format does not sort events, so neither does the reader require it.
//!
//! # Readings taken (availability profiles)
//!
//! [`availability`] turns the events into one state profile per node (value 1 on, 0 off):
//!
//! - **Time.** Simulation time t is trace time `origin + offset_s + t`, where origin is the
//!   earliest `event_start_time` of the whole trace (all nodes, all event types): every node
//!   shares one clock, and `offset_s` (>= 0) starts the simulation that far into the trace.
//!   The trace ends at its latest start or end time (open intervals do not extend it), and
//!   `span_s` is the simulated part, from t = 0 to that end.
//! - **Components.** Events are grouped by `node_id` only: a node with several components gets
//!   one timeline from all of them. Nodes come out in ascending `node_id`; a node id seen with
//!   two names keeps the first one read.
//! - **Event types.** An availability interval (1) means on, an unavailability interval (0)
//!   off; other codes carry no availability meaning and are ignored (their times still count
//!   for origin and end, and a node with only such events still gets a profile).
//! - **Gaps.** Between a node's recorded intervals (no monitoring data), and before its first
//!   one, the node is in the state [`GapPolicy`] names: by default off, since a node not seen
//!   is not known to be available.
//! - **Overlaps.** A node's intervals are taken in start order (ties in input order). An
//!   interval that starts while another is in force takes over from its start, and the earlier
//!   one is over: it does not resume when the later one ends (after which the gap state
//!   applies, unless another interval starts at that instant). So on `[0,100)` available and
//!   `[10,20)` unavailable, the node is on, off from 10, then in the gap state from 20.
//! - **Open intervals** (no end time) last until the trace's end and, the profile having no
//!   end, beyond it.
//! - **The profile** starts with an event at date 0 holding the state in force at t = 0
//!   (everything before collapses into it), has no two consecutive events with the same value,
//!   and does not repeat (no period).
//! - **Available fraction** is the time on over `[0, span_s]` divided by `span_s`; when
//!   `span_s` is 0 it is the state at t = 0 (1 or 0).

use std::collections::BTreeMap;
use std::io::BufRead;

use sim_core::profile::Profile;

use crate::error::TraceError;
use crate::field::number;
use crate::input::Lines;

/// The nine column names, in file order, as error messages name them.
pub const FIELDS: [&str; 9] = [
    "event_id",
    "component_id",
    "node_id",
    "platform_id",
    "node_name",
    "event_type",
    "event_start_time",
    "event_end_time",
    "event_end_reason",
];

/// What an event's interval means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    /// Code 0: the component is unavailable during the interval.
    Unavailable,
    /// Code 1: the component is available during the interval.
    Available,
    /// Any other code (trace-defined). Never 0 or 1: [`EventType::from_code`] maps those.
    Other(i64),
}

impl EventType {
    /// The type a code stands for.
    pub fn from_code(code: i64) -> EventType {
        match code {
            0 => EventType::Unavailable,
            1 => EventType::Available,
            other => EventType::Other(other),
        }
    }

    /// The code written in the trace.
    pub fn code(self) -> i64 {
        match self {
            EventType::Unavailable => 0,
            EventType::Available => 1,
            EventType::Other(code) => code,
        }
    }
}

/// One line of `event_trace.tab`: an interval of one component of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct FtaEvent {
    /// `event_id`.
    pub event_id: i64,
    /// `component_id`.
    pub component_id: i64,
    /// `node_id`: events are grouped into hosts by it.
    pub node_id: i64,
    /// `platform_id`.
    pub platform_id: i64,
    /// `node_name`, trimmed (may be empty).
    pub node_name: String,
    /// `event_type`.
    pub event_type: EventType,
    /// `event_start_time`, UNIX epoch seconds.
    pub start_s: f64,
    /// `event_end_time`, UNIX epoch seconds; `None` while still open at the trace's end.
    pub end_s: Option<f64>,
    /// `event_end_reason` code, when given.
    pub end_reason: Option<i64>,
}

/// What the writer writes for a missing value.
const MISSING: &str = "NULL";

impl FtaEvent {
    /// The event as one tab-separated line, `NULL` for a missing end time or reason, numbers in
    /// shortest round-trip form: reading it back gives an identical record, provided the record
    /// is one the reader could return (times finite, non-negative and in order, reason
    /// non-negative, node name without tab, line break or surrounding white space, an `Other`
    /// type's code neither 0 nor 1).
    pub fn to_line(&self) -> String {
        [
            self.event_id.to_string(),
            self.component_id.to_string(),
            self.node_id.to_string(),
            self.platform_id.to_string(),
            self.node_name.clone(),
            self.event_type.code().to_string(),
            format!("{}", self.start_s),
            self.end_s.map_or_else(|| MISSING.to_string(), |e| format!("{e}")),
            self.end_reason.map_or_else(|| MISSING.to_string(), |r| r.to_string()),
        ]
        .join("\t")
    }
}

/// Streams the events of an `event_trace.tab`; see the module docs.
pub struct FtaReader<R> {
    lines: Lines<R>,
    seen_first: bool,
}

impl<R: BufRead> FtaReader<R> {
    /// Reads event trace text (already decompressed, see [`crate::input::decompress`]).
    pub fn new(input: R) -> FtaReader<R> {
        FtaReader {
            lines: Lines::new(input),
            seen_first: false,
        }
    }
}

impl<R: BufRead> Iterator for FtaReader<R> {
    type Item = Result<FtaEvent, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (n, text) = match self.lines.next_line()? {
                Ok(line) => line,
                Err(e) => return Some(Err(e)),
            };
            if text.trim_ascii().is_empty() {
                continue;
            }
            if !self.seen_first {
                self.seen_first = true;
                if is_header(text) {
                    if let Err(e) = check_header(n, text) {
                        return Some(Err(e));
                    }
                    continue;
                }
            }
            return Some(parse_line(n, text));
        }
    }
}

/// Splits a line into its columns (see the module docs): at most 10 are kept, `count` is how
/// many there are.
fn columns(text: &str) -> ([&str; 10], usize) {
    if text.contains('\t') {
        let by_tab = first_columns(text.split('\t'));
        if by_tab.1 == FIELDS.len() {
            return by_tab;
        }
    }
    first_columns(text.split_ascii_whitespace())
}

/// The alternative names a header may give a column, besides [`FIELDS`]' own.
fn header_name_matches(field: &str, written: &str) -> bool {
    written.eq_ignore_ascii_case(field)
        || (field == "event_end_time" && written.eq_ignore_ascii_case("event_stop_time"))
}

fn first_columns<'a>(parts: impl Iterator<Item = &'a str>) -> ([&'a str; 10], usize) {
    let mut out = [""; 10];
    let mut count = 0;
    for part in parts {
        if let Some(slot) = out.get_mut(count) {
            *slot = part.trim_ascii();
        }
        count += 1;
    }
    (out, count)
}

fn is_header(text: &str) -> bool {
    let (cols, _) = columns(text);
    cols[0].trim_start_matches('#').trim_ascii().eq_ignore_ascii_case(FIELDS[0])
        // `# event_id ...` written with a space after `#` splits into `#` and `event_id`.
        || (cols[0] == "#" && cols[1].eq_ignore_ascii_case(FIELDS[0]))
}

fn check_header(n: u64, text: &str) -> Result<(), TraceError> {
    let without_hash = text.trim_ascii_start().trim_start_matches('#').trim_ascii_start();
    let (cols, count) = columns(without_hash);
    let matches = count == FIELDS.len() && FIELDS.iter().zip(cols).all(|(f, c)| header_name_matches(f, c));
    if matches {
        Ok(())
    } else {
        let found: String = without_hash.chars().take(200).collect();
        Err(TraceError::line(
            n,
            format!(
                "the header names the columns \"{}\"; this reader reads exactly {} in this order \
                 (event_stop_time may stand for event_end_time)",
                found.trim_ascii(),
                FIELDS.join(", ")
            ),
        ))
    }
}

fn shorten(text: &str) -> String {
    text.chars().take(60).collect()
}

/// A whole number (identifier or code).
fn whole(n: u64, i: usize, token: &str) -> Result<i64, TraceError> {
    let v = number(n, FIELDS[i], token)?;
    if v.fract() != 0.0 || v.abs() >= 9.0e15 {
        return Err(TraceError::field(
            n,
            FIELDS[i],
            format!("{token} is not a whole number"),
        ));
    }
    Ok(v as i64)
}

fn is_missing(token: &str) -> bool {
    token.is_empty() || token.eq_ignore_ascii_case("null") || token == "\\N" || token.parse::<f64>() == Ok(-1.0)
}

/// A time: epoch seconds, not negative.
fn time(n: u64, i: usize, token: &str) -> Result<f64, TraceError> {
    let v = number(n, FIELDS[i], token)?;
    if v < 0.0 {
        return Err(TraceError::field(
            n,
            FIELDS[i],
            format!("{token} is negative; times are UNIX epoch seconds"),
        ));
    }
    Ok(v)
}

/// Parses one event line (not blank, not the header) found at line `n`.
pub fn parse_line(n: u64, text: &str) -> Result<FtaEvent, TraceError> {
    let (cols, count) = columns(text);
    if count != FIELDS.len() {
        let how = if text.contains('\t') {
            format!(
                "{} columns split on single tabs, {count} split on runs of spaces and tabs",
                text.split('\t').count()
            )
        } else {
            format!("{count} space-separated columns")
        };
        return Err(TraceError::line(
            n,
            format!(
                "{how}; an FTA event line has 9 ({}): \"{}\"",
                FIELDS.join(", "),
                shorten(text)
            ),
        ));
    }
    // Columns are checked in file order, so the first bad column is the one reported.
    let event_id = whole(n, 0, cols[0])?;
    let component_id = whole(n, 1, cols[1])?;
    let node_id = whole(n, 2, cols[2])?;
    let platform_id = whole(n, 3, cols[3])?;
    let event_type = EventType::from_code(whole(n, 5, cols[5])?);
    let start_s = time(n, 6, cols[6])?;
    let end_s = if is_missing(cols[7]) {
        None
    } else {
        let end = time(n, 7, cols[7])?;
        if end < start_s {
            return Err(TraceError::field(
                n,
                FIELDS[7],
                format!("{} comes before the event's start {}", cols[7], cols[6]),
            ));
        }
        Some(end)
    };
    let end_reason = if is_missing(cols[8]) {
        None
    } else {
        let reason = whole(n, 8, cols[8])?;
        if reason < 0 {
            return Err(TraceError::field(
                n,
                FIELDS[8],
                format!("{} is negative (only -1, meaning missing, may be)", cols[8]),
            ));
        }
        Some(reason)
    };
    Ok(FtaEvent {
        event_id,
        component_id,
        node_id,
        platform_id,
        node_name: cols[4].to_string(),
        event_type,
        start_s,
        end_s,
        end_reason,
    })
}

/// What a node is between its recorded intervals, where the trace has no data about it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GapPolicy {
    /// Off: a node not seen is not known to be available (the default).
    #[default]
    Off,
    /// On: a node is available unless the trace says otherwise.
    On,
}

impl GapPolicy {
    fn value(self) -> f64 {
        match self {
            GapPolicy::Off => 0.0,
            GapPolicy::On => 1.0,
        }
    }
}

/// How [`availability`] maps the trace onto simulation time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AvailabilityOptions {
    /// Simulation time 0 is this many seconds after the trace's earliest event (>= 0).
    pub offset_s: f64,
    /// The state between recorded intervals.
    pub gaps: GapPolicy,
}

/// One node's state profile.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeAvailability {
    /// `node_id`.
    pub node_id: i64,
    /// `node_name` (the first one read for this id).
    pub node_name: String,
    /// State profile in simulation time: 1 on, 0 off; first event at date 0; no period.
    pub profile: Profile,
    /// Fraction of `[0, span_s]` the node is on.
    pub available_fraction: f64,
}

/// Every node's profile; see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Availability {
    /// Nodes in ascending `node_id`.
    pub nodes: Vec<NodeAvailability>,
    /// The trace's earliest `event_start_time` (epoch seconds).
    pub origin_s: f64,
    /// Simulated length of the trace: its latest start or end time, minus origin and offset.
    pub span_s: f64,
}

/// One node's intervals while grouping.
struct NodeEvents {
    name: String,
    /// `(start, end, value)` relative to the origin; end `None` for an open interval.
    intervals: Vec<(f64, Option<f64>, f64)>,
}

/// Turns events into per-node state profiles; see the module docs for every choice made.
pub fn availability<I: IntoIterator<Item = FtaEvent>>(
    events: I,
    options: &AvailabilityOptions,
) -> Result<Availability, TraceError> {
    let offset = options.offset_s;
    if !(offset.is_finite() && offset >= 0.0) {
        return Err(TraceError::line(
            0,
            format!("offset {offset} s must be a non-negative number"),
        ));
    }
    let mut nodes: BTreeMap<i64, NodeEvents> = BTreeMap::new();
    let mut origin = f64::INFINITY;
    let mut last = f64::NEG_INFINITY;
    // Times are kept absolute while grouping (the origin is known only at the end).
    for (index, e) in events.into_iter().enumerate() {
        let bad_start = !(e.start_s.is_finite() && e.start_s >= 0.0);
        let bad_end = e.end_s.is_some_and(|end| !(end.is_finite() && end >= e.start_s));
        if bad_start || bad_end {
            let (field, value) = if bad_start {
                (FIELDS[6], e.start_s)
            } else {
                (FIELDS[7], e.end_s.unwrap_or(f64::NAN))
            };
            return Err(TraceError::field(
                0,
                field,
                format!(
                    "event {} (record {}, node {}): {value} is not a time at or after the start {}",
                    e.event_id,
                    index + 1,
                    e.node_id,
                    e.start_s
                ),
            ));
        }
        origin = origin.min(e.start_s);
        last = last.max(e.end_s.unwrap_or(e.start_s));
        let node = nodes.entry(e.node_id).or_insert_with(|| NodeEvents {
            name: e.node_name.clone(),
            intervals: Vec::new(),
        });
        let value = match e.event_type {
            EventType::Available => 1.0,
            EventType::Unavailable => 0.0,
            EventType::Other(_) => continue,
        };
        node.intervals.push((e.start_s, e.end_s, value));
    }
    if nodes.is_empty() {
        return Err(TraceError::line(0, "the trace has no event record"));
    }
    let span_s = (last - origin) - offset;
    if span_s < 0.0 {
        return Err(TraceError::line(
            0,
            format!(
                "offset {offset} s is past the trace's end ({} s after its first event)",
                last - origin
            ),
        ));
    }
    let gap = options.gaps.value();
    let mut out = Vec::with_capacity(nodes.len());
    for (node_id, node) in nodes {
        let events = node_timeline(node.intervals, origin, offset, gap);
        let available_fraction = on_fraction(&events, span_s);
        let profile = Profile::new(events, None)
            .map_err(|e| TraceError::line(0, format!("node {node_id}: cannot build its profile: {e}")))?;
        out.push(NodeAvailability {
            node_id,
            node_name: node.name,
            profile,
            available_fraction,
        });
    }
    Ok(Availability {
        nodes: out,
        origin_s: origin,
        span_s,
    })
}

/// One node's profile events in simulation time (see the module docs).
fn node_timeline(mut intervals: Vec<(f64, Option<f64>, f64)>, origin: f64, offset: f64, gap: f64) -> Vec<(f64, f64)> {
    // Stable: intervals starting together stay in input order, so the later one takes over.
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    // State changes in simulation time, in date order; several may share a date (the last
    // one is in force from that date).
    let mut changes: Vec<(f64, f64)> = Vec::with_capacity(2 * intervals.len());
    let to_sim = |t: f64| (t - origin) - offset;
    for (i, &(start, end, value)) in intervals.iter().enumerate() {
        changes.push((to_sim(start), value));
        let next_start = intervals.get(i + 1).map(|next| next.0);
        if let Some(end) = end {
            // The interval ends into a gap unless the next one has started by then (it then
            // takes over at its own start).
            let ends_in_gap = match next_start {
                Some(next) => end < next,
                None => true,
            };
            if ends_in_gap {
                changes.push((to_sim(end), gap));
            }
        }
    }
    let mut state_at_zero = gap;
    let mut events: Vec<(f64, f64)> = Vec::with_capacity(changes.len() + 1);
    for (date, value) in changes {
        if date <= 0.0 {
            state_at_zero = value;
            continue;
        }
        if events.is_empty() {
            events.push((0.0, state_at_zero));
        }
        match events.last_mut() {
            Some(last) if last.0 == date => last.1 = value,
            _ => events.push((date, value)),
        }
    }
    if events.is_empty() {
        events.push((0.0, state_at_zero));
    }
    // Merging same-date changes may leave equal neighbours: keep the first of each run.
    events.dedup_by(|later, earlier| later.1 == earlier.1);
    events
}

/// The fraction of `[0, span]` the profile is on (nonzero); the state at 0 when `span` is 0.
fn on_fraction(events: &[(f64, f64)], span: f64) -> f64 {
    let on = |v: f64| if v != 0.0 { 1.0 } else { 0.0 };
    if span <= 0.0 {
        return events.first().map_or(0.0, |e| on(e.1));
    }
    let mut total = 0.0;
    for (i, &(date, value)) in events.iter().enumerate() {
        let until = events.get(i + 1).map_or(span, |next| next.0).min(span);
        if until > date {
            total += on(value) * (until - date);
        }
    }
    (total / span).clamp(0.0, 1.0)
}
