//! The inbox: every request waiting for a person (chat approvals, outside requests, connection
//! checks) in one list with filters, keyboard shortcuts and batch decisions; and an outside
//! request's own page.

pub mod entry;
pub mod keys;
pub mod page;
pub mod request_page;
pub mod request_view;
pub mod sent_to;
