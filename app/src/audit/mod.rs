//! The audit log's page: every decision, filtered and paged, each row with its diff.

pub mod page;
pub mod row;
