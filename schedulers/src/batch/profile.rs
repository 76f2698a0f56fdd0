//! A plan of free units over time, as conservative backfilling keeps it: a step function from
//! `now`, each step `(date, free units from that date until the next step's)`.
//!
//! Step 0 holds the units free *now*. Running jobs give their units back at their planned ends
//! (start + request); a job already past its request (allowed with `kill_at_walltime = false`)
//! gives them back at `now` *after* step 0, in a step of its own of the same date: such units
//! can hold a reservation dated `now` but no job can start on them now.

/// Free units over time; see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    steps: Vec<(f64, i64)>,
}

impl Profile {
    /// The plan at `now` with `free` units free now and `releases` (`(date, units)`, by date).
    pub fn new(now: f64, free: u32, releases: impl IntoIterator<Item = (f64, u32)>) -> Profile {
        let mut steps = vec![(now, free as i64)];
        let mut units = free as i64;
        for (date, n) in releases {
            units += n as i64;
            let date = date.max(now);
            let merge = steps.len() > 1 && steps[steps.len() - 1].0 == date;
            if merge {
                let last = steps.len() - 1;
                steps[last].1 = units;
            } else {
                steps.push((date, units));
            }
        }
        Profile { steps }
    }

    /// The plan seen from `now` (not before its first step): the steps before `now` are
    /// dropped and the step in force at `now` starts at `now`.
    pub fn advance(&mut self, now: f64) {
        let current = self.steps.partition_point(|s| s.0 <= now).saturating_sub(1);
        self.steps.drain(..current);
        if let Some(first) = self.steps.first_mut() {
            first.0 = first.0.max(now);
        }
    }

    /// The steps, `(date, free units)`.
    pub fn steps(&self) -> &[(f64, i64)] {
        &self.steps
    }

    /// The first step from which `size` units are free for `duration` seconds, or `None` when
    /// none is (more units than the plan ever frees).
    pub fn earliest_fit(&self, size: u32, duration: f64) -> Option<usize> {
        let size = size as i64;
        let steps = &self.steps;
        let mut i = 0;
        'candidate: while i < steps.len() {
            if steps[i].1 < size {
                i += 1;
                continue;
            }
            let end = steps[i].0 + duration;
            let mut j = i + 1;
            while j < steps.len() && steps[j].0 < end {
                if steps[j].1 < size {
                    i = j + 1;
                    continue 'candidate;
                }
                j += 1;
            }
            return Some(i);
        }
        None
    }

    /// Takes `size` units from step `i`'s date for `duration` seconds (the caller found that
    /// they are free with [`Profile::earliest_fit`]).
    pub fn reserve(&mut self, i: usize, size: u32, duration: f64) {
        let start = self.steps[i].0;
        let end = start + duration;
        if end <= start {
            return;
        }
        // The step that begins at `end`, inserted if there is none.
        let mut k = i + 1;
        while k < self.steps.len() && self.steps[k].0 < end {
            k += 1;
        }
        if k == self.steps.len() || self.steps[k].0 > end {
            let before = self.steps[k - 1].1;
            self.steps.insert(k, (end, before));
        }
        for step in &mut self.steps[i..k] {
            step.1 -= size as i64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_and_reserves_by_hand() {
        // 1 free now, 2 more at 10, 1 more at 20 (4 in all).
        let mut p = Profile::new(0.0, 1, [(10.0, 2), (20.0, 1)]);
        assert_eq!(p.steps(), &[(0.0, 1), (10.0, 3), (20.0, 4)]);
        assert_eq!(p.earliest_fit(1, 100.0), Some(0));
        assert_eq!(p.earliest_fit(3, 5.0), Some(1));
        assert_eq!(p.earliest_fit(4, 1.0), Some(2));
        assert_eq!(p.earliest_fit(5, 1.0), None);
        // 3 units from 10 to 15: a 2-unit job fits only from 15 (1 free in [10, 15)... and 3
        // from 15).
        p.reserve(1, 3, 5.0);
        assert_eq!(p.steps(), &[(0.0, 1), (10.0, 0), (15.0, 3), (20.0, 4)]);
        assert_eq!(p.earliest_fit(2, 1.0), Some(2));
        // A 1-unit job of 12 s does not fit now (0 free in [10, 15)), fits from 15.
        assert_eq!(p.earliest_fit(1, 12.0), Some(2));
        assert_eq!(p.earliest_fit(1, 10.0), Some(0));
    }

    #[test]
    fn advancing_keeps_the_plan_from_now() {
        let mut p = Profile::new(0.0, 1, [(10.0, 2), (20.0, 1)]);
        p.advance(5.0);
        assert_eq!(p.steps(), &[(5.0, 1), (10.0, 3), (20.0, 4)]);
        p.advance(10.0);
        assert_eq!(p.steps(), &[(10.0, 3), (20.0, 4)]);
        p.advance(25.0);
        assert_eq!(p.steps(), &[(25.0, 4)]);
    }

    #[test]
    fn overdue_units_are_a_step_of_their_own() {
        // A job past its request (planned end 5 < now 8) frees 2 units "at now", after step 0.
        let p = Profile::new(8.0, 1, [(5.0, 2)]);
        assert_eq!(p.steps(), &[(8.0, 1), (8.0, 3)]);
        assert_eq!(p.earliest_fit(2, 1.0), Some(1));
        assert_eq!(p.earliest_fit(1, 1.0), Some(0));
    }
}
