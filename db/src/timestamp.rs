//! Times as every store keeps them: RFC 3339 UTC with milliseconds, which sorts as text.

use std::time::SystemTime;

/// Now, as stored.
pub fn now() -> String {
    at(SystemTime::now())
}

pub fn at(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

pub fn parse_time(s: &str) -> Option<SystemTime> {
    humantime::parse_rfc3339(s).ok()
}
