//! The outside clients' auto-approve policy as forms: the global one (security evaluations up to a
//! risk level, code responses never / on success / always, the default timeout) and a client's
//! override of it (each part either "as the global policy" or its own). Saving goes through the hub.

use leptos::prelude::*;

use crate::server_fns::outside::{set_outside_client_policy, set_outside_policy};
use crate::settings::outside::state::OutsideUi;
use warden_outside::{Client, ClientPolicy, CodeResponseAuto, Policy, SecurityAuto};

const SECURITY: [(SecurityAuto, &str, &str); 4] = [
    (SecurityAuto::Never, "never", "Never: ask a person"),
    (SecurityAuto::Low, "low", "Up to low risk"),
    (SecurityAuto::Medium, "medium", "Up to medium risk"),
    (SecurityAuto::High, "high", "Up to high risk (everything)"),
];

const CODE: [(CodeResponseAuto, &str, &str); 3] = [
    (CodeResponseAuto::Never, "never", "Never: ask a person"),
    (CodeResponseAuto::OnSuccess, "on_success", "Only when the code succeeded (exit code 0)"),
    (CodeResponseAuto::Always, "always", "Always"),
];

/// The value `""` of a client's select: no override.
const GLOBAL: &str = "";

fn security_value(level: SecurityAuto) -> &'static str {
    SECURITY.iter().find(|(l, ..)| *l == level).map_or("never", |(_, v, _)| v)
}

fn security_of(value: &str) -> Option<SecurityAuto> {
    SECURITY.iter().find(|(_, v, _)| *v == value).map(|(l, ..)| *l)
}

fn code_value(rule: CodeResponseAuto) -> &'static str {
    CODE.iter().find(|(r, ..)| *r == rule).map_or("never", |(_, v, _)| v)
}

fn code_of(value: &str) -> Option<CodeResponseAuto> {
    CODE.iter().find(|(_, v, _)| *v == value).map(|(r, ..)| *r)
}

/// The `<option>`s of a choice, the current one selected.
fn options<T>(table: &'static [(T, &'static str, &'static str)], current: RwSignal<String>) -> impl IntoView {
    table
        .iter()
        .map(|(_, value, label)| {
            let value = *value;
            view! { <option value=value selected=move || current.get() == value>{*label}</option> }
        })
        .collect_view()
}

/// A timeout field: empty is "not set"; otherwise whole seconds (the server checks the range).
fn seconds_of(text: &str) -> Result<Option<u64>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| format!("`{text}` is not a whole number of seconds"))
}

fn seconds_text(secs: Option<u64>) -> String {
    secs.map(|s| s.to_string()).unwrap_or_default()
}

/// The policy every client follows unless it has an override.
#[component]
pub fn GlobalPolicyForm(policy: Policy) -> impl IntoView {
    let ui = expect_context::<OutsideUi>();
    let security = RwSignal::new(security_value(policy.security_evaluation).to_string());
    let code = RwSignal::new(code_value(policy.code_response).to_string());
    let timeout = RwSignal::new(seconds_text(policy.timeouts.default_secs));

    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let default_secs = match seconds_of(&timeout.get_untracked()) {
            Ok(secs) => secs,
            Err(message) => return ui.failed(format!("Could not save the policy: {message}")),
        };
        let mut next = policy;
        next.security_evaluation = security_of(&security.get_untracked()).unwrap_or_default();
        next.code_response = code_of(&code.get_untracked()).unwrap_or_default();
        next.timeouts.default_secs = default_secs;
        ui.run("Could not save the policy", "Policy saved.", async move { set_outside_policy(next).await.map(drop) });
    };

    view! {
        <form class="outside-policy" aria-labelledby="outside-policy-title" on:submit=save>
            <h3 id="outside-policy-title">"Auto-approve policy"</h3>
            <p class="mcp-intro">
                "What is approved without asking a person. Every automatic decision is recorded with the rule \
                 that made it (see the audit log)."
            </p>
            <label>
                "Approve security evaluations automatically"
                <select on:change=move |ev| security.set(event_target_value(&ev))>
                    {options(&SECURITY, security)}
                </select>
            </label>
            <label>
                "Approve code responses automatically"
                <select on:change=move |ev| code.set(event_target_value(&ev))>
                    {options(&CODE, code)}
                </select>
            </label>
            <label>
                "Default timeout (seconds; empty: 120)"
                <input type="number" min="1" max="86400" inputmode="numeric" placeholder="120"
                    prop:value=move || timeout.get() on:input=move |ev| timeout.set(event_target_value(&ev))/>
            </label>
            <div class="mcp-form-buttons">
                <button type="submit">"Save policy"</button>
            </div>
        </form>
    }
    .into_any()
}

/// A client's own policy: each part overrides the global one, or follows it.
#[component]
pub fn ClientPolicyForm(client: Client) -> impl IntoView {
    let ui = expect_context::<OutsideUi>();
    let policy = client.policy;
    let security = RwSignal::new(policy.security_evaluation.map_or(GLOBAL, security_value).to_string());
    let code = RwSignal::new(policy.code_response.map_or(GLOBAL, code_value).to_string());
    let timeout = RwSignal::new(seconds_text(policy.timeouts.default_secs));
    let id = StoredValue::new(client.id.clone());
    let name = client.name.clone();

    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let default_secs = match seconds_of(&timeout.get_untracked()) {
            Ok(secs) => secs,
            Err(message) => return ui.failed(format!("Could not save the override: {message}")),
        };
        let mut next: ClientPolicy = policy;
        next.security_evaluation = security_of(&security.get_untracked());
        next.code_response = code_of(&code.get_untracked());
        next.timeouts.default_secs = default_secs;
        ui.run("Could not save the override", "Override saved.", async move {
            set_outside_client_policy(id.get_value(), next).await.map(drop)
        });
    };

    view! {
        <form class="outside-client-policy" aria-label=format!("Policy of {name}") on:submit=save>
            <label>
                "Security evaluations"
                <select on:change=move |ev| security.set(event_target_value(&ev))>
                    <option value=GLOBAL selected=move || security.get().is_empty()>"As the global policy"</option>
                    {options(&SECURITY, security)}
                </select>
            </label>
            <label>
                "Code responses"
                <select on:change=move |ev| code.set(event_target_value(&ev))>
                    <option value=GLOBAL selected=move || code.get().is_empty()>"As the global policy"</option>
                    {options(&CODE, code)}
                </select>
            </label>
            <label>
                "Timeout (seconds; empty: as the global policy)"
                <input type="number" min="1" max="86400" inputmode="numeric"
                    prop:value=move || timeout.get() on:input=move |ev| timeout.set(event_target_value(&ev))/>
            </label>
            <div class="mcp-form-buttons">
                <button type="submit">"Save override"</button>
            </div>
        </form>
    }
    .into_any()
}

/// A client's override in a few words, for its row.
pub fn override_summary(policy: &ClientPolicy) -> String {
    let mut parts = Vec::new();
    if let Some(level) = policy.security_evaluation {
        parts.push(format!("security evaluations: {}", label_of(&SECURITY, level)));
    }
    if let Some(rule) = policy.code_response {
        parts.push(format!("code responses: {}", label_of(&CODE, rule)));
    }
    if let Some(secs) = policy.timeouts.default_secs {
        parts.push(format!("timeout {secs} s"));
    }
    if parts.is_empty() {
        "global policy".to_string()
    } else {
        parts.join("; ")
    }
}

fn label_of<T: PartialEq + Copy>(table: &[(T, &str, &'static str)], value: T) -> String {
    table.iter().find(|(v, ..)| *v == value).map_or("?", |(.., label)| label).to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_reads_back_as_itself() {
        for (level, value, _) in SECURITY {
            assert_eq!((security_value(level), security_of(value)), (value, Some(level)));
        }
        for (rule, value, _) in CODE {
            assert_eq!((code_value(rule), code_of(value)), (value, Some(rule)));
        }
        assert_eq!(security_of(GLOBAL), None, "the empty choice is no override");
    }

    #[test]
    fn the_select_values_are_the_policy_s_own_names() {
        for (level, value, _) in SECURITY {
            assert_eq!(serde_json::to_value(level).unwrap(), value);
        }
        for (rule, value, _) in CODE {
            assert_eq!(serde_json::to_value(rule).unwrap(), value);
        }
    }

    #[test]
    fn a_timeout_field_is_empty_or_whole_seconds() {
        assert_eq!(seconds_of(" "), Ok(None));
        assert_eq!(seconds_of("30"), Ok(Some(30)));
        assert!(seconds_of("1.5").is_err());
    }
}
