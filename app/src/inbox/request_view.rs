//! One outside request full screen: what it is and who sent it, its countdown, and tabs for the
//! code (highlighted on the server), the explanation and the output, then the decision. The code's
//! HTML comes from `crate::highlight` (escaped text in classed spans, sanitised to nothing else);
//! everything else the client sent is shown as text.

use leptos::prelude::*;
use warden_outside::protocol::{ClientFrame, CodeResponse, SecurityEvaluation};
use warden_outside::{OutsideRequest, RequestStatus};

use crate::server_fns::inbox::OutsideView;
use crate::ui::countdown::{Clock, Countdown};
use crate::ui::outside_claims::{client_says, other_input, risk_chips};
use crate::ui::outside_decision::OutsideDecision;
use crate::ui::visible_text::{hidden_chars_note, visible};
use crate::wording::{kind_label, outside_decision_text};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tab {
    Code,
    Explanation,
    Output,
}

impl Tab {
    const ALL: [Tab; 3] = [Tab::Code, Tab::Explanation, Tab::Output];

    fn label(self) -> &'static str {
        match self {
            Tab::Code => "Code",
            Tab::Explanation => "Explanation",
            Tab::Output => "Output",
        }
    }

    fn id(self) -> &'static str {
        match self {
            Tab::Code => "code",
            Tab::Explanation => "explanation",
            Tab::Output => "output",
        }
    }

    /// The tab after (or before) this one, round the ends.
    fn beside(self, forward: bool) -> Tab {
        let at = Tab::ALL.iter().position(|t| *t == self).unwrap_or(0);
        let len = Tab::ALL.len();
        Tab::ALL[if forward { (at + 1) % len } else { (at + len - 1) % len }]
    }
}

#[component]
pub fn OutsideRequestView(data: OutsideView, clock: Clock) -> impl IntoView {
    let OutsideView { request: first, follows, code_html, syntax, decider } = data;
    let request = RwSignal::new(first.clone());
    let evaluation: Option<SecurityEvaluation> =
        [Some(&first), follows.as_ref()].into_iter().flatten().find_map(|r| match r.as_shown() {
            ClientFrame::SecurityEvaluation(e) => Some(e),
            ClientFrame::CodeResponse(_) => None,
        });
    let response: Option<CodeResponse> = match &first.request {
        ClientFrame::CodeResponse(r) => Some(r.clone()),
        ClientFrame::SecurityEvaluation(_) => None,
    };
    let tab = RwSignal::new(if response.is_some() { Tab::Output } else { Tab::Code });
    let on_decided = Callback::new(move |decided: OutsideRequest| request.set(decided));
    let pending = Memo::new(move |_| request.with(|r| r.status == RequestStatus::Pending));
    let me = crate::ui::routing::Me::id();
    let editable_code = match first.as_shown() {
        ClientFrame::SecurityEvaluation(e) => Some(e.code),
        ClientFrame::CodeResponse(_) => None,
    };
    let risk = first.risk.map(|r| r.to_string());
    let request_id = first.id.clone();
    let client_request_id = first.client_request_id.clone();
    let received = format!(" · received {}", first.created_at);
    let title = format!("{} from {}", kind_label(first.kind), first.client_name);

    let tab_button = move |t: Tab| {
        view! {
            <button
                type="button"
                role="tab"
                id=format!("tab-{}", t.id())
                aria-controls=format!("panel-{}", t.id())
                aria-selected=move || (tab.get() == t).to_string()
                tabindex=move || if tab.get() == t { "0" } else { "-1" }
                on:click=move |_| tab.set(t)
                on:keydown=move |ev| {
                    let forward = match ev.key().as_str() {
                        "ArrowRight" => true,
                        "ArrowLeft" => false,
                        _ => return,
                    };
                    ev.prevent_default();
                    let next = t.beside(forward);
                    tab.set(next);
                    #[cfg(feature = "hydrate")]
                    if let Some(button) = document().get_element_by_id(&format!("tab-{}", next.id())) {
                        use wasm_bindgen::JsCast;
                        if let Ok(button) = button.dyn_into::<web_sys::HtmlElement>() {
                            let _ = button.focus();
                        }
                    }
                }
            >
                {t.label()}
            </button>
        }
    };
    let panel = move |t: Tab, content: AnyView| {
        view! {
            <div
                role="tabpanel"
                id=format!("panel-{}", t.id())
                aria-labelledby=format!("tab-{}", t.id())
                class="tab-panel"
                hidden=move || tab.get() != t
            >
                {content}
            </div>
        }
    };

    // Code with hidden characters comes unhighlighted (see `get_outside_request`): shown with markers.
    let code_panel = match (&evaluation, code_html) {
        (Some(e), Some(html)) => view! {
            <p class="code-meta">{format!("Highlighted as {}", syntax.unwrap_or_default())}</p>
            <pre class="code hl"><code inner_html=html></code></pre>
            {other_input(e)}
        }
        .into_any(),
        (Some(e), None) => view! {
            {hidden_chars_note("code", [e.code.as_str()])}
            <p class="code-meta">{e.language.clone().map(|l| format!("Language: {l}")).unwrap_or_else(|| "Plain text".into())}</p>
            <pre class="code"><code>{visible(e.code.clone())}</code></pre>
            {other_input(e)}
        }
        .into_any(),
        (None, _) => view! { <p class="empty">"This output came without the code that produced it."</p> }.into_any(),
    };
    let explanation_panel = match &evaluation {
        Some(e) => view! {
            {client_says(&e.explanation)}
            {e.metadata.as_ref().map(|m| view! {
                <h3>"Metadata"</h3>
                <pre class="metadata">{visible(serde_json::to_string_pretty(m).unwrap_or_default())}</pre>
            })}
        }
        .into_any(),
        None => view! { <p class="empty">"The client gave no explanation."</p> }.into_any(),
    };
    let output_panel = match &response {
        Some(r) => view! {
            <p class="exit-code">
                {match r.exit_code {
                    Some(code) => format!("Exit code: {code}"),
                    None => "Exit code: unknown".to_string(),
                }}
            </p>
            {hidden_chars_note("output", [r.stdout.as_str(), r.stderr.as_str()])}
            <h3>"Standard output"</h3>
            <pre class="stdout">{visible(r.stdout.clone())}</pre>
            <h3>"Standard error"</h3>
            <pre class="stderr">{visible(r.stderr.clone())}</pre>
        }
        .into_any(),
        None => view! {
            <p class="empty">"No output: this request asks whether the code may run at all."</p>
        }
        .into_any(),
    };

    view! {
        <article class="outside-request" aria-labelledby="request-title">
            <header>
                <h1 id="request-title">{title}</h1>
                <p class="request-meta">
                    {risk.map(|_| view! { {risk_chips(&first)} " · " })}
                    "Client request " <code>{client_request_id}</code>
                    {received}
                </p>
                <p class="decided" role="status">{move || request.with(|r| outside_decision_text(r, me.get().as_ref(), decider.as_deref()))}</p>
                {move || pending.get().then(|| {
                    let r = request.get();
                    view! {
                        <Countdown
                            request_id=r.id.to_string()
                            expires_at=r.expires_at
                            clock
                            on_extended=on_decided
                        />
                    }
                })}
            </header>
            <div role="tablist" aria-label="Request" class="tabs">
                {Tab::ALL.into_iter().map(tab_button).collect_view()}
            </div>
            {panel(Tab::Code, code_panel)}
            {panel(Tab::Explanation, explanation_panel)}
            {panel(Tab::Output, output_panel)}
            {move || pending.get().then(|| view! {
                <OutsideDecision request_id=request_id.clone().to_string() code=editable_code.clone() on_decided/>
            })}
        </article>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrow_keys_go_round_the_tabs() {
        assert_eq!(Tab::Code.beside(true), Tab::Explanation);
        assert_eq!(Tab::Output.beside(true), Tab::Code);
        assert_eq!(Tab::Code.beside(false), Tab::Output);
    }
}
