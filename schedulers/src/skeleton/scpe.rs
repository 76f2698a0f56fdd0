//! The rate scheme of the SCPE pipeline paper (Benoit, Cole, Gilmore & Hillston, "Evaluating
//! the performance of pipeline-structured parallel programs with skeletons and process
//! algebra", §2.3 and §4.3).
//!
//! The model is the plain pipeline of §2.3 (the same structure as the AMoGeT model without
//! Deal, built by [`super::amoget::pipeline_model`]; Fig. B.1 shows it for three stages). The
//! rates (§4.3) come from the description file's `cp_j` (available computing power of processor
//! `j`), `nl_{i-j}` (performance of the link from `i` to `j`, diagonal included), `w_i` (work of
//! stage `i`) and `ds_i` (data sent to stage `i`, `ds_{Ns+1}` being the output):
//!
//! * `μ_i = w_i · cp_j / nbst_j`, `j` the processor of stage `i`, `nbst_j` the number of stages it
//!   hosts (as printed: the work multiplies the rate; every experiment of the paper has `w_i = 1`).
//! * `λ_i = nl_{j1-j2} / ds_i`, `j1` hosting stage `i−1` (or the input data) and `j2` hosting
//!   stage `i` (or the output data).
//!
//! The paper computes the throughput of `process_1` (§3), equal in steady state to that of
//! `move_1`, which [`evaluate`] reports.

use super::amoget::{evaluate_model, pipeline_model, EvaluateOptions, ModelError, PipelineRates};
use super::mapping::{Mapping, MappingEvaluation, PlatformShape};
use super::pepa::Model;

/// The platform of the SCPE description file (§4.2).
#[derive(Clone, Debug, PartialEq)]
pub struct ScpePlatform {
    /// `cp_j`: computing power of each processor available to the application.
    pub power: Vec<f64>,
    /// `nl[i][j]`: link performance from processor `i` to processor `j` (diagonal used).
    pub link: Vec<Vec<f64>>,
}

impl ScpePlatform {
    /// The shape used to enumerate mappings up to relabelling.
    pub fn shape(&self) -> PlatformShape {
        PlatformShape {
            features: self.power.iter().map(|&c| vec![c]).collect(),
            link: self.link.clone(),
        }
    }
}

/// The pipeline of the SCPE description file (§4.2).
#[derive(Clone, Debug, PartialEq)]
pub struct ScpePipeline {
    /// `w_i`, one per stage.
    pub work: Vec<f64>,
    /// `ds_i`, `i = 1..Ns+1`.
    pub data_sizes: Vec<f64>,
}

/// The rates of §4.3 for a mapping without Deal.
pub fn scpe_rates(
    platform: &ScpePlatform,
    pipeline: &ScpePipeline,
    mapping: &Mapping,
) -> Result<PipelineRates, ModelError> {
    let n = platform.power.len();
    let ns = mapping.stages.len();
    if platform.link.len() != n || platform.link.iter().any(|r| r.len() != n) {
        return Err(ModelError::Invalid(format!("link matrix must be {n}x{n}")));
    }
    if mapping.stages.iter().any(|s| s.is_deal()) {
        return Err(ModelError::Invalid("the SCPE rate scheme has no Deal".into()));
    }
    if pipeline.work.len() != ns || pipeline.data_sizes.len() != ns + 1 {
        return Err(ModelError::Invalid(format!(
            "need {ns} works and {} data sizes",
            ns + 1
        )));
    }
    if mapping.processors_needed() > n {
        return Err(ModelError::Invalid(format!(
            "mapping {mapping} uses a processor beyond the {n} given"
        )));
    }
    let procs: Vec<usize> = mapping.stages.iter().map(|s| s.workers()[0]).collect();
    let nbst = mapping.workers_per_processor(n);
    let process = procs
        .iter()
        .enumerate()
        .map(|(i, &j)| vec![pipeline.work[i] * platform.power[j] / nbst[j] as f64])
        .collect();
    let moves = (0..=ns)
        .map(|m| {
            let from = if m == 0 { mapping.input } else { procs[m - 1] };
            let to = if m == ns { mapping.output } else { procs[m] };
            platform.link[from][to] / pipeline.data_sizes[m]
        })
        .collect();
    Ok(PipelineRates {
        process,
        moves,
        inputs: vec![Vec::new(); ns],
        outputs: vec![Vec::new(); ns],
    })
}

/// The SCPE PEPA model of `mapping`.
pub fn scpe_model(platform: &ScpePlatform, pipeline: &ScpePipeline, mapping: &Mapping) -> Result<Model, ModelError> {
    pipeline_model(mapping, &scpe_rates(platform, pipeline, mapping)?)
}

/// Builds and solves the SCPE model of one mapping. Pure: safe to call in parallel.
pub fn evaluate(
    platform: &ScpePlatform,
    pipeline: &ScpePipeline,
    mapping: &Mapping,
    o: &EvaluateOptions,
) -> Result<MappingEvaluation, ModelError> {
    evaluate_model(&scpe_model(platform, pipeline, mapping)?, mapping, o)
}
