//! Availability profiles: piecewise-constant values that change at given dates.
//!
//! A profile scales a resource's capacity (a speed profile: a factor applied to the host's peak
//! speed; a bandwidth profile) or switches it on and off (a state profile: value 0 = off,
//! anything else = on). The model is SimGrid's: the value in force at time t is the value of the
//! last event whose date is <= t; before the first event the resource keeps its nominal value.
//! A periodic profile repeats its events every `period` seconds: event i of cycle k happens at
//! `events[i].0 + k * period`.
//!
//! Parsing SimGrid's text format (`date value` lines, `LOOPAFTER d`, legacy `PERIODICITY p`) lives
//! in the `platforms` crate; this module is the parsed, validated form.

/// A validated profile: event dates are sorted and non-negative, the period (if any) is positive
/// and at least the last event date.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    events: Vec<(f64, f64)>,
    period: Option<f64>,
}

/// Why a profile was rejected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[allow(missing_docs)] // fields are named in the messages
pub enum ProfileError {
    /// An event date is negative or not a number.
    #[error("event {index}: date {date} is negative or not a number")]
    BadDate { index: usize, date: f64 },
    /// An event value is negative or not a number.
    #[error("event {index}: value {value} is negative or not a number")]
    BadValue { index: usize, value: f64 },
    /// Dates go backwards.
    #[error("event {index}: date {date} comes before the previous date {previous}")]
    Unsorted { index: usize, date: f64, previous: f64 },
    /// The repeat period is not positive or is shorter than the last event date.
    #[error("period {period} must be positive and at least the last event date {last}")]
    BadPeriod { period: f64, last: f64 },
}

impl Profile {
    /// Builds a profile from `(date, value)` events in date order and an optional repeat period.
    pub fn new(events: Vec<(f64, f64)>, period: Option<f64>) -> Result<Profile, ProfileError> {
        let mut previous = 0.0f64;
        for (index, &(date, value)) in events.iter().enumerate() {
            if date.is_nan() || date < 0.0 || !date.is_finite() {
                return Err(ProfileError::BadDate { index, date });
            }
            if value.is_nan() || value < 0.0 || !value.is_finite() {
                return Err(ProfileError::BadValue { index, value });
            }
            if date < previous {
                return Err(ProfileError::Unsorted { index, date, previous });
            }
            previous = date;
        }
        if let Some(period) = period {
            let last = events.last().map_or(0.0, |e| e.0);
            // SimGrid 3.32 refuses a period shorter than the last date ("Profile loop conditions
            // are not realizable!"); a period equal to it replays event 0 at the last date.
            if period.is_nan() || period <= 0.0 || !period.is_finite() || period < last {
                return Err(ProfileError::BadPeriod { period, last });
            }
        }
        Ok(Profile { events, period })
    }

    /// The events of one cycle, `(date, value)` in date order.
    pub fn events(&self) -> &[(f64, f64)] {
        &self.events
    }

    /// The repeat period, if the profile loops.
    pub fn period(&self) -> Option<f64> {
        self.period
    }

    /// The shortest positive time between two successive events, the wrap from the last event
    /// of a cycle to the first of the next included; `None` when there are never two events at
    /// different dates. Events at the same date are one change (the last one's value holds), so
    /// they do not count. A profile whose events come closer than [`crate::time::EPSILON`] makes
    /// more events than a run can process: what `gridsim validate` warns about.
    pub fn finest_spacing(&self) -> Option<f64> {
        let mut finest = f64::INFINITY;
        for pair in self.events.windows(2) {
            let gap = pair[1].0 - pair[0].0;
            if gap > 0.0 {
                finest = finest.min(gap);
            }
        }
        if let (Some(period), Some(first), Some(last)) = (self.period, self.events.first(), self.events.last()) {
            let wrap = first.0 + period - last.0;
            if wrap > 0.0 {
                finest = finest.min(wrap);
            }
        }
        finest.is_finite().then_some(finest)
    }

    /// The `n`-th event of the (possibly infinite) sequence, as an absolute `(date, value)`.
    /// `None` once a non-periodic profile is exhausted.
    pub fn nth_event(&self, n: u64) -> Option<(f64, f64)> {
        if self.events.is_empty() {
            return None;
        }
        let len = self.events.len() as u64;
        match self.period {
            None => self.events.get(n as usize).copied(),
            Some(period) => {
                let (cycle, index) = (n / len, (n % len) as usize);
                let (date, value) = self.events[index];
                Some((date + cycle as f64 * period, value))
            }
        }
    }

    /// For a state profile (0 = off), the intervals of `[0, end]` during which the resource is
    /// off, in date order, as `(from, to)`; one still off at `end` ends there. The resource is
    /// on before the first event, as the engine has it. What a run's down periods are, for
    /// figures: it walks every event up to `end`, as the engine does.
    pub fn off_intervals(&self, end: f64) -> Vec<(f64, f64)> {
        let mut intervals = Vec::new();
        let mut off_since: Option<f64> = None;
        let mut n = 0;
        while let Some((date, value)) = self.nth_event(n) {
            if date >= end {
                break;
            }
            n += 1;
            match (off_since, value == 0.0) {
                (None, true) => off_since = Some(date),
                (Some(from), false) => {
                    if date > from {
                        intervals.push((from, date));
                    }
                    off_since = None;
                }
                _ => {}
            }
        }
        if let Some(from) = off_since {
            intervals.push((from, end));
        }
        intervals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_intervals_of_a_state_profile() {
        // On, off at 10, on at 15 (a repeated 0 stays one interval), off at 20 for good.
        let p = Profile::new(
            vec![(0.0, 1.0), (10.0, 0.0), (12.0, 0.0), (15.0, 1.0), (20.0, 0.0)],
            None,
        )
        .unwrap();
        assert_eq!(p.off_intervals(30.0), vec![(10.0, 15.0), (20.0, 30.0)]);
        // Cut at the end; an event at the end opens nothing.
        assert_eq!(p.off_intervals(12.0), vec![(10.0, 12.0)]);
        assert_eq!(p.off_intervals(10.0), vec![]);
        // Periodic: off for 2 s of every 5, from 3.
        let p = Profile::new(vec![(3.0, 0.0), (5.0, 1.0)], Some(5.0)).unwrap();
        assert_eq!(p.off_intervals(14.0), vec![(3.0, 5.0), (8.0, 10.0), (13.0, 14.0)]);
        // Off from 0.
        let p = Profile::new(vec![(0.0, 0.0), (4.0, 0.5)], None).unwrap();
        assert_eq!(p.off_intervals(9.0), vec![(0.0, 4.0)]);
    }

    #[test]
    fn periodic_events_repeat_every_period() {
        let p = Profile::new(vec![(0.0, 1.0), (10.0, 0.5)], Some(15.0)).unwrap();
        let seq: Vec<_> = (0..5).map(|n| p.nth_event(n).unwrap()).collect();
        assert_eq!(
            seq,
            vec![(0.0, 1.0), (10.0, 0.5), (15.0, 1.0), (25.0, 0.5), (30.0, 1.0)]
        );
    }

    #[test]
    fn the_finest_spacing_counts_the_wrap_and_not_equal_dates() {
        let spacing = |events: Vec<(f64, f64)>, period| Profile::new(events, period).unwrap().finest_spacing();
        assert_eq!(spacing(vec![(0.0, 1.0), (10.0, 0.5)], Some(15.0)), Some(5.0));
        assert_eq!(spacing(vec![(0.0, 1.0), (3e-9, 0.0)], Some(6e-9)), Some(3e-9));
        assert_eq!(spacing(vec![(0.0, 1.0)], Some(1e-12)), Some(1e-12));
        assert_eq!(spacing(vec![(1.0, 1.0), (1.0, 0.0), (4.0, 1.0)], None), Some(3.0));
        // `PERIODICITY last` with a first event at 0: the wrap is the same date.
        assert_eq!(spacing(vec![(0.0, 1.0), (5.0, 0.0)], Some(5.0)), Some(5.0));
        assert_eq!(spacing(vec![(1.0, 1.0)], None), None);
        assert_eq!(spacing(vec![], None), None);
    }

    #[test]
    fn finite_profile_ends() {
        let p = Profile::new(vec![(1.0, 1.0)], None).unwrap();
        assert_eq!(p.nth_event(0), Some((1.0, 1.0)));
        assert_eq!(p.nth_event(1), None);
    }

    #[test]
    fn rejects_unsorted_and_negative() {
        assert!(matches!(
            Profile::new(vec![(5.0, 1.0), (2.0, 1.0)], None),
            Err(ProfileError::Unsorted { index: 1, .. })
        ));
        assert!(matches!(
            Profile::new(vec![(-1.0, 1.0)], None),
            Err(ProfileError::BadDate { .. })
        ));
        assert!(matches!(
            Profile::new(vec![(1.0, -1.0)], None),
            Err(ProfileError::BadValue { .. })
        ));
        assert!(matches!(
            Profile::new(vec![(0.0, 1.0), (4.0, 1.0)], Some(3.0)),
            Err(ProfileError::BadPeriod { .. })
        ));
    }
}
