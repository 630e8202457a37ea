//! The thread's standing "allowed for this thread" rules, each with a Revoke button.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::error_notice::ErrorNotice;
use crate::error::AppError;
use crate::model::ThreadRule;
use crate::server_fns::revoke_rule;

#[component]
pub fn RulesPanel(rules: Vec<ThreadRule>, on_change: Callback<()>) -> impl IntoView {
    let error = RwSignal::new(None::<AppError>);
    if rules.is_empty() {
        return ().into_any();
    }
    let items = rules
        .into_iter()
        .map(|rule| {
            let id = rule.id.clone();
            let revoke = move |_| {
                let id = id.clone();
                spawn_local(async move {
                    match revoke_rule(id).await {
                        Ok(()) => on_change.run(()),
                        Err(e) => {
                            error.try_set(Some(e));
                        }
                    }
                });
            };
            let label = format!("Revoke the rule for {}", rule.tool);
            view! {
                <li>
                    <code>{rule.tool}</code> ": " {rule.matcher.describe()}
                    <button type="button" aria-label=label on:click=revoke>"Revoke"</button>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="rules" aria-labelledby="rules-heading">
            <h2 id="rules-heading">"Allowed in this thread"</h2>
            <ul>{items}</ul>
            {move || error.get().map(|error| view! { <ErrorNotice error/> })}
        </section>
    }
    .into_any()
}
