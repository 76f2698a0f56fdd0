//! Energy of a batch run: each host's joules from the run's start (date 0) to its end (the last
//! job's end), and the platform's power over time.
//!
//! A host draws, by SimGrid 3.32's host energy model ([`sim_core::energy`], at the model's pstate 0:
//! the family passes each host's model reduced to the pstate it starts in): while on
//! with `b` of its `n` units held, `epsilon + (b / n) × (full − epsilon)` watts (one unit per
//! host: `full` whenever a job runs on it), `idle` while on with none held, `wattage_off` while
//! off or down (its state profile says 0). Booting and shutting down (`idle_off_s`) draw the
//! fixed `boot_w` and `shutdown_w`, as SimGrid's `energy_boot` example models them: a pstate of
//! no speed at that power, held for the boot's or the shutdown's duration. Every date at which
//! something changes splits each host's time into pieces of one state, so each host's time from
//! 0 to the end is exactly the sum of its busy, idle, booting, shutting-down and off times.

use sim_core::energy::HostPower;

use super::sim::{JobResult, PowerChange, PowerState};

/// What one host drew: time and joules in each state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostEnergy {
    /// Seconds on with at least one unit held.
    pub busy_s: f64,
    /// Seconds on with no unit held.
    pub idle_s: f64,
    /// Seconds booting.
    pub booting_s: f64,
    /// Seconds shutting down.
    pub shutting_down_s: f64,
    /// Seconds off or down.
    pub off_s: f64,
    /// Joules drawn while busy.
    pub busy_j: f64,
    /// Joules drawn while idle.
    pub idle_j: f64,
    /// Joules drawn while booting or shutting down.
    pub transition_j: f64,
    /// Joules drawn while off or down.
    pub off_j: f64,
}

impl HostEnergy {
    /// All its joules.
    pub fn joules(&self) -> f64 {
        self.busy_j + self.idle_j + self.transition_j + self.off_j
    }
}

/// The platform's draw from `time_s` on, and the joules drawn before it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerStep {
    /// The date, s.
    pub time_s: f64,
    /// Watts drawn by all hosts from this date to the next step.
    pub watts: f64,
    /// Joules drawn by all hosts from 0 to this date.
    pub joules: f64,
}

/// The hosts' power models and units, and the watts of booting and shutting down.
pub struct Machine<'a> {
    /// Each host's power model and its number of units, in platform order.
    pub hosts: &'a [(HostPower, u32)],
    /// The host of each unit.
    pub unit_host: &'a [u32],
    /// Watts drawn while booting.
    pub boot_w: f64,
    /// Watts drawn while shutting down.
    pub shutdown_w: f64,
}

#[derive(Clone, Copy, Debug)]
enum Change {
    /// Units held on the host change by this many.
    Held(i64),
    /// The host enters a power state (`idle_off_s`).
    State(PowerState),
    /// A down period of its state profile starts (true) or ends.
    Down(bool),
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Busy,
    Idle,
    Booting,
    ShuttingDown,
    Off,
}

/// Each host's energy over `[0, end]` and the platform's power steps, from the executions
/// (every one that held units, killed ones included), each host's down periods `(host, from,
/// to)` and its power state changes (hosts are on at 0).
pub fn account(
    machine: &Machine<'_>,
    executions: &[&JobResult],
    down: &[(usize, f64, f64)],
    power: &[PowerChange],
    end: f64,
) -> (Vec<HostEnergy>, Vec<PowerStep>) {
    let n = machine.hosts.len();
    let mut changes: Vec<(f64, usize, Change)> = Vec::new();
    for r in executions {
        for &(a, b) in &r.units {
            // Units are numbered host by host, so a range's hosts are consecutive runs.
            let mut u = a;
            while u <= b {
                let h = machine.unit_host[u as usize];
                let mut v = u;
                while v < b && machine.unit_host[v as usize + 1] == h {
                    v += 1;
                }
                let k = i64::from(v - u + 1);
                changes.push((r.start_s, h as usize, Change::Held(k)));
                changes.push((r.end_s, h as usize, Change::Held(-k)));
                u = v + 1;
            }
        }
    }
    for &(h, from, to) in down {
        changes.push((from, h, Change::Down(true)));
        changes.push((to, h, Change::Down(false)));
    }
    for c in power {
        changes.push((c.date, c.host, Change::State(c.state)));
    }
    // Stable: a host's state changes of one date keep their order.
    changes.sort_by(|a, b| a.0.total_cmp(&b.0));

    let mut held = vec![0i64; n];
    let mut downs = vec![0u32; n];
    let mut state = vec![PowerState::On; n];
    let watts_of = |h: usize, held: i64, downs: u32, state: PowerState| -> (f64, Kind) {
        let (model, units) = &machine.hosts[h];
        if downs > 0 {
            return (model.watts(0, 0.0, false), Kind::Off);
        }
        match state {
            PowerState::Off => (model.watts(0, 0.0, false), Kind::Off),
            PowerState::Booting => (machine.boot_w, Kind::Booting),
            PowerState::ShuttingDown => (machine.shutdown_w, Kind::ShuttingDown),
            PowerState::On if held > 0 => (model.watts(0, held as f64 / f64::from(*units), true), Kind::Busy),
            PowerState::On => (model.watts(0, 0.0, true), Kind::Idle),
        }
    };
    let mut current: Vec<(f64, Kind)> = (0..n).map(|h| watts_of(h, 0, 0, PowerState::On)).collect();
    let mut since = vec![0.0f64; n];
    let mut energy = vec![HostEnergy::default(); n];
    let settle = |e: &mut HostEnergy, (w, kind): (f64, Kind), dt: f64| {
        let j = w * dt;
        match kind {
            Kind::Busy => {
                e.busy_s += dt;
                e.busy_j += j;
            }
            Kind::Idle => {
                e.idle_s += dt;
                e.idle_j += j;
            }
            Kind::Booting => {
                e.booting_s += dt;
                e.transition_j += j;
            }
            Kind::ShuttingDown => {
                e.shutting_down_s += dt;
                e.transition_j += j;
            }
            Kind::Off => {
                e.off_s += dt;
                e.off_j += j;
            }
        }
    };
    let mut total: f64 = current.iter().map(|c| c.0).sum();
    let mut joules = 0.0;
    let mut last = 0.0;
    let mut steps = vec![PowerStep {
        time_s: 0.0,
        watts: total,
        joules: 0.0,
    }];
    let mut touched: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < changes.len() {
        let date = changes[i].0;
        if date > end {
            break;
        }
        while i < changes.len() && changes[i].0 == date {
            let (_, h, change) = changes[i];
            match change {
                Change::Held(k) => held[h] += k,
                Change::Down(true) => downs[h] += 1,
                Change::Down(false) => downs[h] = downs[h].saturating_sub(1),
                Change::State(s) => state[h] = s,
            }
            touched.push(h);
            i += 1;
        }
        joules += total * (date - last);
        last = date;
        for &h in &touched {
            let next = watts_of(h, held[h], downs[h], state[h]);
            if next.0 != current[h].0 || next.1 != current[h].1 {
                settle(&mut energy[h], current[h], date - since[h]);
                since[h] = date;
                total += next.0 - current[h].0;
                current[h] = next;
            }
        }
        touched.clear();
        let step = PowerStep {
            time_s: date,
            watts: total,
            joules,
        };
        match steps.last_mut() {
            Some(s) if s.time_s == date => *s = step,
            Some(s) if s.watts == total => {}
            _ => steps.push(step),
        }
    }
    for h in 0..n {
        settle(&mut energy[h], current[h], end - since[h]);
    }
    joules += total * (end - last);
    if steps.last().is_some_and(|s| s.time_s < end) {
        steps.push(PowerStep {
            time_s: end,
            watts: total,
            joules,
        });
    }
    (energy, steps)
}
