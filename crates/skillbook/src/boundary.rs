//! The read boundary.
