//! While a run works: which step it is on, what it is doing, and the Stop button.

use leptos::prelude::*;

use crate::live_run::LiveRun;

#[component]
pub fn RunStatusBar(live: LiveRun, on_stop: Callback<()>) -> impl IntoView {
    let progress = move || {
        live.step.get().map(|(n, max, action)| {
            let action = if action.is_empty() { String::new() } else { format!(": {action}") };
            format!("Step {n} of {max}{action}")
        })
    };
    view! {
        <Show when=move || live.run_id.get().is_some()>
            <div class="run-status">
                <p role="status">{move || progress().unwrap_or_else(|| "Working…".to_string())}</p>
                <button type="button" class="stop" on:click=move |_| on_stop.run(())>"Stop"</button>
            </div>
        </Show>
    }
}
