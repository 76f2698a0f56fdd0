//! Workload and availability trace formats.
