//! The batch family's synthetic jobs: without a `[workload]` log, `jobs` rigid jobs are drawn
//! from the Lublin–Feitelson model ([`traces::lublin`], which states the model and its sources)
//! with the run's seed. Each model parameter is one [`Param`] here, its default the reference
//! generator's fitted value ([`traces::lublin::defaults`]; a test holds the two equal).
//!
//! Parameters that only shape synthetic jobs are refused when a `[workload]` log is given;
//! `jobs` is honoured with both (the first N jobs of the log).

use std::borrow::Cow;

use traces::job::Job;
use traces::lublin::{Lublin, LublinParams, RequestModel};

use crate::family::{ParamReader, ParamValue, RunError};
use crate::registry::Param;

/// Synthetic jobs drawn, or the first N of the log.
pub(super) const JOBS: Param = Param::integer(
    "jobs",
    "jobs: the first N of the [workload] log, or N synthetic ones (Lublin-Feitelson model) \
     when the experiment has no [workload]",
    Param::NO_DEFAULT,
    1.0,
)
.at_most(1e7)
.computed_default("every job of the log; required without one");
pub(super) const MAX_SIZE: Param = Param::integer(
    "max_size",
    "synthetic jobs: the machine size of the Lublin-Feitelson model, in units: no job is larger, \
     and log2(max_size) is the upper end of the sizes' second uniform stage (the model's Uhi)",
    Param::NO_DEFAULT,
    1.0,
)
.computed_default("the platform's units");
pub(super) const SERIAL_PROB: Param = Param::real(
    "serial_prob",
    "synthetic jobs: probability of a serial job (Lublin-Feitelson whole-sample fit, \
     m_lublin99.c SERIAL_PROB)",
    "0.244",
    0.0,
)
.at_most(1.0);
pub(super) const POW2_PROB: Param = Param::real(
    "pow2_prob",
    "synthetic jobs: probability, over all jobs, of a parallel job whose log2(size) is rounded to \
     a whole number (m_lublin99.c POW2_PROB); serial_prob + pow2_prob <= 1",
    "0.576",
    0.0,
)
.at_most(1.0);
pub(super) const SIZE_LOG_LOW: Param = Param::real(
    "size_log_low",
    "synthetic jobs: lower end of log2(size) of parallel jobs (m_lublin99.c ULOW)",
    "0.8",
    0.0,
);
pub(super) const SIZE_LOG_MED: Param = Param::real(
    "size_log_med",
    "synthetic jobs: where the two uniform stages of log2(size) meet (the model's Umed; \
     m_lublin99.c advises Uhi - 2.5, its fit 4.5 for 128 nodes)",
    Param::NO_DEFAULT,
    0.0,
)
.computed_default("log2(max_size) - 2.5");
pub(super) const SIZE_LOW_PROB: Param = Param::real(
    "size_low_prob",
    "synthetic jobs: probability of the lower stage [size_log_low, size_log_med] of log2(size) \
     (m_lublin99.c UPROB)",
    "0.86",
    0.0,
)
.at_most(1.0);
pub(super) const RUNTIME_A1: Param = Param::real(
    "runtime_a1",
    "synthetic jobs: shape of the first gamma of ln(run time / s) (m_lublin99.c A1)",
    "4.2",
    0.0,
)
.positive();
pub(super) const RUNTIME_B1: Param = Param::real(
    "runtime_b1",
    "synthetic jobs: scale of the first gamma of ln(run time / s) (m_lublin99.c B1)",
    "0.94",
    0.0,
)
.positive();
pub(super) const RUNTIME_A2: Param = Param::real(
    "runtime_a2",
    "synthetic jobs: shape of the second gamma of ln(run time / s) (m_lublin99.c A2)",
    "312",
    0.0,
)
.positive();
pub(super) const RUNTIME_B2: Param = Param::real(
    "runtime_b2",
    "synthetic jobs: scale of the second gamma of ln(run time / s) (m_lublin99.c B2)",
    "0.03",
    0.0,
)
.positive();
pub(super) const RUNTIME_PA: Param = Param::real(
    "runtime_pa",
    "synthetic jobs: slope, per unit of size, of the first gamma's probability p = pa size + pb \
     (held in [0, 1]): the size-run time correlation (m_lublin99.c PA)",
    "-0.0054",
    f64::MIN,
);
pub(super) const RUNTIME_PB: Param = Param::real(
    "runtime_pb",
    "synthetic jobs: intercept of the first gamma's probability p = pa size + pb (m_lublin99.c PB)",
    "0.78",
    f64::MIN,
);
pub(super) const RUNTIME_LOG_MAX: Param = Param::real(
    "runtime_log_max",
    "synthetic jobs: largest ln(run time / s); larger draws are redrawn (m_lublin99.c \
     TOO_MUCH_TIME: e^12 s, about two days)",
    "12",
    0.0,
)
.positive();
pub(super) const ARRIVAL_SHAPE: Param = Param::real(
    "arrival_shape",
    "synthetic jobs: shape of the gamma of ln(inter-arrival time / s): m_lublin99.c's \
     AARR x ARAR = 10.2303 x 1.0225, the rush-hour fit made an all-day one",
    "10.46048175",
    0.0,
)
.positive();
pub(super) const ARRIVAL_SCALE: Param = Param::real(
    "arrival_scale",
    "synthetic jobs: scale of the gamma of ln(inter-arrival time / s) (m_lublin99.c BARR)",
    "0.4871",
    0.0,
)
.positive();
pub(super) const ARRIVAL_LOG_MAX: Param = Param::real(
    "arrival_log_max",
    "synthetic jobs: largest ln(inter-arrival time / s); larger draws are redrawn (m_lublin99.c \
     TOO_MUCH_ARRIVE_TIME: e^13 s, about five days)",
    "13",
    0.0,
)
.positive();
pub(super) const DAILY_CYCLE: Param = Param::boolean(
    "daily_cycle",
    "synthetic jobs: the model's daily cycle of arrivals; not implemented, so only false (plain \
     gamma inter-arrival times at every hour) is accepted",
    "false",
);
pub(super) const TARGET_LOAD: Param = Param::real(
    "target_load",
    "synthetic jobs: arrival times are scaled so that the run's offered_load metric, the work \
     (size x run time) of the jobs that fit / (units x (last arrival - first arrival)), is this",
    Param::NO_DEFAULT,
    0.0,
)
.positive()
.computed_default("unset: the model's own arrival times");
pub(super) const REQUEST_MODEL: Param = Param::text(
    "request_model",
    "synthetic jobs: how a job's request is made, as the model has none: exact (the run time) \
     or factor (the run time x request_factor)",
    "exact",
);
pub(super) const REQUEST_FACTOR: Param = Param::real(
    "request_factor",
    "synthetic jobs, request_model = factor: request = run time x this (at least 1: no job is \
     killed); multiplying by a factor is a scheduling technique, not a model of real estimates \
     (Tsafrir and Feitelson, IISWC 2006)",
    Param::NO_DEFAULT,
    1.0,
)
.computed_default("none: required with request_model = factor");

/// The parameters that shape synthetic jobs only (refused with a `[workload]` log).
pub(super) const SYNTHETIC_ONLY: &[Param] = &[
    MAX_SIZE,
    SERIAL_PROB,
    POW2_PROB,
    SIZE_LOG_LOW,
    SIZE_LOG_MED,
    SIZE_LOW_PROB,
    RUNTIME_A1,
    RUNTIME_B1,
    RUNTIME_A2,
    RUNTIME_B2,
    RUNTIME_PA,
    RUNTIME_PB,
    RUNTIME_LOG_MAX,
    ARRIVAL_SHAPE,
    ARRIVAL_SCALE,
    ARRIVAL_LOG_MAX,
    DAILY_CYCLE,
    TARGET_LOAD,
    REQUEST_MODEL,
    REQUEST_FACTOR,
];

/// The run's jobs: the `[workload]` log's (its first `jobs`), else `jobs` synthetic ones for a
/// platform of `units` units.
pub(super) fn jobs<'a>(spec: &'a ParamReader, units: u32) -> Result<Cow<'a, [Job]>, RunError> {
    let limit = spec.optional_integer(&JOBS)?;
    if let Some(workload) = &spec.workload {
        if let Some(p) = SYNTHETIC_ONLY.iter().find(|p| spec.params.contains_key(p.name)) {
            return Err(RunError::param(
                p.name,
                "shapes synthetic jobs only, which are drawn when the experiment has no [workload]; \
                 remove it, or the [workload]",
            ));
        }
        let n = limit.map_or(workload.jobs.len(), |n| workload.jobs.len().min(n as usize));
        return Ok(Cow::Borrowed(&workload.jobs[..n]));
    }
    let Some(n) = limit else {
        return Err(RunError::param(
            JOBS.name,
            "is required without a [workload] log: the number of synthetic jobs to draw from the \
             Lublin-Feitelson model (or name a log in [workload])",
        ));
    };
    if spec.boolean(&DAILY_CYCLE)? {
        return Err(RunError::param(
            DAILY_CYCLE.name,
            "= true is not implemented: the model's daily cycle of arrivals is left out, and \
             synthetic inter-arrival times are the plain gamma at every hour (docs/batch.md); \
             set daily_cycle = false or leave it out",
        ));
    }
    let max_size = match spec.optional_integer(&MAX_SIZE)? {
        Some(m) => u32::try_from(m)
            .map_err(|_| RunError::param(MAX_SIZE.name, format!("must be at most {}, got {m}", u32::MAX)))?,
        None => {
            spec.default_used(MAX_SIZE.name, ParamValue::Int(i64::from(units)));
            units
        }
    };
    let machine = LublinParams::for_machine(max_size);
    let size_log_med = match spec.optional_real(&SIZE_LOG_MED)? {
        Some(x) => x,
        None => {
            spec.default_used(SIZE_LOG_MED.name, ParamValue::Float(machine.size_log_med));
            machine.size_log_med
        }
    };
    let params = LublinParams {
        max_size,
        serial_prob: spec.real(&SERIAL_PROB)?,
        pow2_prob: spec.real(&POW2_PROB)?,
        size_log_low: spec.real(&SIZE_LOG_LOW)?,
        size_log_med,
        size_low_prob: spec.real(&SIZE_LOW_PROB)?,
        runtime_a1: spec.real(&RUNTIME_A1)?,
        runtime_b1: spec.real(&RUNTIME_B1)?,
        runtime_a2: spec.real(&RUNTIME_A2)?,
        runtime_b2: spec.real(&RUNTIME_B2)?,
        runtime_pa: spec.real(&RUNTIME_PA)?,
        runtime_pb: spec.real(&RUNTIME_PB)?,
        runtime_log_max: spec.real(&RUNTIME_LOG_MAX)?,
        arrival_shape: spec.real(&ARRIVAL_SHAPE)?,
        arrival_scale: spec.real(&ARRIVAL_SCALE)?,
        arrival_log_max: spec.real(&ARRIVAL_LOG_MAX)?,
    };
    let model = Lublin::new(params).map_err(|e| RunError::param(e.param, e.message))?;
    let requests = match spec.text(&REQUEST_MODEL)?.as_str() {
        "exact" if spec.params.contains_key(REQUEST_FACTOR.name) => {
            return Err(RunError::param(
                REQUEST_FACTOR.name,
                "applies only with request_model = \"factor\"",
            ))
        }
        "exact" => RequestModel::Exact,
        "factor" => RequestModel::Factor(
            spec.optional_real(&REQUEST_FACTOR)?
                .ok_or_else(|| RunError::param(REQUEST_FACTOR.name, "is required with request_model = \"factor\""))?,
        ),
        other => {
            return Err(RunError::param(
                REQUEST_MODEL.name,
                format!("must be 'exact' or 'factor', got '{other}'"),
            ))
        }
    };
    let mut jobs = model.jobs(spec.seed, n as usize, requests);
    if let Some(target) = spec.optional_real(&TARGET_LOAD)? {
        let span = match (jobs.first(), jobs.last()) {
            (Some(first), Some(last)) => last.submit_s - first.submit_s,
            _ => 0.0,
        };
        let work: f64 = jobs
            .iter()
            .filter(|j| j.procs <= units)
            .map(|j| f64::from(j.procs) * j.runtime_s)
            .sum();
        if !(span > 0.0 && work > 0.0) {
            return Err(RunError::param(
                TARGET_LOAD.name,
                "needs at least two synthetic jobs, one of which fits the platform",
            ));
        }
        let stretch = work / (f64::from(units) * span) / target;
        if !(stretch.is_finite() && stretch > 0.0) {
            return Err(RunError::param(
                TARGET_LOAD.name,
                format!("= {target} gives arrival times that are not finite numbers"),
            ));
        }
        for job in &mut jobs {
            job.submit_s *= stretch;
        }
    }
    Ok(Cow::Owned(jobs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use traces::lublin::defaults;

    /// The defaults written in the parameters are the model's (written once in
    /// `traces::lublin::defaults`).
    #[test]
    fn parameter_defaults_are_the_models() {
        for (param, value) in [
            (SERIAL_PROB, defaults::SERIAL_PROB),
            (POW2_PROB, defaults::POW2_PROB),
            (SIZE_LOG_LOW, defaults::SIZE_LOG_LOW),
            (SIZE_LOW_PROB, defaults::SIZE_LOW_PROB),
            (RUNTIME_A1, defaults::RUNTIME_A1),
            (RUNTIME_B1, defaults::RUNTIME_B1),
            (RUNTIME_A2, defaults::RUNTIME_A2),
            (RUNTIME_B2, defaults::RUNTIME_B2),
            (RUNTIME_PA, defaults::RUNTIME_PA),
            (RUNTIME_PB, defaults::RUNTIME_PB),
            (RUNTIME_LOG_MAX, defaults::RUNTIME_LOG_MAX),
            (ARRIVAL_SHAPE, defaults::ARRIVAL_SHAPE),
            (ARRIVAL_SCALE, defaults::ARRIVAL_SCALE),
            (ARRIVAL_LOG_MAX, defaults::ARRIVAL_LOG_MAX),
        ] {
            assert_eq!(param.default_number(), value, "{}", param.name);
        }
        assert!((defaults::ARRIVAL_SHAPE - 10.2303 * 1.0225).abs() < 1e-12);
    }

    /// Every synthetic parameter is one of the family's declared parameters.
    #[test]
    fn the_family_declares_every_synthetic_parameter() {
        use crate::family::Family;
        let declared: Vec<&str> = super::super::family::BatchFamily
            .parameters()
            .iter()
            .map(|p| p.name)
            .collect();
        for p in SYNTHETIC_ONLY.iter().chain([&JOBS]) {
            assert!(declared.contains(&p.name), "{}", p.name);
        }
    }
}
