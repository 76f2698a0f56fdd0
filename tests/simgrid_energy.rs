//! Host energy against SimGrid 3.32's host energy plugin: seeded random scenarios of execs at
//! several pstates, idle periods, pstate changes and hosts turned off and on, on SimGrid's own
//! `energy_platform.xml` and `energy_cluster.xml` and on `tests/data/energy/profiled.xml`
//! (speed and state profiles on powered hosts), run in gridsim (`gridsim::replay`) and in
//! SimGrid (`scripts/simgrid_energy_oracle.cpp`, our C++ program against `libsimgrid-dev`,
//! compiled here); every host's joules must agree to 1e-9 relative, and every completion date
//! and failure flag too. Closed forms check one host alone. Link energy likewise: seeded random
//! comms (contending on several links, through a SPLITDUPLEX and a FATPIPE link, with and
//! without cross traffic) on `tests/data/energy/links.xml` against SimGrid's link energy
//! plugin, per link, and a closed form for one flow on one link.
//!
//! Needs `g++` and SimGrid's C++ headers and library (run `scripts/test.sh`, which installs
//! `libsimgrid-dev`). Without them this test fails; it never skips.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use gridsim::replay::{self, ReplayOutput};

const TOLERANCE: f64 = 1e-9;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The oracle, compiled once per test binary into Cargo's temporary directory.
fn oracle() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let source = root().join("scripts/simgrid_energy_oracle.cpp");
        let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simgrid_energy_oracle");
        let out = Command::new("g++")
            .args(["-O1", "-std=c++17"])
            .arg(&source)
            .arg("-o")
            .arg(&binary)
            .arg("-lsimgrid")
            .output()
            .expect("g++ must exist to build the SimGrid energy oracle (apt-get install g++)");
        assert!(
            out.status.success(),
            "compiling {} failed (is libsimgrid-dev installed? scripts/test.sh installs it):\n{}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        binary
    })
}

fn simgrid(scenario: &Path) -> ReplayOutput {
    let out = Command::new(oracle()).arg(scenario).output().expect("the oracle runs");
    assert!(
        out.status.success(),
        "SimGrid energy oracle failed on {}:\n{}",
        scenario.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the oracle prints the result JSON")
}

fn gridsim(scenario: &Path) -> ReplayOutput {
    let (spec, platform) = replay::load(scenario).expect("scenario loads in gridsim");
    replay::run(&spec, platform).expect("scenario runs in gridsim")
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

/// Every difference between the two outputs beyond the tolerance; the worst energy difference.
fn compare(name: &str, ours: &ReplayOutput, theirs: &ReplayOutput, worst: &mut f64) -> Vec<String> {
    let mut problems = Vec::new();
    if ours.results.len() != theirs.results.len() {
        return vec![format!(
            "{name}: {} results vs SimGrid's {}",
            ours.results.len(),
            theirs.results.len()
        )];
    }
    for (a, b) in ours.results.iter().zip(&theirs.results) {
        let what = format!("{name} #{} ({})", a.index, a.kind);
        if a.failed != b.failed {
            problems.push(format!("{what}: failed={} but SimGrid failed={}", a.failed, b.failed));
        }
        match (a.finish, b.finish) {
            (Some(x), Some(y)) if rel(x, y) > TOLERANCE && (x - y).abs() > 1e-9 => {
                problems.push(format!("{what}: gridsim ends at {x}, SimGrid at {y}"))
            }
            (Some(_), Some(_)) => {}
            (x, y) => problems.push(format!("{what}: gridsim {x:?} vs SimGrid {y:?}")),
        }
    }
    let links = |o: &ReplayOutput| o.link_energy.iter().map(|e| e.link.clone()).collect::<Vec<_>>();
    if links(ours) != links(theirs) {
        problems.push(format!(
            "{name}: link energy of {:?}, SimGrid {:?}",
            links(ours),
            links(theirs)
        ));
    }
    for (a, b) in ours.link_energy.iter().zip(&theirs.link_energy) {
        let r = rel(a.joules, b.joules);
        *worst = worst.max(r);
        if r > TOLERANCE {
            problems.push(format!(
                "{name}: link {}: gridsim {} J, SimGrid {} J (relative {r:.2e})",
                a.link, a.joules, b.joules
            ));
        }
    }
    let hosts = |o: &ReplayOutput| o.energy.iter().map(|e| e.host.clone()).collect::<Vec<_>>();
    if hosts(ours) != hosts(theirs) {
        problems.push(format!(
            "{name}: energy of {:?}, SimGrid {:?}",
            hosts(ours),
            hosts(theirs)
        ));
        return problems;
    }
    for (a, b) in ours.energy.iter().zip(&theirs.energy) {
        let r = rel(a.joules, b.joules);
        *worst = worst.max(r);
        if r > TOLERANCE {
            problems.push(format!(
                "{name}: host {}: gridsim {} J, SimGrid {} J (relative {r:.2e})",
                a.host, a.joules, b.joules
            ));
        }
    }
    problems
}

/// splitmix64: a seeded stream of numbers, so every run makes the same scenarios.
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random scenario on `platform` (relative to `dir`): execs of 0.1 to 3 Gflop on random hosts
/// at random dates, pstate changes, and off/on pairs, over about 100 s; energies at 120 s.
fn random_scenario(seed: u64, platform: &str, hosts: &[(&str, usize)]) -> String {
    let mut n = Numbers(seed);
    let mut acts = Vec::new();
    for _ in 0..40 {
        let (host, pstates) = hosts[n.below(hosts.len())];
        let start = 100.0 * n.unit();
        let act = match n.below(10) {
            0..=5 => format!(
                r#"{{"kind": "exec", "host": "{host}", "flops": {:e}, "start": {start:?}}}"#,
                1e8 + 2.9e9 * n.unit()
            ),
            6 | 7 => format!(
                r#"{{"kind": "pstate", "host": "{host}", "pstate": {}, "start": {start:?}}}"#,
                n.below(pstates)
            ),
            _ => {
                let back = start + 20.0 * n.unit();
                acts.push(format!(r#"{{"kind": "off", "host": "{host}", "start": {start:?}}}"#));
                format!(r#"{{"kind": "on", "host": "{host}", "start": {back:?}}}"#)
            }
        };
        acts.push(act);
    }
    format!(
        "{{\"platform\": \"{platform}\", \"energy_at\": 120.0, \"activities\": [\n  {}\n]}}\n",
        acts.join(",\n  ")
    )
}

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simgrid_energy");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn random_scenarios_agree_with_simgrid_per_host() {
    let examples = root().join("tests/data/platforms/simgrid-examples");
    let profiled = root().join("tests/data/energy/profiled.xml");
    // Each host with its pstate count.
    let cases: [(PathBuf, &[(&str, usize)]); 3] = [
        (
            examples.join("energy_platform.xml"),
            &[("MyHost1", 3), ("MyHost2", 3), ("MyHost3", 3)],
        ),
        (examples.join("energy_cluster.xml"), &[("MyHost1", 3), ("MyHost2", 3)]),
        // Speed and state profiles on powered hosts, and a host without power properties.
        (profiled, &[("P1", 3), ("P2", 2), ("Plain", 1)]),
    ];
    let dir = scratch();
    let (mut problems, mut hosts, mut worst) = (Vec::new(), 0, 0.0f64);
    for (platform, names) in cases {
        let file = platform.file_name().unwrap().to_string_lossy().to_string();
        for seed in 1..=4u64 {
            let text = random_scenario(seed, &platform.display().to_string(), names);
            let path = dir.join(format!("{file}.{seed}.json"));
            std::fs::write(&path, text).unwrap();
            let (ours, theirs) = (gridsim(&path), simgrid(&path));
            assert!(!ours.energy.is_empty(), "{}: no energy reported", path.display());
            hosts += ours.energy.len();
            problems.extend(compare(&format!("{file} seed {seed}"), &ours, &theirs, &mut worst));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!("{hosts} host energies agree with SimGrid to {TOLERANCE:e}; worst relative difference {worst:.2e}");
}

/// The scenario under `tests/data/energy/`, with its closed form in its description.
fn data(name: &str) -> PathBuf {
    root().join("tests/data/energy").join(name)
}

fn joules(out: &ReplayOutput, host: &str) -> f64 {
    out.energy
        .iter()
        .find(|e| e.host == host)
        .expect("host reported")
        .joules
}

#[test]
fn one_core_host_closed_form() {
    // energy_boot.xml's MyHost2: 1 core, 100 Mf, "100.0:200.0" (epsilon = idle), off 10 W.
    // Two 1 Gflop execs from 0 share the core: both end at 20 s. A third of 0.5 Gflop from 30
    // ends at 35. Energy at 50 s: idle × time + (full − idle) × busy time
    //   = 100 × 50 + (200 − 100) × (20 + 5) = 7500 J.
    let path = data("one_core.json");
    let ours = gridsim(&path);
    let ends: Vec<f64> = ours.results.iter().map(|r| r.finish.unwrap()).collect();
    assert_eq!(ends, [20.0, 20.0, 35.0]);
    assert!(rel(joules(&ours, "MyHost2"), 7500.0) < 1e-12, "{:?}", ours.energy);
    let mut worst = 0.0;
    let problems = compare("one_core.json", &ours, &simgrid(&path), &mut worst);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn multi_core_host_closed_form() {
    // energy_cluster.xml's MyHost1: 4 cores, pstates 100/50/20 Mf,
    // "100.0:93.33333333333333:200.0, 93.0:90.0:170.0, 90.0:90.0:150.0", off 10 W.
    // [0, 10]: three 1 Gflop execs on three cores at 100 Mf, load 3/4:
    //          93.333… + 0.75 × 106.666… = 173.333… W → 1733.333… J.
    // [10, 20]: idle at pstate 0: 100 W → 1000 J.
    // pstate 2 from 20; [20, 30]: one 0.2 Gflop exec at 20 Mf, load 1/4:
    //          90 + 0.25 × 60 = 105 W → 1050 J.
    // [30, 32]: idle at pstate 2, 90 W → 180 J.  [32, 40]: off, 10 W → 80 J.
    // [40, 50]: on, pstate 2 idle, 90 W → 900 J.
    // Total 4943.333… J. MyHost2 stays idle at pstate 0 for 50 s: 5000 J.
    let path = data("multi_core.json");
    let ours = gridsim(&path);
    let ends: Vec<f64> = ours.results.iter().map(|r| r.finish.unwrap()).collect();
    assert_eq!(ends, [10.0, 10.0, 10.0, 20.0, 30.0, 32.0, 40.0]);
    assert!(
        rel(
            joules(&ours, "MyHost1"),
            1733.0 + 1.0 / 3.0 + 1000.0 + 1050.0 + 180.0 + 80.0 + 900.0
        ) < 1e-12
    );
    assert!(rel(joules(&ours, "MyHost2"), 5000.0) < 1e-12);
    let mut worst = 0.0;
    let problems = compare("multi_core.json", &ours, &simgrid(&path), &mut worst);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A random scenario of comms on `links.xml`: 30 transfers of 10 kB to 2 MB between random
/// pairs at random dates over about 20 s (so several share links at once), energies at 30 s.
fn random_comm_scenario(seed: u64, crosstraffic: bool) -> String {
    const HOSTS: [&str; 4] = ["A", "B", "C", "D"];
    let mut n = Numbers(seed);
    let mut acts = Vec::new();
    for _ in 0..30 {
        let src = n.below(4);
        let dst = (src + 1 + n.below(3)) % 4;
        let start = 20.0 * n.unit();
        let bytes = (1e4 + 2e6 * n.unit()).round();
        acts.push(format!(
            r#"{{"kind": "comm", "src": "{}", "dst": "{}", "bytes": {bytes:e}, "start": {start:?}}}"#,
            HOSTS[src], HOSTS[dst]
        ));
    }
    format!(
        "{{\"platform\": \"{}\", \"config\": {{\"network/crosstraffic\": \"{}\"}}, \"energy_at\": 30.0, \
         \"activities\": [\n  {}\n]}}\n",
        data("links.xml").display(),
        if crosstraffic { "yes" } else { "no" },
        acts.join(",\n  ")
    )
}

#[test]
fn random_comms_agree_with_simgrid_per_link() {
    let dir = scratch();
    let (mut problems, mut links, mut worst) = (Vec::new(), 0, 0.0f64);
    for seed in 1..=6u64 {
        for crosstraffic in [true, false] {
            let path = dir.join(format!("links.{seed}.{crosstraffic}.json"));
            std::fs::write(&path, random_comm_scenario(seed, crosstraffic)).unwrap();
            let (ours, theirs) = (gridsim(&path), simgrid(&path));
            // backbone, fat, la and lb; the SPLITDUPLEX link and lc have no wattage_range.
            assert_eq!(ours.link_energy.len(), 4, "{}", path.display());
            links += ours.link_energy.len();
            let name = format!("links.xml seed {seed} crosstraffic {crosstraffic}");
            problems.extend(compare(&name, &ours, &theirs, &mut worst));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!("{links} link energies agree with SimGrid to {TOLERANCE:e}; worst relative difference {worst:.2e}");
}

fn link_joules(out: &ReplayOutput, link: &str) -> f64 {
    out.link_energy
        .iter()
        .find(|e| e.link == link)
        .expect("link reported")
        .joules
}

#[test]
fn one_flow_on_one_link_closed_form() {
    // one_link.xml: link "l", 1 MBps, latency 0, "1:3" (energy_platform.xml's test values).
    // LV08 without cross traffic: one 1e6-byte comm from 1 s runs at the full 1e6 B/s (the
    // bandwidth factor 0.97 counts its work as 1e6 / 0.97 bytes), so it ends at
    // T1 = 1 + 1 / 0.97 and the link is fully used meanwhile. Energy at 10 s:
    // idle × 10 + (busy − idle) × (T1 − 1) = 10 + 2 / 0.97 J.
    let path = data("one_link.json");
    let ours = gridsim(&path);
    assert_eq!(ours.results[0].finish, Some(1.0 + 1.0 / 0.97));
    let expected = 10.0 + 2.0 / 0.97;
    assert!(rel(link_joules(&ours, "l"), expected) < 1e-12, "{:?}", ours.link_energy);
    let mut worst = 0.0;
    let problems = compare("one_link.json", &ours, &simgrid(&path), &mut worst);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn failed_comms_count_as_simgrid_counts_them() {
    // one_link.xml ("1:3", 1 MBps, latency 0), no cross traffic. The plugin adds, at each
    // update, the power drawn then times the time since the last one; a failed comm updates
    // its links with the comm still on them.
    //   [0, 1]     idle until the first comm starts:               1 W × 1 s   = 1 J
    //   [1, 1.5]   it runs alone (usage = bandwidth, 3 W); B turns
    //              off at 1.5 and fails it, updating with it on:    3 W × 0.5 s = 1.5 J
    //   [1.5, 3.5] the next comm's start finds the link empty:      1 W × 2 s   = 2 J
    //   [3.5, 4]   it runs alone; the reverse comm's start at 4:    3 W × 0.5 s = 1.5 J
    //   [4, 4.2]   both share the link (usage = bandwidth); A turns
    //              off at 4.2 and fails both:                       3 W × 0.2 s = 0.6 J
    //   [4.2, 10]  idle until the reading:                          1 W × 5.8 s = 5.8 J
    // Total 12.4 J.
    let path = data("one_link_failures.json");
    let ours = gridsim(&path);
    assert!(rel(link_joules(&ours, "l"), 12.4) < 1e-12, "{:?}", ours.link_energy);
    let mut worst = 0.0;
    let problems = compare("one_link_failures.json", &ours, &simgrid(&path), &mut worst);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
