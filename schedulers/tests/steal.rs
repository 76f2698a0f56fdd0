//! The work-stealing runtime on the engine: GUM's protocol rules, conservation of work over
//! random programs, policies and platforms, and closed forms.

use std::collections::BTreeMap;
use std::sync::Arc;

use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use schedulers::steal::policy::{Answer, Fish, FishTarget, PeView, StealPolicy};
use schedulers::steal::program::{Node, Program};
use schedulers::steal::runtime::{exportable_sparks, MessageKind};
use schedulers::steal::{self, registry, StealConfig, StealOutcome, StealRuntime};
use sim_core::platform::{Host, HostId, Link, Platform};
use sim_core::{Engine, NetworkParams};

/// Fully connected PEs with these speeds, each pair over one link of its own.
fn mesh(speeds: &[f64], bandwidth: f64, latency: f64) -> (Platform, Vec<HostId>) {
    let mut p = Platform::new();
    let hosts: Vec<HostId> = speeds
        .iter()
        .enumerate()
        .map(|(i, &s)| p.add_host(Host::new(format!("pe{i}"), s)).unwrap())
        .collect();
    for i in 0..hosts.len() {
        for j in 0..hosts.len() {
            if i < j {
                let l = p.add_link(Link::new(format!("l{i}-{j}"), bandwidth, latency)).unwrap();
                p.routing.add_route(hosts[i], hosts[j], vec![l]);
                p.routing.add_route(hosts[j], hosts[i], vec![l]);
            }
        }
    }
    (p, hosts)
}

fn leaf(flops: f64) -> Node {
    Node {
        own_flops: flops,
        combine_flops: 0.0,
        children: vec![],
        graph_bytes: 200.0,
        result_bytes: 16.0,
        reads: vec![],
    }
}

/// A root with `n` equal independent sparks of `flops` each (a data-parallel `parList`).
fn flat(n: usize, flops: f64) -> Program {
    let mut root = leaf(0.0);
    root.children = (1..=n as u32).collect();
    let mut nodes = vec![root];
    nodes.extend((0..n).map(|_| leaf(flops)));
    Program {
        name: "flat".into(),
        nodes,
        data: vec![],
    }
}

fn simulate(
    platform: Platform,
    hosts: &[HostId],
    program: Program,
    config: StealConfig,
    policies: Vec<Box<dyn StealPolicy>>,
    raw: bool,
    seed: u64,
) -> StealOutcome {
    let platform = Arc::new(platform);
    let engine = if raw {
        Engine::with_params(platform, NetworkParams::raw())
    } else {
        Engine::new(platform).unwrap()
    };
    let clusters = vec![0; hosts.len()];
    let runtime = StealRuntime::new(&engine, program, config, hosts, clusters, policies, seed).unwrap();
    steal::run(engine, runtime).unwrap().0
}

fn policies(name: &str, pes: usize) -> Vec<Box<dyn StealPolicy>> {
    registry::build(name, &BTreeMap::new(), pes).unwrap()
}

#[test]
fn one_pe_runs_the_program_in_its_work_over_its_speed() {
    // Closed form: on one PE nothing is exported, no message is sent, and the time slices
    // only interleave the work: runtime = total flops / speed.
    let (platform, hosts) = mesh(&[1.395e9], 1e9, 1e-4);
    let mut program = flat(50, 2.79e9);
    program.nodes[0].own_flops = 1e8;
    program.nodes[0].combine_flops = 3e7;
    let total = program.total_flops();
    let out = simulate(
        platform,
        &hosts,
        program,
        StealConfig::default(),
        policies("grid-gum", 1),
        false,
        1,
    );
    let expected = total / 1.395e9;
    assert!(
        (out.runtime_s - expected).abs() <= 1e-9 * expected,
        "{} vs {expected}",
        out.runtime_s
    );
    assert_eq!(out.messages.iter().sum::<u64>(), 0);
    assert_eq!(
        out.pes[0].sparks_subsumed, 50,
        "every spark is evaluated inline by the main thread"
    );
}

#[test]
fn equal_pes_with_many_equal_sparks_and_no_latency_approach_the_ideal() {
    // Closed form: P equal PEs, 400 equal independent sparks, free messages: the runtime tends
    // to total / (P · speed).
    for name in ["grid-gum", "grid-gum2", "satin-crs"] {
        let p = 4;
        let (platform, hosts) = mesh(&vec![1e9; p], 1e15, 0.0);
        let program = flat(400, 1e9);
        let ideal = program.total_flops() / (p as f64 * 1e9);
        let config = StealConfig {
            message_flops: 0.0,
            pack_flops_per_word: 0.0,
            unpack_flops_per_word: 0.0,
            thread_create_flops: 0.0,
            fish_delay_s: 1e-6,
            ..StealConfig::default()
        };
        let out = simulate(platform, &hosts, program, config, policies(name, p), true, 7);
        assert!(
            out.runtime_s >= ideal * (1.0 - 1e-9) && out.runtime_s <= ideal * 1.03,
            "{name}: {} vs ideal {ideal}",
            out.runtime_s
        );
    }
}

/// PE 1 fishes PE 2 whenever idle; PEs 2 and 3 forward to each other, never to the fisher, so
/// only the hop limit sends a FISH home. PE 0 runs the program and takes no part (a busy PE
/// would hold each FISH until the end of its time slice).
struct Ring;

impl StealPolicy for Ring {
    fn fish(&mut self, view: &PeView<'_>, _rng: &mut ChaCha8Rng) -> Vec<FishTarget> {
        if view.me == 1 && view.idle && view.outstanding == [0, 0] {
            vec![FishTarget { to: 2, wide: false }]
        } else {
            Vec::new()
        }
    }
    fn answer(&mut self, view: &PeView<'_>, _fish: &Fish, _rng: &mut ChaCha8Rng) -> Answer {
        Answer::Forward(if view.me == 2 { 3 } else { 2 })
    }
}

fn ring_run(hop_limit: u32, fish_delay_s: f64) -> StealOutcome {
    let (platform, hosts) = mesh(&[1e9, 1e9, 1e9, 1e9], 1e9, 1e-5);
    // One second of work on PE 0 and no spark: every FISH fails.
    let program = Program {
        name: "one".into(),
        nodes: vec![leaf(1e9)],
        data: vec![],
    };
    let config = StealConfig {
        hop_limit,
        fish_delay_s,
        startup_exchange: false,
        ..StealConfig::default()
    };
    let policies: Vec<Box<dyn StealPolicy>> = (0..4).map(|_| Box::new(Ring) as Box<dyn StealPolicy>).collect();
    simulate(platform, &hosts, program, config, policies, false, 3)
}

#[test]
fn a_fish_is_forwarded_at_most_hop_limit_times_then_returns_home() {
    for hop_limit in [10, 3, 0] {
        let out = ring_run(hop_limit, 0.1);
        let fisher = &out.pes[1];
        assert!(fisher.fishes_failed >= 5, "{fisher:?}");
        // Each FISH: the first send, `hop_limit` forwards, the trip home.
        let per_fish = hop_limit as u64 + 2;
        let fish_messages = out.messages[MessageKind::Fish as usize];
        assert!(fish_messages >= per_fish * fisher.fishes_failed, "{fish_messages}");
        assert!(fish_messages <= per_fish * fisher.fishes_sent, "{fish_messages}");
    }
}

#[test]
fn the_fish_delay_spaces_the_fishes_of_an_idle_pe() {
    // A FISH round trip takes ~12 × (10 µs + 0.14 ms of handling) here; the delay dominates: over 1 s with a 0.1 s
    // delay PE 1 sends about 10 FISHes, never more than 1 + 1 s / 0.1 s.
    let out = ring_run(10, 0.1);
    assert!((9..=11).contains(&out.pes[1].fishes_sent), "{:?}", out.pes[1]);
    let fast = ring_run(10, 0.001);
    assert!(fast.pes[1].fishes_sent > 100, "{:?}", fast.pes[1]);
}

#[test]
fn grid_gum_sends_one_spark_per_schedule() {
    let (platform, hosts) = mesh(&[1e9, 5e8, 1e9, 5e8], 1e8, 1e-4);
    let out = simulate(
        platform,
        &hosts,
        flat(200, 1e8),
        StealConfig::default(),
        policies("grid-gum", 4),
        false,
        5,
    );
    let schedules = out.messages[MessageKind::Schedule as usize];
    let exported: u64 = out.pes.iter().map(|p| p.sparks_exported).sum();
    assert!(schedules > 20);
    assert_eq!(exported, schedules);
    // Every SCHEDULE and every RESUME between two PEs is acknowledged.
    let resumes = out.messages[MessageKind::Resume as usize];
    assert_eq!(out.messages[MessageKind::Ack as usize], schedules + resumes);
}

#[test]
fn super_schedule_sends_several_sparks_to_a_faster_remote_fisher() {
    // PE 0 holds the sparks; PE 1 is near (0.1 ms) and as fast, PE 2 far (10 ms) and 4x faster:
    // PE 2's FISHes are answered with up to 4 sparks, PE 1's with one.
    let mut p = Platform::new();
    let hosts: Vec<HostId> = [1e9, 1e9, 4e9]
        .iter()
        .enumerate()
        .map(|(i, &s)| p.add_host(Host::new(format!("pe{i}"), s)).unwrap())
        .collect();
    for (i, j, latency) in [(0, 1, 1e-4), (0, 2, 1e-2), (1, 2, 1e-2)] {
        let l = p.add_link(Link::new(format!("l{i}-{j}"), 1e8, latency)).unwrap();
        p.routing.add_route(hosts[i], hosts[j], vec![l]);
        p.routing.add_route(hosts[j], hosts[i], vec![l]);
    }
    let run = |super_schedule: f64| {
        let mut params = BTreeMap::new();
        params.insert("super_schedule".to_string(), super_schedule);
        let built = registry::build("grid-gum2", &params, 3).unwrap();
        simulate(
            p.clone(),
            &hosts,
            flat(300, 1e8),
            StealConfig::default(),
            built,
            false,
            5,
        )
    };
    let out = run(8.0);
    let schedules = out.messages[MessageKind::Schedule as usize];
    let exported: u64 = out.pes.iter().map(|p| p.sparks_exported).sum();
    assert!(exported > schedules, "{exported} sparks in {schedules} SCHEDULEs");
    assert!(out.pes[2].sparks_received > out.pes[1].sparks_received, "{:?}", out.pes);
    let off = run(0.0);
    let exported: u64 = off.pes.iter().map(|p| p.sparks_exported).sum();
    assert_eq!(exported, off.messages[MessageKind::Schedule as usize]);
}

#[test]
fn an_idle_pe_keeps_its_only_spark() {
    assert_eq!(exportable_sparks(true, 1), 0);
    assert_eq!(exportable_sparks(true, 0), 0);
    assert_eq!(exportable_sparks(true, 3), 3);
    assert_eq!(exportable_sparks(false, 1), 1);
}

#[test]
fn the_thread_limit_counts_blocked_threads() {
    // Two PEs; the main thread evaluates spark 1 inline while PE 1 steals spark 2, then blocks
    // on spark 2. With a limit of one live thread counting the main thread, PE 0 neither
    // activates spark 3.. nor fishes while blocked: it only ever runs the main thread.
    let run = |limit: usize, limit_counts_main: bool| {
        let (platform, hosts) = mesh(&[1e9, 1e9], 1e8, 1e-4);
        let config = StealConfig {
            thread_limit: limit,
            limit_counts_main,
            ..StealConfig::default()
        };
        simulate(
            platform,
            &hosts,
            flat(40, 1e9),
            config,
            policies("grid-gum", 2),
            false,
            11,
        )
    };
    let limited = run(1, true);
    assert_eq!(limited.pes[0].threads, 1, "{:?}", limited.pes[0]);
    assert_eq!(limited.pes[0].fishes_sent, 0);
    assert!(limited.pes[0].blocked_s > 0.0, "{:?}", limited.pes[0]);
    // GUM's reading: the main thread is not an advisory thread, so PE 0 runs sparks beside it
    // (one at a time), and still never fishes while one is live.
    let advisory = run(1, false);
    assert!(advisory.pes[0].threads > 1, "{:?}", advisory.pes[0]);
    let free = run(1024, true);
    assert!(free.pes[0].threads > 1, "{:?}", free.pes[0]);
}

#[test]
fn exported_sparks_are_fetched_and_blocked_demanders_resume() {
    let (platform, hosts) = mesh(&[1e9, 1e9, 1e9], 1e8, 1e-4);
    let out = simulate(
        platform,
        &hosts,
        flat(60, 5e8),
        StealConfig::default(),
        policies("grid-gum", 3),
        false,
        2,
    );
    let fetches = out.messages[MessageKind::Fetch as usize];
    let resumes = out.messages[MessageKind::Resume as usize];
    assert!(fetches > 0);
    // A FETCH may be forwarded along the spark's path, but each exported spark the main thread
    // demands is resumed exactly once.
    let exported: u64 = out.pes.iter().map(|p| p.sparks_exported).sum();
    assert!(
        resumes <= exported && resumes > 0,
        "{resumes} resumes, {exported} exported"
    );
    assert!(out.evaluations.iter().all(|&e| e == 1));
}

/// A random spark tree: each node gets 0..=4 children while there is room.
fn random_tree(seed: u64, size: usize) -> Program {
    use rand::{Rng, SeedableRng};
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut nodes = vec![leaf(rng.gen_range(0.0..1e8))];
    let mut frontier = vec![0usize];
    while let Some(n) = frontier.pop() {
        let k = rng.gen_range(0..=4usize).min(size.saturating_sub(nodes.len()));
        for _ in 0..k {
            let id = nodes.len();
            let mut child = leaf(rng.gen_range(0.0..3e8));
            child.combine_flops = rng.gen_range(0.0..1e7);
            child.result_bytes = rng.gen_range(0.0..1e5);
            nodes.push(child);
            nodes[n].children.push(id as u32);
            frontier.insert(0, id);
        }
    }
    Program {
        name: "random".into(),
        nodes,
        data: vec![],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Conservation: every node's work is done exactly once, on one PE, whatever the program,
    /// policy, thread limit, platform and seed; and no run beats the platform's total speed.
    #[test]
    fn every_spark_is_evaluated_exactly_once(
        tree_seed in 0u64..1000,
        size in 1usize..120,
        pes in 1usize..6,
        policy in 0usize..3,
        limit in prop::sample::select(vec![1usize, 2, 1024]),
        latency in prop::sample::select(vec![0.0, 1e-4, 1e-2]),
        seed in 0u64..1000,
    ) {
        let speeds: Vec<f64> = (0..pes).map(|i| if i % 2 == 0 { 1.395e9 } else { 5.34e8 }).collect();
        let (platform, hosts) = mesh(&speeds, 1e8, latency);
        let program = random_tree(tree_seed, size);
        let total = program.total_flops();
        let n = program.nodes.len();
        let name = ["grid-gum", "grid-gum2", "satin-crs"][policy];
        let config = StealConfig { thread_limit: limit, ..StealConfig::default() };
        let out = simulate(platform, &hosts, program, config, policies(name, pes), false, seed);
        prop_assert_eq!(out.evaluations.len(), n);
        prop_assert!(out.evaluations.iter().all(|&e| e == 1), "{:?}", out.evaluations);
        let done: f64 = out.pes.iter().map(|p| p.work_flops).sum();
        prop_assert!((done - total).abs() <= 1e-9 * total.max(1.0), "{} vs {}", done, total);
        let fastest_possible = total / speeds.iter().sum::<f64>();
        prop_assert!(out.runtime_s >= fastest_possible * (1.0 - 1e-9));
        for pe in &out.pes {
            let accounted = pe.busy_s + pe.blocked_s + pe.idle_s;
            prop_assert!((accounted - out.runtime_s).abs() <= 1e-6 * out.runtime_s.max(1.0));
        }
    }
}

/// Two PEs of 1e9 flop/s joined by a 1 ms link fast enough that sizes do not matter (1e12 B/s),
/// slices of 0.1 s, free messages and no overheads, no startup exchange; PE 1 may hold one
/// thread, so it fishes only while it has none. The root sparks a (0.5 s) and b (1 s, reads the
/// 1500-byte input D); it evaluates a itself while PE 1's first FISH takes b.
fn two_pe_fetch_run(pack_buffer_words: f64) -> StealOutcome {
    two_pe_fetch_run_with(pack_buffer_words, |_| {})
}

/// [`two_pe_fetch_run`] with the configuration changed by `change`.
fn two_pe_fetch_run_with(pack_buffer_words: f64, change: impl Fn(&mut StealConfig)) -> StealOutcome {
    use schedulers::steal::program::Datum;
    let (platform, hosts) = mesh(&[1e9, 1e9], 1e12, 1e-3);
    let mut root = leaf(0.0);
    root.children = vec![1, 2];
    let a = leaf(0.5e9);
    let mut b = leaf(1e9);
    b.reads = vec![0];
    let program = Program {
        name: "fetch".into(),
        nodes: vec![root, a, b],
        data: vec![Datum {
            bytes: 1500.0,
            producer: 0,
        }],
    };
    let mut config = StealConfig {
        thread_limit: 1,
        time_slice_s: 0.1,
        fish_delay_s: 1e3,
        message_flops: 0.0,
        pack_flops_per_word: 0.0,
        unpack_flops_per_word: 0.0,
        thread_create_flops: 0.0,
        pack_buffer_words,
        startup_exchange: false,
        ..StealConfig::default()
    };
    change(&mut config);
    simulate(platform, &hosts, program, config, policies("grid-gum", 2), true, 1)
}

#[test]
fn packing_unpacking_and_thread_creation_are_charged_per_word_and_per_thread() {
    // The run of the FETCH_ME test with 1e3 flops per packed and per unpacked word (4-byte
    // words) and 1e6 flops per thread. PE 0 packs b's SCHEDULE (200-byte closure + a 16-byte
    // FETCH_ME = 54 words) and D's two packets (1500 bytes = 375 words), and unpacks b's value
    // (16 bytes = 4 words); PE 1 unpacks the same 429 words, packs the 4-word value and creates
    // b's thread. None of it is the program's work.
    let out = two_pe_fetch_run_with(256.0, |c| {
        c.pack_flops_per_word = 1e3;
        c.unpack_flops_per_word = 1e3;
        c.thread_create_flops = 1e6;
    });
    let expected = [433e3, 433e3 + 1e6];
    for (pe, want) in out.pes.iter().zip(expected) {
        assert!((pe.overhead_flops - want).abs() < 1e-6, "{pe:?}");
    }
    let work: f64 = out.pes.iter().map(|p| p.work_flops).sum();
    assert_eq!(work, 1.5e9);
    // The overheads take CPU time: the run ends later than without them (1.302 s).
    assert!(out.runtime_s > 1.302 + 1e-4, "{}", out.runtime_s);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-7
}

#[test]
fn a_thread_reading_a_fetch_me_blocks_exactly_until_its_resume() {
    // 256 words = 1024 bytes: b's SCHEDULE carries its closure and a FETCH_ME for D, which comes
    // in two packets. PE 0 runs a and sees messages only at its slice ends (0.1, 0.2, ...):
    //   0.000 PE 1 FISHes; 0.100 PE 0 sends b; 0.101 b starts on PE 1, FETCH 1 (PE 0 at 0.102);
    //   0.200 PE 0 sends packet 1; 0.201 b runs again, FETCH 2; 0.300 packet 2; 0.301 b has D
    //   and starts its 1 s of work; 1.301 b is done.
    let out = two_pe_fetch_run(256.0);
    assert_eq!(out.pes[1].data_fetches, 2, "{:?}", out.pes[1]);
    // b's thread was blocked, and PE 1 had nothing else, from 0.101 to 0.301.
    assert!(close(out.pes[1].blocked_s, 0.2), "{:?}", out.pes[1]);
    // The root's value FETCH waited for b (below); its RESUME leaves at 1.301, arrives at 1.302.
    assert!(close(out.runtime_s, 1.302), "{}", out.runtime_s);
    assert!(out.evaluations.iter().all(|&e| e == 1));
}

#[test]
fn a_fetch_for_a_value_under_evaluation_waits_for_the_evaluation() {
    // Without the data fetches b starts at 0.101 and ends at 1.101. The root finishes a at 0.5
    // and FETCHes b's value; PE 1 sees the FETCH at its slice end 0.601, while b still runs, and
    // keeps it until b is done: the RESUME leaves at 1.101 and the program ends at 1.102. PE 0
    // holds only the blocked main thread from 0.5 on.
    let out = two_pe_fetch_run(1e6);
    assert!(close(out.runtime_s, 1.102), "{}", out.runtime_s);
    assert!(close(out.pes[0].blocked_s, 1.102 - 0.5), "{:?}", out.pes[0]);
    assert_eq!(out.messages[MessageKind::Fetch as usize], 1);
    assert_eq!(out.messages[MessageKind::Resume as usize], 1);
}

/// `n` sparks of 0.1 s on PE 0's speed, each reading the root's input of `bytes`.
fn flat_reading(n: usize, bytes: f64) -> Program {
    use schedulers::steal::program::Datum;
    let mut program = flat(n, 1e8);
    for node in &mut program.nodes[1..] {
        node.reads = vec![0];
    }
    program.data = vec![Datum { bytes, producer: 0 }];
    program
}

#[test]
fn data_within_the_packet_limit_travel_with_the_spark_and_are_never_fetched() {
    let run = |bytes: f64| {
        let (platform, hosts) = mesh(&[1e9, 5e8, 1e9, 5e8], 1e8, 1e-4);
        simulate(
            platform,
            &hosts,
            flat_reading(80, bytes),
            StealConfig::default(),
            policies("grid-gum", 4),
            false,
            3,
        )
    };
    // 4096 bytes is the default packet: with the 200-byte closure, 3800 bytes fit, 4000 do not.
    let fits = run(3800.0);
    let exported: u64 = fits.pes.iter().map(|p| p.sparks_exported).sum();
    assert!(exported > 3, "{exported}");
    assert_eq!(fits.pes.iter().map(|p| p.data_fetches).sum::<u64>(), 0);
    // Only the root's value FETCHes remain: one per exported spark at most.
    assert!(fits.messages[MessageKind::Fetch as usize] <= exported);
    let fetched = run(4000.0);
    let fetches: u64 = fetched.pes.iter().map(|p| p.data_fetches).sum();
    // Each PE that ran an exported spark fetched the datum (one packet) once and kept it.
    assert!((1..=3).contains(&fetches), "{fetches}");
    assert!(fetched.pes[0].data_fetches == 0);
}

/// `program` with every datum folded into the closures of the sparks that read it: the whole
/// graph in the SCHEDULE, the model before packet limits.
fn folded(program: &Program) -> Program {
    let mut out = program.clone();
    for node in &mut out.nodes {
        let extra: f64 = node.reads.iter().map(|&d| program.data[d as usize].bytes).sum();
        node.graph_bytes += extra;
        node.reads.clear();
    }
    out.data.clear();
    out
}

/// [`random_tree`] where some nodes produce a datum that their children, and some of their
/// children's children through them, read.
fn random_tree_with_data(seed: u64, size: usize) -> Program {
    use rand::{Rng, SeedableRng};
    use schedulers::steal::program::Datum;
    let mut program = random_tree(seed, size);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    for i in 0..program.nodes.len() {
        if program.nodes[i].children.is_empty() || !rng.gen_bool(0.5) {
            continue;
        }
        let d = program.data.len() as u32;
        program.data.push(Datum {
            bytes: rng.gen_range(0.0..2e4),
            producer: i as u32,
        });
        for c in program.nodes[i].children.clone() {
            if rng.gen_bool(0.7) {
                program.nodes[c as usize].reads.push(d);
                for g in program.nodes[c as usize].children.clone() {
                    if rng.gen_bool(0.5) {
                        program.nodes[g as usize].reads.push(d);
                    }
                }
            }
        }
    }
    program.validate().unwrap();
    program
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// With a packet limit no graph reaches and no overheads, packing data beside a spark is the
    /// model without packet limits (each spark's whole graph in its SCHEDULE): the same run.
    #[test]
    fn a_huge_packet_without_overheads_is_the_whole_graph_model(
        tree_seed in 0u64..1000,
        size in 1usize..80,
        pes in 2usize..5,
        policy in 0usize..3,
        limit in prop::sample::select(vec![1usize, 1024]),
        seed in 0u64..1000,
    ) {
        let speeds: Vec<f64> = (0..pes).map(|i| if i % 2 == 0 { 1.395e9 } else { 5.34e8 }).collect();
        let program = random_tree_with_data(tree_seed, size);
        let name = ["grid-gum", "grid-gum2", "satin-crs"][policy];
        let config = StealConfig {
            thread_limit: limit,
            pack_buffer_words: 1e12,
            pack_flops_per_word: 0.0,
            unpack_flops_per_word: 0.0,
            thread_create_flops: 0.0,
            ..StealConfig::default()
        };
        let (platform, hosts) = mesh(&speeds, 1e8, 1e-3);
        let with_data = simulate(platform.clone(), &hosts, program.clone(), config.clone(), policies(name, pes), false, seed);
        let whole = simulate(platform, &hosts, folded(&program), config, policies(name, pes), false, seed);
        prop_assert_eq!(with_data, whole);
    }

    /// With data fetched packet by packet, every node is still evaluated once and the work is
    /// conserved, whatever the packet, policy, limit and costs.
    #[test]
    fn remote_data_keep_every_spark_evaluated_once(
        tree_seed in 0u64..1000,
        size in 1usize..80,
        pes in 1usize..5,
        policy in 0usize..3,
        limit in prop::sample::select(vec![1usize, 2, 1024]),
        words in prop::sample::select(vec![1.0, 64.0, 1024.0]),
        seed in 0u64..1000,
    ) {
        let speeds: Vec<f64> = (0..pes).map(|i| if i % 2 == 0 { 1.395e9 } else { 5.34e8 }).collect();
        let program = random_tree_with_data(tree_seed, size);
        let total = program.total_flops();
        let name = ["grid-gum", "grid-gum2", "satin-crs"][policy];
        let config = StealConfig { thread_limit: limit, pack_buffer_words: words, ..StealConfig::default() };
        let (platform, hosts) = mesh(&speeds, 1e8, 1e-3);
        let out = simulate(platform, &hosts, program, config, policies(name, pes), false, seed);
        prop_assert!(out.evaluations.iter().all(|&e| e == 1), "{:?}", out.evaluations);
        let done: f64 = out.pes.iter().map(|p| p.work_flops).sum();
        prop_assert!((done - total).abs() <= 1e-9 * total.max(1.0));
        for pe in &out.pes {
            let accounted = pe.busy_s + pe.blocked_s + pe.idle_s;
            prop_assert!((accounted - out.runtime_s).abs() <= 1e-6 * out.runtime_s.max(1.0));
        }
    }
}
