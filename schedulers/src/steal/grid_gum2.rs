//! Grid-GUM2's load management (the paper's §3 and Fig 7): targeted fishing from partial,
//! timestamped tables.
//!
//! Each PE keeps three tables:
//! - *PEStatic*: every PE's speed, from the startup messages;
//! - *PEDynamic*: every PE's load with the time it was measured. A PE's load is the number of
//!   sparks in its pool (what a FISH can take; the paper says only "loads"). The whole table
//!   rides on every message a PE sends, with the sender's own entry refreshed; a receiver keeps,
//!   per PE, the entry with the newer timestamp (never an older one);
//! - *Communication*: per PE, the latency of the last message received from it, measured as
//!   receive time minus send time (clocks are time since the start, as the paper does).
//!
//! An idle PE sends its FISH to the *busiest* PE: the highest load relative to speed
//! (`load / speed`) among PEs whose latency is within `local_latency_factor` × the lowest
//! latency it knows (the low-latency PEs), or among all PEs when none of those has sparks
//! (`prefer_local = 0` ignores latency). With no PE known to have sparks, it fishes at random,
//! as Grid-GUM does. A PE with sparks answers with one; without, it forwards the FISH to the
//! busiest PE it knows (never back to itself or to the fisher), or sends it home when it knows
//! none. The hop limit still applies.
//!
//! Two mechanisms the paper describes but did not measure are options, off by default:
//! - *Super-Schedule* (`super_schedule = k > 0`): a FISH from a remote PE (latency above the
//!   local bound) that is faster than this one gets `round(speed_fisher / speed_self)` sparks,
//!   at most `k`, in one SCHEDULE;
//! - *low-watermarks* (`low_watermark = w > 0`): a PE also fishes while busy when its pool holds
//!   fewer than `w × speed / slowest known speed` sparks, so fast PEs fish earlier.

use rand_chacha::ChaCha8Rng;

use super::grid_gum::random_other;
use super::policy::{Answer, Fish, FishTarget, LoadEntry, PeId, PeView, StealPolicy};
use super::registry::Makers;
use crate::registry::{Entry, Param, PolicyInfo};

/// Options of Grid-GUM2 (the registry's parameters).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridGum2Options {
    /// PEs within this factor of the lowest known latency count as local.
    pub local_latency_factor: f64,
    /// Prefer local PEs when choosing whom to fish.
    pub prefer_local: bool,
    /// Most sparks in a Super-Schedule (0: off).
    pub super_schedule: usize,
    /// Low-watermark of the slowest PE, sparks (0: off).
    pub low_watermark: f64,
}

impl Default for GridGum2Options {
    fn default() -> Self {
        GridGum2Options {
            local_latency_factor: 2.0,
            prefer_local: true,
            super_schedule: 0,
            low_watermark: 0.0,
        }
    }
}

/// One PE's Grid-GUM2 tables and options.
#[derive(Clone, Debug)]
pub struct GridGum2 {
    options: GridGum2Options,
    /// PEStatic: speed by PE.
    speeds: Vec<Option<f64>>,
    /// PEDynamic: (load, timestamp) by PE.
    loads: Vec<Option<(f64, f64)>>,
    /// Communication: latency by PE, s.
    latency: Vec<Option<f64>>,
}

impl GridGum2 {
    /// Empty tables for a run on `pes` PEs.
    pub fn new(pes: usize, options: GridGum2Options) -> GridGum2 {
        GridGum2 {
            options,
            speeds: vec![None; pes],
            loads: vec![None; pes],
            latency: vec![None; pes],
        }
    }

    /// The PEDynamic entry of `pe`: (load, timestamp).
    pub fn load_of(&self, pe: PeId) -> Option<(f64, f64)> {
        self.loads.get(pe).copied().flatten()
    }

    /// The Communication entry of `pe`, s.
    pub fn latency_of(&self, pe: PeId) -> Option<f64> {
        self.latency.get(pe).copied().flatten()
    }

    fn local_bound(&self) -> f64 {
        let min = self.latency.iter().flatten().copied().fold(f64::INFINITY, f64::min);
        min * self.options.local_latency_factor
    }

    fn is_local(&self, pe: PeId) -> bool {
        self.latency_of(pe).is_some_and(|l| l <= self.local_bound())
    }

    /// The busiest PE other than `me` and `except` known to have sparks, preferring local ones.
    fn busiest(&self, view: &PeView<'_>, except: Option<PeId>) -> Option<PeId> {
        let score = |q: PeId| {
            let (load, _) = self.load_of(q)?;
            let speed = self.speeds[q].unwrap_or(view.speed);
            (load > 0.0).then_some(load / speed)
        };
        let best = |local_only: bool| {
            let mut best: Option<(f64, PeId)> = None;
            for q in 0..view.pes {
                if q == view.me || Some(q) == except || (local_only && !self.is_local(q)) {
                    continue;
                }
                if let Some(s) = score(q) {
                    // Strictly greater: ties go to the lowest PE number, deterministically.
                    if !matches!(best, Some((b, _)) if s <= b) {
                        best = Some((s, q));
                    }
                }
            }
            best.map(|(_, q)| q)
        };
        if self.options.prefer_local {
            best(true).or_else(|| best(false))
        } else {
            best(false)
        }
    }

    fn watermark(&self, view: &PeView<'_>) -> f64 {
        let slowest = self.speeds.iter().flatten().copied().fold(view.speed, f64::min);
        self.options.low_watermark * view.speed / slowest
    }
}

impl StealPolicy for GridGum2 {
    fn fish(&mut self, view: &PeView<'_>, rng: &mut ChaCha8Rng) -> Vec<FishTarget> {
        let low = self.options.low_watermark > 0.0 && (view.sparks as f64) < self.watermark(view);
        if !(view.idle || low) || view.outstanding != [0, 0] || view.pes < 2 {
            return Vec::new();
        }
        let to = self
            .busiest(view, None)
            .unwrap_or_else(|| random_other(view.me, view.pes, rng));
        vec![FishTarget { to, wide: false }]
    }

    fn answer(&mut self, view: &PeView<'_>, fish: &Fish, _rng: &mut ChaCha8Rng) -> Answer {
        if view.exportable > 0 {
            let remote = !self.is_local(fish.origin);
            let ratio = self.speeds[fish.origin].map_or(1.0, |s| s / view.speed);
            if self.options.super_schedule > 0 && remote && ratio > 1.0 {
                let k = (ratio.round() as usize).clamp(1, self.options.super_schedule);
                return Answer::Give(k);
            }
            return Answer::Give(1);
        }
        match self.busiest(view, Some(fish.origin)) {
            Some(q) => Answer::Forward(q),
            None => Answer::Home,
        }
    }

    fn on_hello(&mut self, _view: &PeView<'_>, from: PeId, speed: f64) {
        if let Some(s) = self.speeds.get_mut(from) {
            *s = Some(speed);
        }
    }

    fn on_message(&mut self, view: &PeView<'_>, from: PeId, sent_at: f64, info: &[LoadEntry]) {
        if let Some(l) = self.latency.get_mut(from) {
            *l = Some(view.now - sent_at);
        }
        for entry in info {
            if entry.pe == view.me {
                continue;
            }
            if let Some(slot) = self.loads.get_mut(entry.pe) {
                // Newer entries win; an older one never overwrites.
                if !matches!(*slot, Some((_, stamp)) if entry.stamp <= stamp) {
                    *slot = Some((entry.load, entry.stamp));
                }
            }
        }
    }

    fn piggyback(&mut self, view: &PeView<'_>) -> Vec<LoadEntry> {
        if let Some(own) = self.loads.get_mut(view.me) {
            *own = Some((view.sparks as f64, view.now));
        }
        self.loads
            .iter()
            .enumerate()
            .filter_map(|(pe, e)| e.map(|(load, stamp)| LoadEntry { pe, load, stamp }))
            .collect()
    }
}

/// The registry entry: `grid-gum2` and its options.
pub const ENTRY: Entry<Makers> = Entry {
    info: PolicyInfo {
        name: "grid-gum2",
        description: "Grid-GUM2: FISH the PE with the highest load per speed, preferring low latency, from piggybacked tables (Fig 7)",
        params: &[
            Param::real(
                "local_latency_factor",
                "PEs within this factor of the lowest known latency are local",
                "2",
                1.0,
            ),
            Param::flag("prefer_local", "1: fish local PEs first (Communication table); 0: ignore latency", "1"),
            Param::integer(
                "super_schedule",
                "most sparks in a Super-Schedule to a faster remote fisher (0: off, as the paper measured)",
                "0",
                0.0,
            )
            .at_most(1024.0)
            .in_unit("sparks"),
            Param::real(
                "low_watermark",
                "sparks below which the slowest PE fishes while busy, scaled up by speed (0: off, as measured)",
                "0",
                0.0,
            )
            .at_most(1e6)
            .in_unit("sparks"),
        ],
    },
    build: |v| {
        let options = GridGum2Options {
            local_latency_factor: v.real("local_latency_factor")?,
            prefer_local: v.flag("prefer_local")?,
            super_schedule: v.integer("super_schedule")? as usize,
            low_watermark: v.real("low_watermark")?,
        };
        Ok(Makers::new(move |pes| Box::new(GridGum2::new(pes, options))))
    },
};

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    fn view(me: PeId, now: f64, sparks: usize, clusters: &[usize]) -> PeView<'_> {
        PeView {
            me,
            now,
            pes: clusters.len(),
            speed: 1e9,
            sparks,
            exportable: sparks,
            runnable: 0,
            live: 0,
            idle: true,
            outstanding: [0, 0],
            clusters,
        }
    }

    #[test]
    fn a_low_watermark_makes_a_busy_pe_fish_and_scales_with_speed() {
        let clusters = [0; 3];
        let mut busy = view(0, 1.0, 1, &clusters);
        busy.idle = false;
        busy.speed = 2e9;
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // Off (the paper's setting): a busy PE never fishes.
        let mut off = GridGum2::new(3, GridGum2Options::default());
        assert!(off.fish(&busy, &mut rng).is_empty());
        // Watermark 1 on the slowest PE (1 GHz): this 2 GHz PE keeps 2, so 1 spark is low.
        let options = GridGum2Options {
            low_watermark: 1.0,
            ..GridGum2Options::default()
        };
        let mut on = GridGum2::new(3, options);
        on.on_hello(&busy, 1, 1e9);
        assert_eq!(on.fish(&busy, &mut rng).len(), 1);
        busy.sparks = 2;
        assert!(on.fish(&busy, &mut rng).is_empty());
    }

    #[test]
    fn older_entries_never_overwrite_newer_ones() {
        let clusters = [0; 3];
        let mut t = GridGum2::new(3, GridGum2Options::default());
        let entry = |load, stamp| LoadEntry { pe: 2, load, stamp };
        t.on_message(&view(0, 5.0, 0, &clusters), 1, 4.0, &[entry(7.0, 3.0)]);
        assert_eq!(t.load_of(2), Some((7.0, 3.0)));
        t.on_message(&view(0, 6.0, 0, &clusters), 1, 5.5, &[entry(1.0, 2.0)]);
        assert_eq!(t.load_of(2), Some((7.0, 3.0)), "an older entry overwrote a newer one");
        t.on_message(&view(0, 7.0, 0, &clusters), 1, 6.5, &[entry(0.0, 6.0)]);
        assert_eq!(t.load_of(2), Some((0.0, 6.0)));
        // The Communication table: receive time minus send time of the last message.
        assert_eq!(t.latency_of(1), Some(0.5));
        // Its own entry is what it piggybacks, refreshed.
        let sent = t.piggyback(&view(0, 8.0, 4, &clusters));
        assert!(sent.contains(&LoadEntry {
            pe: 0,
            load: 4.0,
            stamp: 8.0
        }));
    }

    #[test]
    fn fishes_the_busiest_pe_per_unit_of_speed_preferring_low_latency() {
        let clusters = [0; 4];
        let mut t = GridGum2::new(4, GridGum2Options::default());
        let v = view(0, 1.0, 0, &clusters);
        t.on_hello(&v, 1, 1e9);
        t.on_hello(&v, 2, 2.5e8);
        t.on_hello(&v, 3, 1e9);
        let e = |pe, load| LoadEntry { pe, load, stamp: 0.5 };
        // PE 1: 10 sparks at 1 GHz; PE 2: 4 sparks at 0.25 GHz (busier per speed).
        t.on_message(&v, 1, 0.99, &[e(1, 10.0), e(2, 4.0)]);
        t.on_message(&v, 2, 0.99, &[]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(t.fish(&v, &mut rng), vec![FishTarget { to: 2, wide: false }]);
        // PE 2 now far away: the local PE 1 is preferred.
        t.on_message(&view(0, 2.0, 0, &clusters), 2, 1.5, &[]);
        assert_eq!(t.fish(&v, &mut rng), vec![FishTarget { to: 1, wide: false }]);
        // A PE without sparks forwards to the busiest PE it knows, never back to the fisher.
        let fish = Fish {
            origin: 1,
            age: 0,
            wide: false,
        };
        assert_eq!(
            t.answer(&view(0, 2.0, 0, &clusters), &fish, &mut rng),
            Answer::Forward(2)
        );
    }
}
