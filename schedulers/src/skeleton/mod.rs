//! Skeleton-based grid applications: performance models, prediction and simulation.
//!
//! Seed papers (`shared/papers/`):
//! * AMoGeT — Benoit, Cole, Gilmore & Hillston, "Scheduling skeleton-based grid applications
//!   using PEPA and NWS": PEPA models of a Pipeline with nested Deals (§3.2, Fig. 3), rates from
//!   NWS measurements (§4.4), throughput of `move_1` (§4.5), mapping comparison (§4.6);
//! * the SCPE pipeline paper — the same authors, "Evaluating the performance of
//!   pipeline-structured parallel programs with skeletons and process algebra": the plain
//!   pipeline model (§2.3), its rate scheme (§4.3), PEPA semantics (Appendix A) and the
//!   Workbench's solution procedure (Appendix C);
//! * Alt, Bischof & Gorlatch, "Algorithm Design and Performance Prediction in a Java-Based Grid
//!   System with Skeletons": performance functions and server choice (§4, eqs. 1–2).
//!
//! Modules, in pipeline order:
//! * [`pepa`] — PEPA syntax tree, export to PEPA Workbench text, parser;
//! * [`statespace`] — derivation of the reachable state space by PEPA's operational semantics
//!   (apparent rates, passive rates);
//! * [`ctmc`] — sparse generator, steady state (Gauss–Seidel with a stated convergence
//!   criterion; GTH for small chains), throughput and utilisation;
//! * [`amoget`] — the Pipeline/Deal model of Fig. 3 with the §4.4 rates; [`scpe`] — the SCPE
//!   rate scheme on the same structure;
//! * [`mapping`] — mappings in the papers' notation, enumeration up to relabelling, ranking;
//! * [`nws`] — the NWS forecaster battery and selector;
//! * [`alt`] — Alt et al.'s performance functions, lookup service and server choice.
//!
//! Simulation in the engine:
//! * [`pipeline_sim`] — the Pipeline/Deal application as a `sim_core::Application`, in a
//!   *model* mode that follows the CTMC's assumptions exactly and a *realistic* mode (transfers
//!   over the platform's links, computations on its CPUs);
//! * [`alt_sim`] — Alt et al.'s registration (measured `t_s`, `t_w`, speed-ups), server choice
//!   and the remote invocation (messages, `p` threads of operator applications);
//! * [`measure`] — engine probes, the homogeneous mesh platform, batch means;
//! * [`adaptive`] — AMoGeT at run time: NWS monitoring of the running platform, forecasts,
//!   periodic re-mapping of the running pipeline (drain and refill).
//!
//! Nothing here does I/O or spawns threads: evaluating one mapping is a pure function, so a
//! caller can evaluate candidates in parallel and then call [`mapping::rank`].

pub mod adaptive;
pub mod alt;
pub mod alt_sim;
pub mod amoget;
pub mod ctmc;
pub mod family;
pub mod mapping;
pub mod measure;
pub mod nws;
pub mod pepa;
pub mod pipeline_sim;
pub mod scpe;
pub mod statespace;

pub use amoget::ModelError;

use ctmc::{CtmcError, Solution, SolveOptions};
use pepa::Model;
use statespace::{DeriveOptions, StateSpace};

/// A model's state space together with its steady-state distribution.
#[derive(Clone, Debug)]
pub struct SolvedModel {
    /// The derivation graph.
    pub space: StateSpace,
    /// The steady state.
    pub solution: Solution,
}

/// Derives and solves a PEPA model.
pub fn solve(model: &Model, derive: &DeriveOptions, solve: &SolveOptions) -> Result<SolvedModel, ModelError> {
    let space = statespace::derive(model, derive)?;
    let solution = ctmc::steady_state(&space, solve)?;
    Ok(SolvedModel { space, solution })
}

impl SolvedModel {
    /// Throughput of an action (per unit of the model's rates).
    pub fn throughput(&self, action: &str) -> Result<f64, CtmcError> {
        ctmc::throughput(&self.space, &self.solution.probabilities, action)
    }

    /// Probability that the first sequential component named `component` is in its local
    /// derivative named `derivative` (names as in [`statespace::Leaf`]); `None` if either is
    /// unknown.
    pub fn utilisation(&self, component: &str, derivative: &str) -> Option<f64> {
        let leaf = *self.space.leaves_named(component).first()?;
        let d = self.space.derivative_id(leaf, derivative)?;
        Some(ctmc::utilisation(&self.space, &self.solution.probabilities, leaf, d))
    }
}
