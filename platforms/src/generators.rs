//! Synthetic platforms: random heterogeneous grids, homogeneous clusters, and SimGrid's torus,
//! fat-tree and dragonfly clusters.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sim_core::platform::{Host, NetPoint, Platform, ZoneRouting};

use crate::builder::{Builder, ClusterSpec, LinkPolicy, LinkProfiles};

/// Invalid generator parameters.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid generator parameter: {message}")]
pub struct GeneratorError {
    /// The generator's parameter at fault (its Rust name: `hosts`, `speed_flops`, `bw`, ...),
    /// when one is.
    pub parameter: Option<&'static str>,
    /// For a `(low, high)` range: true when the high end is at fault (not finite), false when
    /// the low end or the order is.
    pub upper: bool,
    /// What is wrong.
    pub message: String,
}

impl GeneratorError {
    fn about(parameter: &'static str, message: String) -> GeneratorError {
        GeneratorError {
            parameter: Some(parameter),
            upper: false,
            message,
        }
    }

    /// A failure of the platform builder (no parameter to blame).
    fn build(message: impl ToString) -> GeneratorError {
        GeneratorError {
            parameter: None,
            upper: false,
            message: message.to_string(),
        }
    }
}

/// Parameters of [`random_grid`]. Ranges are inclusive `(low, high)` and sampled uniformly.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomGridParams {
    /// Number of hosts (at least 1).
    pub hosts: usize,
    /// Host speed range, flop/s.
    pub speed_flops: (f64, f64),
    /// Cores per host.
    pub cores: u32,
    /// Link bandwidth range, bytes/s.
    pub bandwidth: (f64, f64),
    /// Link latency range, seconds.
    pub latency: (f64, f64),
    /// Links added on top of the random spanning tree (creating alternative paths).
    pub extra_links: usize,
}

impl Default for RandomGridParams {
    /// 20 hosts in the ranges of SimGrid's classic 90-host grid (22–172 Mflop/s, 0.25–255 MB/s,
    /// 20 µs–35 ms), 10 extra links.
    fn default() -> Self {
        RandomGridParams {
            hosts: 20,
            speed_flops: (22.151e6, 171.667e6),
            cores: 1,
            bandwidth: (251.6e3, 255.2e6),
            latency: (19.8e-6, 35.1e-3),
            extra_links: 10,
        }
    }
}

fn check_range(name: &'static str, (lo, hi): (f64, f64), allow_zero: bool) -> Result<(), GeneratorError> {
    let ok_low = if allow_zero { lo >= 0.0 } else { lo > 0.0 };
    if !(ok_low && lo <= hi && hi.is_finite()) {
        return Err(GeneratorError {
            upper: !hi.is_finite(),
            ..GeneratorError::about(name, format!("{name} range ({lo}, {hi})"))
        });
    }
    Ok(())
}

fn sample(rng: &mut ChaCha8Rng, (lo, hi): (f64, f64)) -> f64 {
    lo + (hi - lo) * rng.gen::<f64>()
}

/// A random heterogeneous grid, identical for identical `(params, seed)`.
///
/// Hosts `host-0..` get speeds drawn uniformly from `speed_flops`. Host `i > 0` is linked to a
/// uniformly drawn earlier host (a random tree, so the grid is connected), then `extra_links`
/// more links join random pairs not yet linked. Each link `link-k` (SHARED) draws its bandwidth
/// and latency uniformly. Each link is a symmetrical route between its two hosts in a Dijkstra
/// zone, so the route between any two hosts is a path with the fewest links, ties broken as
/// SimGrid's Dijkstra routing does (SimGrid XML's `routing="Dijkstra"`). Routes come from
/// distance arrays the zone caches per source or destination host, so the routes between one
/// host and all others cost a few searches over the grid, not one each.
pub fn random_grid(params: &RandomGridParams, seed: u64) -> Result<Platform, GeneratorError> {
    if params.hosts == 0 {
        return Err(GeneratorError::about("hosts", "hosts must be at least 1".into()));
    }
    if params.cores == 0 {
        return Err(GeneratorError::about("cores", "cores must be at least 1".into()));
    }
    check_range("speed_flops", params.speed_flops, false)?;
    check_range("bandwidth", params.bandwidth, false)?;
    check_range("latency", params.latency, true)?;
    let n = params.hosts;
    let max_links = n * (n - 1) / 2;
    if n - 1 + params.extra_links > max_links {
        return Err(GeneratorError::about(
            "extra_links",
            format!("{} extra links do not fit between {n} hosts", params.extra_links),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut b = Builder::new();
    let root = b
        .configure_root("grid", ZoneRouting::Dijkstra)
        .map_err(GeneratorError::build)?;
    let mut hosts = Vec::with_capacity(n);
    for i in 0..n {
        let mut host = Host::new(format!("host-{i}"), sample(&mut rng, params.speed_flops));
        host.cores = params.cores;
        hosts.push(b.add_host(root, host).map_err(GeneratorError::build)?);
    }
    let mut pairs: Vec<(usize, usize)> = (1..n).map(|i| (rng.gen_range(0..i), i)).collect();
    let mut linked: std::collections::BTreeSet<(usize, usize)> = pairs.iter().copied().collect();
    while pairs.len() < n - 1 + params.extra_links {
        let a = rng.gen_range(0..n);
        let c = rng.gen_range(0..n);
        let pair = (a.min(c), a.max(c));
        if a != c && linked.insert(pair) {
            pairs.push(pair);
        }
    }
    for (k, &(a, c)) in pairs.iter().enumerate() {
        let bw = sample(&mut rng, params.bandwidth);
        let lat = sample(&mut rng, params.latency);
        let (link, _) = b
            .add_link(
                &format!("link-{k}"),
                bw,
                lat,
                LinkPolicy::Shared,
                LinkProfiles::default(),
            )
            .map_err(GeneratorError::build)?;
        b.add_route(
            root,
            NetPoint::Host(hosts[a]),
            NetPoint::Host(hosts[c]),
            vec![link],
            None,
            true,
        )
        .map_err(GeneratorError::build)?;
    }
    Ok(b.finish())
}

/// A homogeneous cluster of `n` hosts `node-0..node-{n-1}` (one core each), exactly SimGrid's
/// `<cluster id="cluster" prefix="node-" suffix="" radical="0-{n-1}" speed=.. bw=.. lat=..
/// bb_bw=.. bb_lat=../>`: private SPLITDUPLEX links `cluster_link_<i>_UP/_DOWN` (`bw`
/// bytes/s, `lat` s), a SHARED backbone `cluster_backbone` (`bb_bw`, `bb_lat`), routes
/// `up(src), backbone, down(dst)` computed on demand. Issue 5's cluster is
/// `homogeneous_cluster(1000, 1e9, 125e6, 50e-6, 2.25e9, 500e-6)`.
///
/// Bit-exactness with a SimGrid XML file: SimGrid reads `lat="50us"` as `50.0 * 1e-6`
/// (= 4.9999999999999996e-05), not as the literal `50e-6`; pass
/// [`crate::units::parse_time`]`("50us")` to get the same latency bits.
pub fn homogeneous_cluster(
    n: usize,
    speed: f64,
    bw: f64,
    lat: f64,
    bb_bw: f64,
    bb_lat: f64,
) -> Result<Platform, GeneratorError> {
    if n == 0 {
        return Err(GeneratorError::about("n", "a cluster needs at least one host".into()));
    }
    for (name, v, zero_ok) in [
        ("speed", speed, false),
        ("bw", bw, false),
        ("bb_bw", bb_bw, false),
        ("lat", lat, true),
        ("bb_lat", bb_lat, true),
    ] {
        if !(v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0))) {
            return Err(GeneratorError::about(name, format!("{name} = {v}")));
        }
    }
    let mut b = Builder::new();
    let zone = b
        .configure_root("cluster", ZoneRouting::Star)
        .map_err(GeneratorError::build)?;
    let spec = ClusterSpec {
        id: "cluster".into(),
        prefix: "node-".into(),
        suffix: String::new(),
        radicals: (0..n as i64).collect(),
        speed,
        cores: 1,
        bw,
        lat,
        policy: LinkPolicy::SplitDuplex,
        backbone: Some((bb_bw, bb_lat, LinkPolicy::Shared)),
        loopback: None,
        limiter: None,
        router: None,
    };
    b.fill_cluster(zone, &spec).map_err(|(_, e)| GeneratorError::build(e))?;
    Ok(b.finish())
}

/// Parameters of [`topology_cluster`]: the attributes of a SimGrid
/// `<cluster topology=... topo_parameters=...>`.
#[derive(Clone, Debug, PartialEq)]
pub struct TopologyClusterParams {
    /// `TORUS`, `FAT_TREE` or `DRAGONFLY`.
    pub topology: String,
    /// SimGrid's `topo_parameters` (`"2;4,4;1,2;1,2"` for a fat tree).
    pub parameters: String,
    /// Host speed, flop/s.
    pub speed: f64,
    /// Cores per host.
    pub cores: u32,
    /// Bandwidth of each topology link, bytes/s (times the link count for dragonfly links).
    pub bw: f64,
    /// Latency of each topology link, s.
    pub lat: f64,
    /// SPLITDUPLEX links (`_UP` and `_DOWN`, the default) rather than one SHARED link each.
    pub split: bool,
    /// Loopback bandwidth (bytes/s) and latency (s) of each host.
    pub loopback: Option<(f64, f64)>,
    /// Limiter bandwidth of each host, switch and router, bytes/s.
    pub limiter: Option<f64>,
}

/// A torus, fat tree or dragonfly of hosts `node-0..node-{n-1}`, exactly SimGrid's
/// `<cluster id="cluster" prefix="node-" suffix="" radical="0-{n-1}" topology=..
/// topo_parameters=.. speed=.. bw=.. lat=..>` as the root zone, `n` the topology's host count:
/// built by the same code as that XML cluster ([`crate::topology`]), so the links and routes
/// are SimGrid 3.32's.
pub fn topology_cluster(p: &TopologyClusterParams) -> Result<Platform, GeneratorError> {
    use crate::topology::{fill_zone, ClusterLinks, Counters, Topology};
    let topology = Topology::parse(&p.topology, &p.parameters)
        .map_err(|m| GeneratorError::about("topo_parameters", format!("{} \"{}\": {m}", p.topology, p.parameters)))?;
    if p.cores == 0 {
        return Err(GeneratorError::about("cores", "cores must be at least 1".into()));
    }
    let (loopback_bw, loopback_lat) = p.loopback.map_or((None, None), |(b, l)| (Some(b), Some(l)));
    for (name, v, zero_ok) in [
        ("speed", Some(p.speed), false),
        ("bw", Some(p.bw), false),
        ("lat", Some(p.lat), true),
        ("loopback_bw", loopback_bw, false),
        ("loopback_lat", loopback_lat, true),
        ("limiter", p.limiter, false),
    ] {
        let Some(v) = v else { continue };
        if !(v.is_finite() && (v > 0.0 || (zero_ok && v == 0.0))) {
            return Err(GeneratorError::about(name, format!("{name} = {v}")));
        }
    }
    let n = topology.hosts();
    let links = ClusterLinks {
        id: "cluster".into(),
        radicals: (0..n as i64).collect(),
        bandwidth: p.bw,
        latency: p.lat,
        split: p.split,
        loopback: p.loopback,
        limiter: p.limiter,
    };
    let layout = topology
        .layout(&links, &mut Counters::default())
        .map_err(|m| GeneratorError::about("topo_parameters", m))?;
    let mut b = Builder::new();
    let zone = b
        .configure_root("cluster", ZoneRouting::Full)
        .map_err(GeneratorError::build)?;
    let hosts = (0..n)
        .map(|i| {
            let mut h = Host::new(format!("node-{i}"), p.speed);
            h.cores = p.cores;
            h
        })
        .collect();
    fill_zone(&mut b, zone, hosts, &layout).map_err(|(_, e)| GeneratorError::build(e))?;
    Ok(b.finish())
}
