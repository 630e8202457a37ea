//! The thread's standing "allowed for this thread" rules, each with a Revoke button. A keyed
//! list: a change that leaves a rule as it was leaves its row (and its button) in place.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::error::AppError;
use crate::model::ThreadRule;
use crate::server_fns::revoke_rule;
use crate::ui::error_notice::ErrorNotice;
use crate::ui::keyed_list::{keyed_list, Row};

#[component]
pub fn RulesPanel(rules: Signal<Vec<ThreadRule>>, on_revoked: Callback<String>) -> impl IntoView {
    let error = RwSignal::new(None::<AppError>);
    let row = move |rule: ThreadRule| {
        let id = rule.id.clone();
        let revoke = move |_| {
            let id = id.clone();
            spawn_local(async move {
                match revoke_rule(id.clone()).await {
                    Ok(()) => on_revoked.run(id.to_string()),
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
    };
    view! {
        <Show when=move || rules.with(|r| !r.is_empty())>
            <section class="rules" aria-labelledby="rules-heading">
                <h2 id="rules-heading">"Allowed in this thread"</h2>
                <ul>
                    {keyed_list(Arc::new(move || {
                        rules.get().into_iter().map(|rule| Row::new(rule.id.clone(), move || row(rule).into_any())).collect()
                    }))}
                </ul>
                {move || error.get().map(|error| view! { <ErrorNotice error/> })}
            </section>
        </Show>
    }
}
