//! Measurements on the engine and the statistics of simulated estimates, shared by the
//! skeleton simulations ([`super::pipeline_sim`], [`super::alt_sim`]).
//!
//! * **Probes** ([`run_probes`]): the engine counterpart of the papers' monitoring. AMoGeT
//!   takes `la_ij`, "the amount of time required to transmit a TCP message" of 1 byte from NWS
//!   (§4.3); Alt et al. measure `t_s` and `t_w` "by sending messages of varying size from the
//!   client to the server" and obtain operator speed-ups by benchmarking (§4, §4.1). Here a
//!   probe is a message or a computation run alone, from time 0, on a fresh engine over the
//!   platform, and its simulated duration is the measurement.
//! * **Platforms** ([`mesh_platform`]): the homogeneous network of AMoGeT's experiments (§5.3:
//!   "the same [latency] for the whole network"): one link per pair of processors.
//! * **Batch means** ([`batch_means`]) and Student's t intervals ([`crate::stats`]) for
//!   confidence intervals of a steady-state rate.

use std::sync::Arc;

use sim_core::platform::{Host, HostId, Link, Platform};
use sim_core::profile::Profile;
use sim_core::{Application, Engine, Notification, SimTime, Simulation};

use crate::stats::t_factor;

/// One measurement run alone on the platform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Probe {
    /// A message of `bytes` from `src` to `dst`.
    Message {
        /// Sender.
        src: HostId,
        /// Receiver.
        dst: HostId,
        /// Size, bytes.
        bytes: f64,
    },
    /// A computation of `flops` on one core of `host`.
    Compute {
        /// Where it runs.
        host: HostId,
        /// Amount, flops.
        flops: f64,
    },
}

struct ProbeRunner {
    probe: Probe,
    duration: Option<f64>,
    error: Option<String>,
}

impl Application for ProbeRunner {
    fn start(&mut self, engine: &mut Engine) {
        match self.probe {
            Probe::Message { src, dst, bytes } => {
                if let Err(e) = engine.start_comm(src, dst, bytes, 0) {
                    self.error = Some(e.to_string());
                }
            }
            Probe::Compute { host, flops } => {
                engine.start_exec(host, flops, 0);
            }
        }
    }

    fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
        match note {
            Notification::Completed { .. } => self.duration = Some(engine.now().secs()),
            Notification::Failed { cause, .. } => {
                self.error = Some(format!("probe {:?} failed: {cause:?}", self.probe))
            }
        }
    }
}

/// Runs each of `probes` alone, from time 0, on a fresh engine over `platform` (its own network
/// model), and returns each one's simulated duration, seconds. Identical probes on identical
/// routes therefore measure bit-identical durations.
pub fn run_probes(platform: Arc<Platform>, probes: &[Probe]) -> Result<Vec<f64>, String> {
    probes
        .iter()
        .map(|&probe| {
            let engine = Engine::new(Arc::clone(&platform)).map_err(|e| e.to_string())?;
            let mut sim = Simulation::new(
                engine,
                ProbeRunner {
                    probe,
                    duration: None,
                    error: None,
                },
            );
            sim.run();
            if let Some(e) = sim.app.error.take() {
                return Err(e);
            }
            sim.app
                .duration
                .ok_or_else(|| format!("probe {probe:?} did not complete"))
        })
        .collect()
}

/// The fraction of its peak speed each host delivers at time 0 (its speed profile's factor),
/// the `av_j` an NWS CPU sensor would report for an otherwise idle host.
pub fn availability_at_start(platform: &Arc<Platform>, hosts: &[HostId]) -> Result<Vec<f64>, String> {
    let mut engine = Engine::new(Arc::clone(platform)).map_err(|e| e.to_string())?;
    // Apply the profiles' values at date 0 (profile steps are events).
    while engine.next_notification_until(SimTime::ZERO).is_some() {}
    Ok(hosts
        .iter()
        .map(|&h| engine.host_speed(h) / platform.host(h).speed)
        .collect())
}

/// The homogeneous grid of AMoGeT's experiments: hosts `P1..Pn` with one core of speed
/// `speeds[j]` flop/s (times the constant factor `availability[j]` when below 1, as a speed
/// profile), and one SHARED link of `latency_s` and `bandwidth` bytes/s between every two
/// distinct hosts, used in both directions. A host talks to itself over the loopback.
/// `network_model` goes to the platform's `network/model` setting (`raw`, `CM02` or `LV08`).
pub fn mesh_platform(
    speeds: &[f64],
    availability: &[f64],
    latency_s: f64,
    bandwidth: f64,
    network_model: &str,
) -> Result<Platform, String> {
    if speeds.is_empty() {
        return Err("a platform needs at least one host".into());
    }
    if speeds.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return Err("host speeds must be positive".into());
    }
    if !(latency_s.is_finite() && latency_s >= 0.0 && bandwidth.is_finite() && bandwidth > 0.0) {
        return Err(format!("bad network: latency {latency_s} s, bandwidth {bandwidth} B/s"));
    }
    let mut p = Platform::new();
    p.config.insert("network/model".into(), network_model.into());
    let mut hosts = Vec::new();
    for (j, &speed) in speeds.iter().enumerate() {
        let mut host = Host::new(format!("P{}", j + 1), speed);
        let av = availability.get(j).copied().unwrap_or(1.0);
        if !(av.is_finite() && av > 0.0 && av <= 1.0) {
            return Err(format!("availability of P{} must be in (0, 1], got {av}", j + 1));
        }
        if av < 1.0 {
            host.speed_profile = Some(Profile::new(vec![(0.0, av)], None).map_err(|e| format!("{e:?}"))?);
        }
        hosts.push(p.add_host(host).expect("names P1..Pn are distinct"));
    }
    for i in 0..hosts.len() {
        for j in i + 1..hosts.len() {
            let link = p
                .add_link(Link::new(format!("l{}-{}", i + 1, j + 1), bandwidth, latency_s))
                .expect("link names are distinct");
            p.routing.add_route(hosts[i], hosts[j], vec![link]);
            p.routing.add_route(hosts[j], hosts[i], vec![link]);
        }
    }
    Ok(p)
}

/// A rate estimated by batch means.
#[derive(Clone, Debug, PartialEq)]
pub struct RateEstimate {
    /// Events per second over the whole window.
    pub mean: f64,
    /// Half-width of the 95% confidence interval (Student t over the batch rates).
    pub half_width: f64,
    /// Standard error of the mean (sample standard deviation of the batch rates over √b).
    pub std_error: f64,
    /// The rate of each batch.
    pub batch_rates: Vec<f64>,
    /// The window, seconds.
    pub window: (f64, f64),
}

impl RateEstimate {
    /// Whether `x` lies in the 95% confidence interval.
    pub fn contains(&self, x: f64) -> bool {
        (x - self.mean).abs() <= self.half_width
    }

    /// Half-width of the two-sided `confidence` interval (e.g. 0.99).
    pub fn half_width_at(&self, confidence: f64) -> f64 {
        t_factor(confidence, self.batch_rates.len() - 1) * self.std_error
    }
}

/// The rate of the events at `times` (sorted) in the window `(start, end]`, by batch means:
/// the window is cut into `batches` equal intervals, the rate of each is its count over its
/// length, and the interval is `mean ± t_{0.975, b−1} · s / √b` with `s` the batches' sample
/// standard deviation. The mean equals the window's count over its length.
pub fn batch_means(times: &[f64], start: f64, end: f64, batches: usize) -> Result<RateEstimate, String> {
    if batches < 2 {
        return Err("batch means need at least 2 batches".into());
    }
    if end.partial_cmp(&start) != Some(std::cmp::Ordering::Greater) {
        return Err(format!("empty measurement window ({start}, {end}]"));
    }
    let len = (end - start) / batches as f64;
    let mut counts = vec![0u64; batches];
    for &t in times {
        if t > start && t <= end {
            let k = (((t - start) / len).ceil() as usize).clamp(1, batches) - 1;
            counts[k] += 1;
        }
    }
    let batch_rates: Vec<f64> = counts.iter().map(|&c| c as f64 / len).collect();
    let b = batches as f64;
    let mean = batch_rates.iter().sum::<f64>() / b;
    let var = batch_rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (b - 1.0);
    let std_error = (var / b).sqrt();
    Ok(RateEstimate {
        mean,
        half_width: t_factor(0.95, batches - 1) * std_error,
        std_error,
        batch_rates,
        window: (start, end),
    })
}

/// Mean and 95% half-width (Student t) of a sample; half-width 0 for fewer than 2 values.
pub fn mean_ci(values: &[f64]) -> (f64, f64) {
    let n = values.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, 0.0);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n as f64 - 1.0);
    (mean, t_factor(0.95, n - 1) * (var / n as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_means_of_a_regular_stream() {
        // One event every 0.5 s from 0.5 to 100: 2 events/s in every batch, zero variance.
        let times: Vec<f64> = (1..=200).map(|k| k as f64 * 0.5).collect();
        let e = batch_means(&times, 0.0, 100.0, 10).unwrap();
        assert!((e.mean - 2.0).abs() < 1e-12);
        assert!(e.half_width.abs() < 1e-12);
        assert!(e.batch_rates.iter().all(|&r| (r - 2.0).abs() < 1e-12));
        // Two batches with 1 and 3 events in 1 s each: mean 2, s = sqrt(2), hw = 12.706 * 1.
        let e = batch_means(&[0.5, 1.2, 1.5, 1.9], 0.0, 2.0, 2).unwrap();
        assert!((e.mean - 2.0).abs() < 1e-12);
        assert!((e.half_width - crate::stats::student_t_quantile(0.975, 1) * (2.0f64 / 2.0).sqrt()).abs() < 1e-9);
        assert!(batch_means(&times, 5.0, 5.0, 10).is_err());
    }

    #[test]
    fn mesh_probes_measure_latency_plus_size_over_bandwidth() {
        // Raw network model: a lone message takes L + S / B (sim_core::network docs).
        let p = Arc::new(mesh_platform(&[1e9, 2e9, 1e9], &[1.0, 0.5, 1.0], 0.25, 1e6, "raw").unwrap());
        let (a, b, c) = (HostId(0), HostId(1), HostId(2));
        let d = run_probes(
            Arc::clone(&p),
            &[
                Probe::Message {
                    src: a,
                    dst: b,
                    bytes: 1000.0,
                },
                Probe::Message {
                    src: c,
                    dst: a,
                    bytes: 0.0,
                },
                Probe::Compute { host: b, flops: 1e9 },
                Probe::Compute { host: a, flops: 1e9 },
            ],
        )
        .unwrap();
        assert!((d[0] - (0.25 + 1e-3)).abs() < 1e-12, "{}", d[0]);
        assert!((d[1] - 0.25).abs() < 1e-12);
        // P2: 2e9 flop/s at availability 0.5 -> 1 s for 1e9 flops.
        assert!((d[2] - 1.0).abs() < 1e-12);
        assert!((d[3] - 1.0).abs() < 1e-12);
        assert_eq!(availability_at_start(&p, &[a, b, c]).unwrap(), vec![1.0, 0.5, 1.0]);
        assert!(mesh_platform(&[1e9], &[1.5], 0.1, 1e6, "raw").is_err());
    }
}
