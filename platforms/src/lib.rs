//! Platform formats and generators.
