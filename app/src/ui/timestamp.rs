//! A stored time (RFC 3339, UTC) shown to a person: to the second, in the browser's time zone (named by
//! its offset, `UTC+5:30`), with the UTC time in the title and the exact value in `datetime` for machines.
//! The server knows no browser's zone: it renders UTC, the page hydrates that same text, and only then
//! (an effect, which runs after hydration) shows the local time, so hydration never mismatches.

use leptos::prelude::*;

#[component]
pub fn Timestamp(at: String) -> impl IntoView {
    let utc = readable(&at);
    let shown = RwSignal::new(utc.clone());
    #[cfg(feature = "hydrate")]
    {
        let at = at.clone();
        Effect::new(move |_| {
            if let Some(local) = local::readable(&at) {
                shown.set(local);
            }
        });
    }
    view! { <time datetime=at title=utc>{move || shown.get()}</time> }
}

/// `2026-11-25T10:00:03.123Z` as `2026-11-25 10:00:03 UTC`; anything else as it is.
pub fn readable(at: &str) -> String {
    match at.strip_suffix('Z').and_then(|t| t.split_once('T')) {
        Some((date, time)) => format!("{date} {} UTC", time.split('.').next().unwrap_or(time)),
        None => at.to_string(),
    }
}

/// A zone's offset from UTC in minutes east (JavaScript's `getTimezoneOffset` is west) as `UTC`,
/// `UTC+1`, `UTC-5`, `UTC+5:30`.
pub fn offset_name(minutes_east: i32) -> String {
    if minutes_east == 0 {
        return "UTC".into();
    }
    let sign = if minutes_east > 0 { '+' } else { '-' };
    let (hours, minutes) = (minutes_east.abs() / 60, minutes_east.abs() % 60);
    match minutes {
        0 => format!("UTC{sign}{hours}"),
        m => format!("UTC{sign}{hours}:{m:02}"),
    }
}

#[cfg(feature = "hydrate")]
mod local {
    use wasm_bindgen::JsValue;

    /// The time in the browser's zone, `2026-11-25 15:30:03 UTC+5:30`; `None` for a value that is not a time.
    pub fn readable(at: &str) -> Option<String> {
        if !at.ends_with('Z') {
            return None;
        }
        let date = js_sys::Date::new(&JsValue::from_str(at));
        if date.get_time().is_nan() {
            return None;
        }
        // Whole minutes: no zone's offset has seconds.
        let east = -(date.get_timezone_offset() as i32);
        Some(format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} {}",
            date.get_full_year(),
            date.get_month() + 1,
            date.get_date(),
            date.get_hours(),
            date.get_minutes(),
            date.get_seconds(),
            super::offset_name(east)
        ))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stored_time_reads_to_the_second_in_utc() {
        assert_eq!(super::readable("2026-11-25T10:00:03.123Z"), "2026-11-25 10:00:03 UTC");
        assert_eq!(super::readable("yesterday"), "yesterday");
    }

    #[test]
    fn a_zone_is_named_by_its_offset_from_utc() {
        assert_eq!(super::offset_name(0), "UTC");
        assert_eq!(super::offset_name(60), "UTC+1");
        assert_eq!(super::offset_name(-300), "UTC-5");
        assert_eq!(super::offset_name(330), "UTC+5:30");
        assert_eq!(super::offset_name(-570), "UTC-9:30");
    }
}
