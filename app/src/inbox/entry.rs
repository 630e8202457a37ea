//! One item of the inbox: a chat approval (what the tool call will do: its diff, command or
//! arguments, as its card in the chat shows them; a link to its thread) or an outside request (kind,
//! client, risk, explanation, its countdown with Extend, the code), with Approve and Deny while it
//! waits and how it was decided after; or a connection check (the thread, the MCP server and what
//! the run wanted of it), with Connect and Continue anyway while it waits. The item itself takes focus, so the page's keyboard shortcuts
//! act on the focused one. What the call or the code does is shown open while the item waits (nobody
//! approves what they could not see; opening it on focus instead moved the buttons under a click)
//! and folded away once it is decided.
//! Everything a model or client wrote is shown as text.

use leptos::prelude::*;
use leptos::task::spawn_local;
use warden_outside::protocol::ClientFrame;
use warden_outside::OutsideRequest;

use super::sent_to::SentTo;
use crate::model::inbox::item::{InboxItem, ItemKey};
use crate::model::inbox::trim::{size_text, SHOWN_BYTES};
use crate::model::{Approval, CheckDecision, ThreadCheck, Verdict};
use crate::server_fns::inbox::get_outside_request;
use crate::ui::call_preview::{call_preview, preview_label};
use crate::ui::countdown::{Clock, Countdown};
use crate::ui::outside_claims::{client_says, other_input, risk_chips};
use crate::ui::visible_text::{hidden_chars_note, visible};
use crate::wording::{check_reason_text, kind_label};

/// What an item can ask its page to do.
#[derive(Clone, Copy)]
pub struct InboxActions {
    pub decide: Callback<(ItemKey, Verdict)>,
    /// Connect or Continue anyway, for the connection check with this id.
    pub decide_check: Callback<(String, CheckDecision)>,
    /// The request came back changed (extended): show it as it is now.
    pub updated: Callback<OutsideRequest>,
    /// A decision is on its way: the buttons wait.
    pub busy: RwSignal<bool>,
    pub clock: Clock,
    /// The outside requests whose code (or output), cut short in the list, the person has shown in
    /// full: only those may be approved (see [`crate::model::inbox::trim::CutCode`]).
    pub expanded: RwSignal<Vec<ItemKey>>,
}

#[component]
pub fn InboxEntry(
    item: InboxItem,
    /// A long text of the item was cut for the list.
    #[prop(optional)]
    cut: bool,
    /// An outside request's code (or output) is cut in the list: how long all of it is. Approve
    /// waits until the person shows all of it.
    #[prop(optional_no_strip)]
    cut_code: Option<usize>,
    /// The name of the person who decided it, for an outside request a person decided.
    #[prop(optional_no_strip)]
    decider: Option<String>,
    selected: Signal<bool>,
    on_select: Callback<bool>,
) -> impl IntoView {
    let actions = expect_context::<InboxActions>();
    let key = item.key();
    let dom_key = key.to_attr();
    let notified = (!matches!(key, ItemKey::Check(_))).then(|| key.clone());
    let heading_id = format!("inbox-{}", dom_key.replace(':', "-"));
    let title = item.title();
    let pending = item.is_pending();
    let risk = item.risk();
    let risk_class = risk.map(|r| format!("risk-{r}")).unwrap_or_default();
    // What a waiting item would do is shown open, so nobody decides without seeing it (the list
    // carries it trimmed to 4 KiB); a decided one folds it away.
    let opened = pending;
    // All of an outside request's code once the person asked for it; until then a cut one cannot
    // be approved.
    let full = RwSignal::new(None::<OutsideRequest>);
    let cut_code = cut_code.filter(|_| matches!(item, InboxItem::Outside(_)));
    let unseen = Signal::derive(move || pending && cut_code.is_some() && full.with(Option::is_none));
    let unseen_id = format!("unseen-{}", dom_key.replace(':', "-"));
    let body = match &item {
        InboxItem::Chat(approval) => chat_body(approval, opened).into_any(),
        InboxItem::Outside(request) => {
            let shown = Shown { full, cut_code, unseen_id: unseen_id.clone(), key: key.clone() };
            outside_body(request, pending, actions, opened, shown).into_any()
        }
        InboxItem::Check(check) => check_body(check, pending).into_any(),
    };
    // A chat approval routed to others (an owner sees it) has no buttons: the server would refuse them.
    let decidable = match &item {
        InboxItem::Chat(approval) => crate::ui::routing::Me::may_decide(approval),
        InboxItem::Outside(request) => crate::ui::routing::Me::may_decide_on(request.route()),
        InboxItem::Check(_) => Signal::derive(|| true),
    };
    let batchable = item.group().is_some();
    let check_id = match &item {
        InboxItem::Check(c) => Some(c.check.id.clone()),
        _ => None,
    };
    let decide = move |verdict: Verdict| {
        let key = key.clone();
        move |_| actions.decide.run((key.clone(), verdict))
    };
    let select_label = format!("Select: {title}");
    let labelled_by = heading_id.clone();
    view! {
        <li>
            <article
                class=format!("inbox-item {risk_class}")
                tabindex="0"
                data-key=dom_key
                aria-labelledby=labelled_by
            >
                <header class="inbox-item-head">
                    {(pending && batchable).then(|| view! {
                        <input
                            type="checkbox"
                            class="select"
                            aria-label=select_label
                            prop:checked=move || selected.get()
                            on:change=move |ev| on_select.run(event_target_checked(&ev))
                        />
                    })}
                    <h2 id=heading_id dir="auto">{title}</h2>
                    {match &item {
                        InboxItem::Outside(request) => risk_chips(request).into_any(),
                        _ => risk.map(|r| view! {
                            <span class=format!("risk risk-{r}")>"Risk: " <strong>{r}</strong></span>
                        })
                        .into_any(),
                    }}
                </header>
                {body}
                {notified.map(|key| view! { <SentTo key/> })}
                {cut.then(|| view! {
                    <p class="cut-note">
                        {format!("Long texts are cut to their first {} KiB here; ", SHOWN_BYTES / 1024)}
                        {match &item {
                            InboxItem::Chat(_) => "the thread shows all of it.",
                            InboxItem::Outside(_) => "the full-screen view shows all of it.",
                            InboxItem::Check(_) => "the thread shows all of it.",
                        }}
                    </p>
                })}
                <footer class="inbox-item-foot">
                    {match (pending, check_id) {
                        (true, Some(id)) => check_buttons(id.to_string(), actions).into_any(),
                        (true, None) => view! {
                            <span class="decide-pair" hidden=move || !decidable.get()>
                            <button
                                type="button"
                                class="approve"
                                disabled=move || actions.busy.get() || unseen.get()
                                aria-describedby=move || unseen.get().then(|| unseen_id.clone())
                                on:click=decide(Verdict::Approve)
                            >
                                "Approve"
                            </button>
                            <button type="button" class="deny" disabled=move || actions.busy.get() on:click=decide(Verdict::Deny)>
                                "Deny"
                            </button>
                            </span>
                        }
                        .into_any(),
                        (false, _) => {
                            let (item, me) = (item.clone(), crate::ui::routing::Me::id());
                            view! { <p class="decided">{move || item.outcome(me.get().as_ref(), decider.as_deref())}</p> }.into_any()
                        }
                    }}
                    <a class="open" href=item.href()>
                        {match &item {
                            InboxItem::Chat(_) | InboxItem::Check(_) => "Open the thread",
                            InboxItem::Outside(r) if r.linked_call.is_some() => "Open the thread",
                            InboxItem::Outside(_) => "Open full screen",
                        }}
                    </a>
                </footer>
            </article>
        </li>
    }
}

fn chat_body(approval: &Approval, opened: bool) -> impl IntoView {
    let mine = crate::ui::routing::Me::may_decide(approval);
    view! {
        <p class="inbox-source">"From a chat · tool " <code>{approval.tool.clone()}</code></p>
        <p class="routing-line">{crate::ui::routing::routing_line(approval)}</p>
        <p class="not-yours" hidden=move || mine.get()>"Not routed to you: its approvers decide it."</p>
        <details class="inbox-preview" open=opened>
            <summary>{preview_label(approval)}</summary>
            {call_preview(approval)}
        </details>
    }
}

/// The thread and the server are named by the person and the model: text only.
fn check_body(item: &ThreadCheck, pending: bool) -> impl IntoView {
    let check = &item.check;
    let error = check.error.clone().filter(|_| pending);
    view! {
        <p class="inbox-source">
            "From the chat “" <bdi>{item.thread_title.clone()}</bdi> "” · MCP server " <code>{check.server.clone()}</code>
            {format!(" ({})", check.down.label())}
        </p>
        <p class="explanation">{check_reason_text(&check.reason, &check.server)}</p>
        {pending.then(|| view! {
            <p class="explanation">
                "The run waits: connect the server to go on with it, or continue without it (the thread will \
                 not ask about it again for an hour)."
            </p>
        })}
        {error.map(|message| view! { <p class="error" role="alert">"Could not connect: " {message}</p> })}
    }
}

fn check_buttons(id: String, actions: InboxActions) -> impl IntoView {
    let decide = move |decision: CheckDecision| {
        let id = id.clone();
        move |_| actions.decide_check.run((id.clone(), decision))
    };
    view! {
        <button type="button" class="approve" disabled=move || actions.busy.get() on:click=decide(CheckDecision::Connect)>
            "Connect"
        </button>
        <button type="button" disabled=move || actions.busy.get() on:click=decide(CheckDecision::ContinueWithout)>
            "Continue anyway"
        </button>
    }
}

/// How much of an outside request's code (or output) the item shows, and whether all of it.
struct Shown {
    full: RwSignal<Option<OutsideRequest>>,
    /// How long all of it is, when the list cut it.
    cut_code: Option<usize>,
    /// The id of the note saying Approve waits.
    unseen_id: String,
    key: ItemKey,
}

fn outside_body(
    request: &OutsideRequest,
    pending: bool,
    actions: InboxActions,
    opened: bool,
    shown: Shown,
) -> impl IntoView {
    let on_a_call = if request.linked_call.is_some() { " · on a tool call of a chat" } else { "" };
    let source = format!("{} · client {}{on_a_call}", kind_label(request.kind), request.client_name);
    let routing = crate::ui::routing::routing_line_of(&request.route(), &request.votes);
    let mine = crate::ui::routing::Me::may_decide_on(request.route());
    let edited = request.shown_code.is_some().then(|| {
        view! {
            <p class="explanation">"An approver edited this code: approvals count on the code shown."</p>
        }
    });
    let Shown { full, cut_code, unseen_id, key } = shown;
    // The request as listed (cut) until the person shows all of it.
    let listed = request.clone();
    let current = move || full.get().unwrap_or_else(|| listed.clone());
    let details = match &request.request {
        ClientFrame::SecurityEvaluation(e) => {
            let language = e.language.clone().map(|l| format!(" ({l})"));
            let code = move || match current().as_shown() {
                ClientFrame::SecurityEvaluation(e) => e.code,
                ClientFrame::CodeResponse(_) => String::new(),
            };
            let note_code = code.clone();
            view! {
                {move || hidden_chars_note("code", [note_code().as_str()])}
                <details class="inbox-code" open=opened>
                    <summary>"Code" {language}</summary>
                    <pre class="code-text" class:expanded=move || full.with(Option::is_some)><code>{move || visible(code())}</code></pre>
                </details>
                {other_input(e)}
                {client_says(&e.explanation)}
            }
            .into_any()
        }
        ClientFrame::CodeResponse(r) => {
            let output = move || match current().request {
                ClientFrame::CodeResponse(r) => (r.stdout, r.stderr),
                ClientFrame::SecurityEvaluation(_) => Default::default(),
            };
            let note_output = output.clone();
            view! {
                <p class="explanation">
                    {match r.exit_code {
                        Some(code) => format!("May this output be passed on? The code exited with {code}."),
                        None => "May this output be passed on? The exit code is unknown.".to_string(),
                    }}
                </p>
                {move || {
                    let (stdout, stderr) = note_output();
                    hidden_chars_note("output", [stdout.as_str(), stderr.as_str()])
                }}
                <details class="inbox-code" open=opened>
                    <summary>"Output"</summary>
                    {move || {
                        let (stdout, stderr) = output();
                        view! {
                            <pre class="stdout code-text">{visible(stdout)}</pre>
                            {(!stderr.is_empty()).then(|| view! { <pre class="stderr code-text">{visible(stderr)}</pre> })}
                        }
                    }}
                </details>
            }
            .into_any()
        }
    };
    let more = cut_code.map(|bytes| {
        let id = request.id.clone();
        let failed = RwSignal::new(None::<String>);
        let loading = RwSignal::new(false);
        let show_all = move |_| {
            let id = id.clone();
            let key = key.clone();
            loading.set(true);
            spawn_local(async move {
                match get_outside_request(id).await {
                    Ok(view) => {
                        full.try_set(Some(view.request));
                        actions.expanded.try_update(|e| e.push(key));
                    }
                    Err(e) => {
                        failed.try_set(Some(e.to_string()));
                    }
                }
                loading.try_set(false);
            });
        };
        let hidden = bytes.saturating_sub(SHOWN_BYTES);
        view! {
            {move || match full.with(Option::is_some) {
                false => view! {
                    <p class="more-follows" id=unseen_id.clone()>
                        {format!(
                            "Shown: the first {} of {}; {} more follow{}.",
                            size_text(SHOWN_BYTES),
                            size_text(bytes),
                            size_text(hidden),
                            if pending { ". Show all of it to approve" } else { "" },
                        )}
                    </p>
                    <button type="button" class="show-all" disabled=move || loading.get() on:click=show_all.clone()>
                        {format!("Show all {}", size_text(bytes))}
                    </button>
                }
                .into_any(),
                true => view! { <p class="more-follows">{format!("All {} shown.", size_text(bytes))}</p> }.into_any(),
            }}
            {move || failed.get().map(|e| view! { <p class="error" role="alert">"Could not show all of it: " {e}</p> })}
        }
    });
    let countdown = pending.then(|| {
        view! {
            <Countdown
                request_id=request.id.clone().to_string()
                expires_at=request.expires_at.clone()
                clock=actions.clock
                on_extended=actions.updated
            />
        }
    });
    view! {
        <p class="inbox-source">{source}</p>
        <p class="routing-line">{routing}</p>
        <p class="not-yours" hidden=move || mine.get()>"Not routed to you: its approvers decide it."</p>
        {edited}
        {details}
        {more}
        {countdown}
    }
}
