//! An outside request on the card of the tool call it belongs to: an executor the call's MCP tool
//! reached asked whether its code may run (or its output be passed on), naming the call. It shows what
//! the client sent (as text: it is untrusted), its risk, how it was decided, and while it waits
//! Approve / Edit / Deny, which decide this request alone through `decide_outside`, as the inbox does,
//! with the time it has left before it times out and "Extend".

use leptos::prelude::*;
use warden_outside::protocol::ClientFrame;
use warden_outside::{OutsideRequest, RequestStatus};

use crate::chat::linked_outside::LinkedOutside;
use crate::ui::countdown::{Clock, Countdown};
use crate::ui::outside_claims::{client_says, other_input, risk_chips};
use crate::ui::outside_decision::OutsideDecision;
use crate::ui::visible_text::{hidden_chars_note, visible};
use crate::wording::{kind_label, outside_decision_text};

#[component]
pub fn LinkedRequestCard(request: OutsideRequest, linked: LinkedOutside) -> impl IntoView {
    let heading_id = format!("linked-{}", request.id);
    let labelled_by = heading_id.clone();
    let title = format!("{} from {}", kind_label(request.kind), request.client_name);
    let risk = request.risk.max(request.warden_risk).map(|r| r.to_string());
    let decided = {
        let (request, me) = (request.clone(), crate::ui::routing::Me::id());
        move || outside_decision_text(&request, me.get().as_ref(), None)
    };
    let pending = request.status == RequestStatus::Pending;
    let class = match &risk {
        Some(r) => format!("linked-request approval-card risk-{r}"),
        None => "linked-request approval-card".to_string(),
    };
    let (content, code) = match &request.as_shown() {
        ClientFrame::SecurityEvaluation(e) => (
            view! {
                {hidden_chars_note("code", [e.code.as_str()])}
                <p class="code-meta">
                    {e.language.clone().map(|l| format!("Language: {l}")).unwrap_or_else(|| "Plain text".into())}
                </p>
                <pre class="code"><code>{visible(e.code.clone())}</code></pre>
                {other_input(e)}
                {client_says(&e.explanation)}
            }
            .into_any(),
            Some(e.code.clone()),
        ),
        ClientFrame::CodeResponse(r) => (
            view! {
                <p class="exit-code">
                    {match r.exit_code {
                        Some(code) => format!("Exit code: {code}"),
                        None => "Exit code: unknown".to_string(),
                    }}
                </p>
                {hidden_chars_note("output", [r.stdout.as_str(), r.stderr.as_str()])}
                <h5>"Standard output"</h5>
                <pre class="stdout">{visible(r.stdout.clone())}</pre>
                <h5>"Standard error"</h5>
                <pre class="stderr">{visible(r.stderr.clone())}</pre>
            }
            .into_any(),
            None,
        ),
    };
    let on_decided = Callback::new(move |decided: OutsideRequest| linked.replace(decided));

    view! {
        <section class=class aria-labelledby=labelled_by>
            <h4 id=heading_id>{title}</h4>
            <p class="risks">{risk_chips(&request)}</p>
            {content}
            <p class="decided" role="status">{decided}</p>
            {pending.then(|| {
                let clock = Clock::start();
                // Extended, only the countdown is drawn again (an edit under way stays).
                let deadline = RwSignal::new(request.expires_at.clone());
                let on_extended = Callback::new(move |extended: OutsideRequest| {
                    deadline.set(extended.expires_at.clone());
                    linked.replace(extended);
                });
                let id = request.id.clone();
                view! {
                    {move || view! {
                        <Countdown request_id=id.clone().to_string() expires_at=deadline.get() clock on_extended/>
                    }}
                    <OutsideDecision request_id=request.id.clone().to_string() code on_decided/>
                }
                .into_any()
            })}
        </section>
    }
    .into_any()
}
