//! Cluster job streams with I/O- and memory-aware load balancing: the WAL-FC paper's system
//! (X. Qin, H. Jiang, Y. Zhu and D. R. Swanson, "A feedback control mechanism for balancing
//! I/O- and memory-intensive applications on clusters", `shared/papers/wal-fc-...md`).
//!
//! A cluster of identical nodes, each with one CPU shared by its jobs, memory split between an
//! I/O buffer and the jobs' working sets, and one FCFS disk. Jobs arrive at nodes; a
//! [`balancer::LoadBalancer`] decides where each runs (remote execution moves its data); a
//! [`balancer::FeedbackController`] (WAL-FC) moves the I/O weight and the buffer size from the
//! slowdowns of completed jobs. The model and every reading taken are in [`app`] (the job's
//! life on the engine), [`load`] (the paper's equations), [`config`] (Table 5.1 and the open
//! parameters) and one file per policy.
//!
//! | policy | file | paper |
//! |---|---|---|
//! | NLB | [`nlb`] | §5 |
//! | CM | [`cm`] | §5, Zhang et al. |
//! | IO | [`io`] | §5, eq. 4.4 |
//! | WAL | [`wal`] | §4.1, eqs. 4.1–4.7 |
//! | WAL-FC | [`wal`] + [`controller`] | §4.3, eqs. 4.9–4.13 |

pub mod app;
pub mod balancer;
pub mod config;
pub mod controller;
pub mod family;
pub mod load;
pub mod registry;

// Every cluster policy, in `gridsim list` order: each module exports its registry entry. Adding
// a policy is its file plus one line here.
crate::policies!(registry::Built;
    nlb: [ENTRY],
    cm: [ENTRY],
    io: [ENTRY],
    wal: [WAL, WAL_FC],
);

pub use app::{run, ClusterJob, ClusterOutcome, ClusterSetup, ControlPoint, JobRecord};
pub use config::ClusterConfig;
pub use load::JobLoad;
