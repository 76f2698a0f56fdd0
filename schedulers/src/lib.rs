//! Application families and scheduling policies.
