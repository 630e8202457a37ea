//! A stored time (RFC 3339, UTC) shown to a person: to the second, in UTC, with the exact value
//! in `datetime` for machines.

use leptos::prelude::*;

#[component]
pub fn Timestamp(at: String) -> impl IntoView {
    let shown = readable(&at);
    view! { <time datetime=at>{shown}</time> }
}

/// `2026-11-25T10:00:03.123Z` as `2026-11-25 10:00:03 UTC`; anything else as it is.
pub fn readable(at: &str) -> String {
    match at.strip_suffix('Z').and_then(|t| t.split_once('T')) {
        Some((date, time)) => format!("{date} {} UTC", time.split('.').next().unwrap_or(time)),
        None => at.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stored_time_reads_to_the_second_in_utc() {
        assert_eq!(super::readable("2026-11-25T10:00:03.123Z"), "2026-11-25 10:00:03 UTC");
        assert_eq!(super::readable("yesterday"), "yesterday");
    }
}
