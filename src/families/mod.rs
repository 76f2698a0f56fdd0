//! The registry of application families that experiment files can name.

use crate::family::Family;

/// Every family, in the order `gridsim list` shows them.
pub fn all() -> Vec<&'static dyn Family> {
    Vec::new()
}

/// The family with this name.
pub fn find(name: &str) -> Option<&'static dyn Family> {
    all().into_iter().find(|f| f.name() == name)
}
