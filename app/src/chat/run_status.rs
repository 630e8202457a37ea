//! While a run works: which step it is on, what it is doing (or that it waits for the person's
//! decision), which model it was started with (Stop is
//! in the composer, in Send's place).

use leptos::prelude::*;

use crate::chat::live_run::LiveRun;

#[component]
pub fn RunStatusBar(
    live: LiveRun,
    /// The run's model as "<provider> · <model>", once known.
    #[prop(into)]
    model: Signal<Option<String>>,
) -> impl IntoView {
    let progress = move || {
        let waiting = live.waiting.with(|w| w.len());
        // Once the answer's words stream in, the model is no longer thinking: it writes.
        let writing = live.text.with(|t| !t.is_empty());
        live.step.get().map(|(n, max, action)| {
            let action = match waiting {
                0 if writing => ": writing the answer".to_string(),
                0 if action.is_empty() => String::new(),
                0 => format!(": {action}"),
                1 => ": waiting for your decision".to_string(),
                n => format!(": waiting for your decision on {n} calls"),
            };
            format!("Step {n} of {max}{action}")
        })
    };
    view! {
        <Show when=move || live.run_id.get().is_some()>
            <div class="run-status">
                <p role="status">{move || progress().unwrap_or_else(|| "Working…".to_string())}</p>
                {move || model.get().map(|m| view! { <span class="run-model">"Model: " {m}</span> })}
            </div>
        </Show>
    }
}
