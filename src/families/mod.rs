//! The registry of application families that experiment files can name. Adding a family: one
//! file here implementing [`Family`] and one line in [`all`].

mod bot;
mod cluster;
mod skeleton;
mod steal;

use crate::family::Family;

pub use bot::BagOfTasks;
pub use cluster::ClusterFamily;
pub use skeleton::{AltSkeletons, Amoget};
pub use steal::StealFamily;

/// Every family, in the order `gridsim list` shows them.
pub fn all() -> Vec<&'static dyn Family> {
    vec![&BagOfTasks, &ClusterFamily, &StealFamily, &Amoget, &AltSkeletons]
}

/// The family with this name.
pub fn find(name: &str) -> Option<&'static dyn Family> {
    all().into_iter().find(|f| f.name() == name)
}
