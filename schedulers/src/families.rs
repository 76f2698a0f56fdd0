//! The registry of application families that experiment files can name. Adding a family: one
//! file here implementing [`Family`] and one line in [`all`].

use crate::family::Family;

pub use crate::batch::family::BatchFamily;
pub use crate::bot::family::BagOfTasks;
pub use crate::cluster::family::ClusterFamily;
pub use crate::skeleton::family::alt::AltSkeletons;
pub use crate::skeleton::family::amoget::Amoget;
pub use crate::steal::family::StealFamily;

/// Every family, in the order `gridsim list` shows them.
pub fn all() -> Vec<&'static dyn Family> {
    vec![
        &BagOfTasks,
        &ClusterFamily,
        &BatchFamily,
        &StealFamily,
        &Amoget,
        &AltSkeletons,
    ]
}

/// The family with this name.
pub fn find(name: &str) -> Option<&'static dyn Family> {
    all().into_iter().find(|f| f.name() == name)
}
