//! What an outside request's card says about it, keeping the client's words apart from Warden's:
//! the risk the client claims and Warden's own reading side by side, the client's explanation
//! labelled as the client's, and every field a coding agent's call carries beside its code (the
//! answer carries them all), those that change what the call may do marked. Shared by the inbox
//! item, the full-screen view and the call's card in a chat.

use leptos::prelude::*;
use serde_json::Value;
use warden_outside::permission_prompt::{flagged_field, OTHER_INPUT};
use warden_outside::protocol::{ClientFrame, SecurityEvaluation};
use warden_outside::OutsideRequest;

use crate::ui::visible_text::visible;
use crate::wording::risk_label;

/// "Risk according to the client: high" and "Warden's risk: medium" (or that Warden cannot judge
/// this code); nothing for output to pass on, which has no risk.
pub fn risk_chips(request: &OutsideRequest) -> impl IntoView {
    let evaluation = matches!(request.request, ClientFrame::SecurityEvaluation(_));
    let client = request.risk.map(risk_label).map(|r| {
        view! { <span class=format!("risk client-risk risk-{r}")>"Risk according to the client: " <strong>{r}</strong></span> }
    });
    let warden = evaluation.then(|| match request.warden_risk.map(risk_label) {
        Some(r) => view! {
            <span class=format!("risk warden-risk risk-{r}")>"Warden's risk: " <strong>{r}</strong></span>
        }
        .into_any(),
        None => view! {
            <span class="risk warden-risk not-judged">"Warden's risk: not judged (Warden reads shell commands only)"</span>
        }
        .into_any(),
    });
    view! { {client} {warden} }
}

/// The client's explanation, as the client's words.
pub fn client_says(explanation: &str) -> impl IntoView {
    view! {
        <p class="explanation client-claim">
            <span class="claim-label">"The client says: "</span>
            {visible(explanation.to_string())}
        </p>
    }
}

/// The fields of a coding agent's call beside its code (`metadata.other_input`, see
/// `warden_outside::permission_prompt`): all of them, as JSON, those that change what the call may
/// do marked. `None` when the request has none.
pub fn other_input(evaluation: &SecurityEvaluation) -> Option<AnyView> {
    let metadata = evaluation.metadata.as_ref()?;
    let tool = metadata.get("tool_name").and_then(Value::as_str).unwrap_or_default().to_string();
    let Some(Value::Object(fields)) = metadata.get(OTHER_INPUT) else { return None };
    if fields.is_empty() {
        return None;
    }
    let rows = fields
        .iter()
        .map(|(name, value)| {
            let flagged = flagged_field(&tool, name);
            let shown = match value {
                Value::String(text) => text.clone(),
                other => serde_json::to_string(other).unwrap_or_default(),
            };
            view! {
                <dt class:flagged=flagged>{visible(name.clone())}</dt>
                <dd class:flagged=flagged>
                    <code>{visible(shown)}</code>
                    {flagged.then(|| view! { <strong class="flag-note">" — changes what the call may do"</strong> })}
                </dd>
            }
        })
        .collect_view();
    Some(
        view! {
            <div class="other-input">
                <p>"Also in this call (approving sends all of it):"</p>
                <dl>{rows}</dl>
            </div>
        }
        .into_any(),
    )
}
