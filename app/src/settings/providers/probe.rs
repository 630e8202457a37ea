//! What a provider's connection test found, for the form and for each entry: whether it worked, the
//! provider's own words (or why it failed), and the models it offers.

use leptos::prelude::*;

use crate::settings::providers::actions::ProbeOutcome;

#[component]
pub fn ProviderProbeView(outcome: ProbeOutcome, #[prop(into)] label: String) -> impl IntoView {
    match outcome {
        ProbeOutcome::Refused(message) => {
            view! { <p class="error" role="alert">"Not tested: " {message}</p> }.into_any()
        }
        ProbeOutcome::Tested(probe) if !probe.ok => view! {
            <p class="error provider-probe" role="alert" aria-label=label>
                <strong>"Connection failed: "</strong> {probe.message}
            </p>
        }
        .into_any(),
        ProbeOutcome::Tested(probe) => {
            let models = (!probe.models.is_empty()).then(|| {
                let count = probe.models.len();
                view! {
                    <details class="provider-models" open>
                        <summary>{format!("Models found ({count})")}</summary>
                        <ul>{probe.models.into_iter().map(|m| view! { <li><code>{m}</code></li> }).collect_view()}</ul>
                    </details>
                }
            });
            view! {
                <section class="provider-probe ok" aria-label=label>
                    <p role="status"><strong>"Connection works. "</strong> {probe.message}</p>
                    {models}
                </section>
            }
            .into_any()
        }
    }
}
