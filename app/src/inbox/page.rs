//! `/inbox`: every approval waiting for a person, from Warden's chats (with their connection checks:
//! a run waiting for an MCP server) and from outside clients, newest first; filters by source, risk and status; keyboard shortcuts (listed on the page); batch
//! decisions across runs, threads and clients. The first list is rendered on the server; the live feed
//! (`InboxLive`) makes the browser list again whenever something arrives or is decided, and the
//! items are a keyed list, so what a person has opened or focused stays where it is. Rows keep their
//! places while the page is open: what arrives goes below ("N new below · Show newest first").

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_meta::Title;

use crate::error::AppError;
use crate::inbox::entry::{InboxActions, InboxEntry};
use crate::inbox::keys::FocusPlan;
use crate::inbox_live::{ask_notify_permission, notify_permission, InboxLive, NotifyPermission};
use crate::model::inbox::decide::{batch_group, batch_spans, chat_input, outside_input};
use crate::model::inbox::filter::{InboxFilter, SourceFilter, StatusFilter};
use crate::model::inbox::item::{InboxItem, ItemKey};
use crate::model::inbox::list::{ClientRef, InboxList};
use crate::model::inbox::order::RowOrder;
use crate::model::{CheckDecision, CheckStatus, Verdict};
use crate::server_fns::inbox::{decide_batch, decide_outside, list_inbox};
use crate::server_fns::{decide_approval, decide_connection_check};
use crate::ui::countdown::Clock;
use crate::ui::error_notice::{error_list, ErrorNotice};
use crate::ui::keyed_list::{keyed_list, Row};
use crate::ui::shortcuts::INBOX_SHORTCUTS;

#[component]
pub fn InboxPage() -> impl IntoView {
    let live = expect_context::<InboxLive>();
    let clock = Clock::start();
    let source = RwSignal::new("all".to_string());
    let risk = RwSignal::new("any".to_string());
    let status = RwSignal::new("pending".to_string());
    let filter = Memo::new(move |_| InboxFilter {
        source: SourceFilter::from_value(&source.get()),
        risk: risk.with(|r| matches!(r.as_str(), "low" | "medium" | "high").then(|| r.clone())),
        status: StatusFilter::from_value(&status.get()),
    });
    // Rendered on the server, fetched again when the filter changes.
    let first = Resource::new(move || filter.get(), list_inbox);
    // Listed again since, for the filter it was listed with; only the newest answer lands.
    let fresh = RwSignal::new(None::<(InboxFilter, InboxList)>);
    let asked = StoredValue::new(0u64);
    let shown = Memo::new(move |_| {
        let now = filter.get();
        fresh
            .with(|f| f.as_ref().filter(|(for_filter, _)| *for_filter == now).map(|(_, list)| list.clone()))
            .or_else(|| first.get().and_then(Result::ok))
    });
    // The rows keep their places while the page is open (`RowOrder`): what arrives goes below, so a
    // flood never moves a row (or its Approve button) under the person's pointer. Started over for
    // each filter, and by "Show newest first".
    let rows = StoredValue::new((None::<InboxFilter>, RowOrder::default()));
    let resorted = RwSignal::new(0u32);
    let arranged = Memo::new(move |_| {
        resorted.track();
        let now = filter.get();
        let list = shown.get()?;
        rows.try_update_value(|(for_filter, order)| {
            if for_filter.as_ref() != Some(&now) {
                *for_filter = Some(now);
                order.start_over();
            }
            let items = order.arrange(list.items);
            (InboxList { items, ..list }, order.arrived())
        })
    });
    let newest_first = move |_| {
        rows.update_value(|(_, order)| order.start_over());
        resorted.update(|n| *n += 1);
    };
    let error = RwSignal::new(None::<AppError>);
    let notice = RwSignal::new(None::<String>);
    let selected = RwSignal::new(Vec::<ItemKey>::new());
    let busy = RwSignal::new(false);
    // Outside requests whose cut code the person has shown in full (see `CutCode`).
    let expanded = RwSignal::new(Vec::<ItemKey>::new());
    // Listed cut, not shown in full: no approval (a button, a key or a batch) until it is.
    let unseen = move |key: &ItemKey| {
        shown.with_untracked(|l| l.as_ref().is_some_and(|l| l.cut_code.iter().any(|c| c.key == *key)))
            && !expanded.with_untracked(|e| e.contains(key))
    };
    // Where the focus goes once the list shows a decision (the item decided is gone from "pending"),
    // by key: see `keys`. `seen` are the items listed when the person last moved the focus;
    // `moving` is set while the page moves it itself (that is no look of the person's).
    let focus_plan = StoredValue::new(None::<FocusPlan>);
    let seen = StoredValue::new(Vec::<ItemKey>::new());
    let moving = StoredValue::new(false);
    #[cfg(not(feature = "hydrate"))]
    let _ = (focus_plan, seen, moving); // the focus moves only in the browser

    let refresh = move || {
        let Some(this) = asked.try_update_value(|n| {
            *n += 1;
            *n
        }) else {
            return; // the page is gone
        };
        let for_filter = filter.get_untracked();
        spawn_local(async move {
            let answer = list_inbox(for_filter.clone()).await;
            if asked.try_get_value() != Some(this) {
                return;
            }
            match answer {
                Ok(list) => {
                    fresh.try_set(Some((for_filter, list)));
                }
                Err(e) => {
                    error.try_set(Some(e));
                }
            }
        });
    };
    Effect::new(move |_| {
        filter.track();
        fresh.set(None);
    });
    // Something arrived or was decided somewhere: list again.
    Effect::new(move |seen: Option<u32>| {
        let changed = live.changed.get();
        if seen.is_some_and(|s| s != changed) {
            refresh();
        }
        changed
    });
    // After a decision from the keyboard (or a button), the focus goes to the item after the decided
    // one (or before it), if the person had seen it listed; never to a newcomer.
    Effect::new(move |_| {
        arranged.track();
        #[cfg(feature = "hydrate")]
        {
            use crate::inbox::keys::{focus_is_free, focus_key, FocusStep};
            let Some(plan) = focus_plan.try_get_value().flatten() else { return };
            let listed: Vec<(ItemKey, bool)> = arranged.with_untracked(|list| {
                list.as_ref()
                    .map(|(l, _)| l.items.iter().map(|i| (i.key(), i.is_pending())).collect())
                    .unwrap_or_default()
            });
            match plan.next(&listed) {
                FocusStep::Wait => {}
                FocusStep::Leave => focus_plan.set_value(None),
                FocusStep::Focus(key) => {
                    focus_plan.set_value(None);
                    request_animation_frame(move || {
                        if focus_is_free(&plan.decided) {
                            moving.set_value(true);
                            focus_key(&key);
                            moving.set_value(false);
                        }
                    });
                }
            }
        }
    });

    let find = move |key: &ItemKey| -> Option<InboxItem> {
        shown.with_untracked(|list| list.as_ref()?.items.iter().find(|i| i.key() == *key).cloned())
    };
    // Only when the focus is in the item decided (a key or one of its buttons).
    let plan_focus = move |key: &ItemKey| {
        #[cfg(feature = "hydrate")]
        focus_plan.set_value(
            crate::inbox::keys::focused()
                .filter(|(focused, _)| focused == key)
                .map(|_| FocusPlan::new(key.clone(), &crate::inbox::keys::listed_keys(), &seen.get_value())),
        );
        #[cfg(not(feature = "hydrate"))]
        let _ = key;
    };
    let decide = Callback::new(move |(key, verdict): (ItemKey, Verdict)| {
        let Some(item) = find(&key) else { return };
        if !item.is_pending() {
            notice.set(Some(format!("Already decided: {}", item.title())));
            return;
        }
        if let InboxItem::Check(_) = item {
            // Connect or Continue anyway is no approval or denial: `a` and `d` leave it alone.
            notice.set(Some(format!("{}: use Connect or Continue anyway", item.title())));
            return;
        }
        if verdict == Verdict::Approve && unseen(&key) {
            notice.set(Some(format!("Show all of its code before approving: {}", item.title())));
            return;
        }
        plan_focus(&key);
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            let result = match &key {
                ItemKey::Chat(id) => decide_approval(id.clone().into(), chat_input(verdict, None)).await.map(|_| ()),
                ItemKey::Outside(id) => {
                    decide_outside(id.clone().into(), outside_input(verdict, None)).await.map(|_| ())
                }
                ItemKey::Check(_) => return,
            };
            let done = match verdict {
                Verdict::Approve => "Approved",
                Verdict::Deny => "Denied",
            };
            match result {
                Ok(()) => {
                    notice.try_set(Some(format!("{done}: {}", item.title())));
                }
                Err(AppError::Conflict(_)) => {
                    notice.try_set(Some(format!("Already decided elsewhere: {}", item.title())));
                }
                Err(e) => {
                    // Still pending: the focus stays on it.
                    focus_plan.try_set_value(None);
                    error.try_set(Some(e));
                }
            }
            selected.try_update(|s| s.retain(|k| *k != key));
            busy.try_set(false);
            refresh();
        });
    });
    // A connection check, through the same server function (and gate) as its card in the chat.
    let decide_check = Callback::new(move |(id, decision): (String, CheckDecision)| {
        let key = ItemKey::Check(id.clone());
        let Some(item) = find(&key) else { return };
        plan_focus(&key);
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            match decide_connection_check(id.into(), decision).await {
                Ok(answered) if answered.status == CheckStatus::Pending => {
                    // A Connect that did not connect: the item stays, with why.
                    focus_plan.try_set_value(None);
                    notice.try_set(Some(format!("Could not connect: {}", item.title())));
                }
                Ok(_) => {
                    let done = match decision {
                        CheckDecision::Connect => "Connected",
                        CheckDecision::ContinueWithout => "Continued without it",
                    };
                    notice.try_set(Some(format!("{done}: {}", item.title())));
                }
                Err(AppError::Conflict(_)) => {
                    notice.try_set(Some(format!("Already decided elsewhere: {}", item.title())));
                }
                Err(e) => {
                    focus_plan.try_set_value(None);
                    error.try_set(Some(e));
                }
            }
            busy.try_set(false);
            refresh();
        });
    });
    let updated = Callback::new(move |_| refresh());
    provide_context(InboxActions { decide, decide_check, updated, busy, clock, expanded });

    // The keyboard: shortcuts anywhere on the page except while typing in a field.
    #[cfg(feature = "hydrate")]
    {
        let navigate = leptos_router::hooks::use_navigate();
        Effect::new(move |_| {
            use crate::inbox::keys::{focus_item, focused, item_count, item_has_focus, step};
            use crate::ui::shortcuts::{inbox_shortcut, is_typing, InboxShortcut};
            let navigate = navigate.clone();
            let handle = window_event_listener(leptos::ev::keydown, move |ev| {
                if ev.default_prevented() || is_typing(&ev) {
                    return;
                }
                let Some(action) = inbox_shortcut(&ev.key(), ev.ctrl_key() || ev.alt_key() || ev.meta_key()) else {
                    return;
                };
                let current = focused();
                match action {
                    InboxShortcut::Next | InboxShortcut::Previous => {
                        let forward = action == InboxShortcut::Next;
                        if let Some(index) = step(current.map(|(_, i)| i), forward, item_count()) {
                            focus_item(index);
                        }
                    }
                    InboxShortcut::Approve | InboxShortcut::Deny => {
                        if ev.repeat() || busy.get_untracked() {
                            return;
                        }
                        let Some((key, _)) = current else { return };
                        let verdict = if action == InboxShortcut::Approve { Verdict::Approve } else { Verdict::Deny };
                        decide.run((key, verdict));
                    }
                    InboxShortcut::ToggleSelect => {
                        let Some((key, _)) = current else { return };
                        if find(&key).is_some_and(|i| i.is_pending() && i.group().is_some()) {
                            selected.update(|s| crate::model::inbox::decide::toggle_selected(s, key));
                        }
                    }
                    InboxShortcut::Open => {
                        // Enter on a button or link inside an item does what that button or link does.
                        if !item_has_focus() {
                            return;
                        }
                        let Some(item) = current.and_then(|(key, _)| find(&key)) else { return };
                        navigate(&item.href(), Default::default());
                    }
                }
                ev.prevent_default();
            });
            on_cleanup(move || handle.remove());
        });
    }

    view! {
        <Title text="Inbox · Warden"/>
        <section class="page inbox" aria-labelledby="inbox-title">
            <h1 id="inbox-title">"Inbox"</h1>
            <p class="inbox-intro">
                "Everything waiting for your approval: tool calls of your chats and requests of outside executors \
                 and agents, newest first."
            </p>
            <Filters source risk status shown/>
            <NotifyButton/>
            <div class="inbox-status" role="status">{move || notice.get()}</div>
            {move || error.get().map(|error| view! { <ErrorNotice error/> })}
            <BatchBar shown selected busy notice error expanded refresh=Callback::new(move |_| refresh())/>
            <Transition fallback=|| view! { <p class="loading">"Loading the inbox…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        first.await.map(|_| {
                            let items = move || arranged.get().map(|(list, _)| list.items).unwrap_or_default();
                            let arrived = move || arranged.with(|a| a.as_ref().map(|(_, n)| *n).unwrap_or(0));
                            view! {
                                <p class="inbox-count">
                                    {move || match shown.with(|l| l.as_ref().map(|l| l.items.len()).unwrap_or(0)) {
                                        0 => "Nothing here.".to_string(),
                                        1 => "1 approval".to_string(),
                                        n => format!("{n} approvals"),
                                    }}
                                    // Always there, hidden while nothing arrived: showing it moves no row.
                                    <button
                                        type="button"
                                        class="inbox-newest"
                                        style:visibility=move || { if arrived() > 0 { "visible" } else { "hidden" } }
                                        on:click=newest_first
                                    >
                                        {move || match arrived() {
                                            1 => "1 new below · Show newest first".to_string(),
                                            n => format!("{n} new below · Show newest first"),
                                        }}
                                    </button>
                                </p>
                                <ul class="inbox-list" aria-label="Approvals" on:focusin=move |_| {
                                    // The person moved the focus (a key, a click, Tab): what is listed now
                                    // has been in front of them.
                                    #[cfg(feature = "hydrate")]
                                    if !moving.get_value() {
                                        seen.set_value(crate::inbox::keys::listed_keys());
                                    }
                                }>
                                    {keyed_list(Arc::new(move || {
                                        items().into_iter().map(|item| {
                                            Row::new((item.key(), item.revision()), move || {
                                                let key = item.key();
                                                let cut = shown.with_untracked(|l| l.as_ref().is_some_and(|l| l.cut.contains(&key)));
                                                let cut_code = shown.with_untracked(|l| {
                                                    l.as_ref()?.cut_code.iter().find(|c| c.key == key).map(|c| c.bytes)
                                                });
                                                let decider = shown.with_untracked(|l| l.as_ref()?.decider_of(&item));
                                                let is_selected = {
                                                    let key = key.clone();
                                                    Signal::derive(move || selected.with(|s| s.contains(&key)))
                                                };
                                                let on_select = Callback::new(move |on: bool| {
                                                    let key = key.clone();
                                                    selected.update(|s| {
                                                        s.retain(|k| *k != key);
                                                        if on {
                                                            s.push(key);
                                                        }
                                                    });
                                                });
                                                view! { <InboxEntry item cut cut_code decider selected=is_selected on_select/> }.into_any()
                                            })
                                        }).collect()
                                    }))}
                                </ul>
                            }
                        })
                    })}
                </ErrorBoundary>
            </Transition>
            <Shortcuts/>
        </section>
    }
}

#[component]
fn Filters(
    source: RwSignal<String>,
    risk: RwSignal<String>,
    status: RwSignal<String>,
    shown: Memo<Option<InboxList>>,
) -> impl IntoView {
    // Filled in the browser from the lists (the server renders the fixed options only, so both agree).
    let clients = RwSignal::new(Vec::new());
    Effect::new(move |_| {
        if let Some(list) = shown.get() {
            if clients.with_untracked(|c| *c != list.clients) {
                clients.set(list.clients);
            }
        }
    });
    let options = |signal: RwSignal<String>, choices: &'static [(&'static str, &'static str)]| {
        choices
            .iter()
            .map(move |(value, label)| {
                view! { <option value=*value selected=move || signal.get() == *value>{*label}</option> }
            })
            .collect_view()
    };
    view! {
        <form class="inbox-filters" aria-label="Filters" on:submit=|ev| ev.prevent_default()>
            <label>
                "Source"
                <select on:change=move |ev| source.set(event_target_value(&ev))>
                    {options(source, &[("all", "All sources"), ("chat", "Chats")])}
                    {keyed_list(Arc::new(move || {
                        clients.get().into_iter().map(|client: ClientRef| {
                            Row::new(client.id.clone(), move || {
                                let value = SourceFilter::Client(client.id.clone()).to_value();
                                let current = value.clone();
                                view! {
                                    <option value=value selected=move || source.get() == current>
                                        "Client: " {client.name}
                                    </option>
                                }
                                .into_any()
                            })
                        }).collect()
                    }))}
                </select>
            </label>
            <label>
                "Risk"
                <select on:change=move |ev| risk.set(event_target_value(&ev))>
                    {options(risk, &[("any", "Any risk"), ("low", "Low"), ("medium", "Medium"), ("high", "High")])}
                </select>
            </label>
            <label>
                "Status"
                <select on:change=move |ev| status.set(event_target_value(&ev))>
                    {options(
                        status,
                        &[("pending", "Pending"), ("decided", "Decided"), ("expired", "Expired"), ("all", "All")],
                    )}
                </select>
            </label>
        </form>
    }
}

/// Approve or deny the selected items together, from any runs, threads and clients.
#[component]
fn BatchBar(
    shown: Memo<Option<InboxList>>,
    selected: RwSignal<Vec<ItemKey>>,
    busy: RwSignal<bool>,
    notice: RwSignal<Option<String>>,
    error: RwSignal<Option<AppError>>,
    expanded: RwSignal<Vec<ItemKey>>,
    refresh: Callback<()>,
) -> impl IntoView {
    let chosen = Memo::new(move |_| {
        let keys = selected.get();
        // Nothing is selected when the page renders: the list is then read inside its <Transition>.
        if keys.is_empty() {
            return Vec::new();
        }
        shown.with(|list| {
            list.as_ref()
                .map(|l| l.items.iter().filter(|i| keys.contains(&i.key())).cloned().collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    let check = Memo::new(move |_| chosen.with(|items| batch_group(&items.iter().collect::<Vec<_>>())));
    // Approving selected requests whose code was cut and not shown in full would approve unseen code.
    let unseen = Memo::new(move |_| {
        let cut: Vec<ItemKey> =
            shown.with(|l| l.as_ref().map(|l| l.cut_code.iter().map(|c| c.key.clone()).collect()).unwrap_or_default());
        let count = chosen.with(|items| {
            items.iter().filter(|i| cut.contains(&i.key()) && !expanded.with(|e| e.contains(&i.key()))).count()
        });
        (count > 0).then(|| {
            format!("{count} of the selected have code cut short here: show all of it in each before approving.")
        })
    });
    let reason = RwSignal::new(String::new());
    let send = move |verdict: Verdict| {
        let keys: Vec<ItemKey> = chosen.with_untracked(|items| items.iter().map(InboxItem::key).collect());
        let why = reason.get_untracked().trim().to_string();
        busy.set(true);
        error.set(None);
        spawn_local(async move {
            let count = keys.len();
            match decide_batch(keys, verdict, (!why.is_empty()).then_some(why)).await {
                Ok(outcome) => {
                    notice.try_set(Some(outcome.describe(verdict, count)));
                    selected.try_set(Vec::new());
                    reason.try_set(String::new());
                }
                Err(e) => {
                    error.try_set(Some(e));
                }
            }
            busy.try_set(false);
            refresh.run(());
        });
    };
    view! {
        <Show when=move || chosen.with(|c| !c.is_empty())>
            <section class="batch-bar" aria-label="Batch decision">
                <p>{move || {
                    let spans = check.with(|c| c.as_ref().ok().filter(|g| g.len() > 1).map(|g| batch_spans(g)));
                    let n = chosen.with(Vec::len);
                    match spans {
                        Some(spans) => format!("{n} selected, {spans}"),
                        None => format!("{n} selected"),
                    }
                }}</p>
                {move || check.get().err().map(|why| view! { <p class="batch-refused" role="status">{why}</p> })}
                {move || unseen.get().map(|why| view! { <p class="batch-refused" role="status">{why}</p> })}
                <div class="decide-buttons">
                    <button
                        type="button"
                        class="approve"
                        disabled=move || busy.get() || check.with(Result::is_err) || unseen.with(Option::is_some)
                        on:click=move |_| send(Verdict::Approve)
                    >
                        "Approve selected"
                    </button>
                    <label>
                        "Reason for denying (optional)"
                        <input type="text" dir="auto" bind:value=reason/>
                    </label>
                    <button
                        type="button"
                        class="deny"
                        disabled=move || busy.get() || check.with(Result::is_err)
                        on:click=move |_| send(Verdict::Deny)
                    >
                        "Deny selected"
                    </button>
                    <button type="button" on:click=move |_| selected.set(Vec::new())>"Clear selection"</button>
                </div>
            </section>
        </Show>
    }
}

/// Asks once, when pressed, whether Warden may notify of new approvals while its tab is hidden.
#[component]
fn NotifyButton() -> impl IntoView {
    let permission = RwSignal::new(None::<NotifyPermission>);
    // Effects run only in the browser: the server does not know, so it renders nothing here.
    Effect::new(move |_| permission.set(notify_permission()));
    let ask = move |_| {
        spawn_local(async move {
            if let Some(answer) = ask_notify_permission().await {
                permission.try_set(Some(answer));
            }
        });
    };
    move || {
        match permission.get() {
        Some(NotifyPermission::Ask) => view! {
            <p class="notify">
                <button type="button" on:click=ask>"Notify me of new approvals"</button>
                " Shown while this tab is in the background."
            </p>
        }
        .into_any(),
        Some(NotifyPermission::Granted) => view! {
            <p class="notify">"Notifications are on: a new approval is announced while this tab is in the background."</p>
        }
        .into_any(),
        Some(NotifyPermission::Denied) => view! {
            <p class="notify">"Notifications are blocked for this site in the browser's settings."</p>
        }
        .into_any(),
        Some(NotifyPermission::Unsupported) | None => ().into_any(),
    }
    }
}

#[component]
fn Shortcuts() -> impl IntoView {
    view! {
        <section class="shortcuts" aria-labelledby="shortcuts-title">
            <h2 id="shortcuts-title">"Keyboard shortcuts"</h2>
            <dl>
                {INBOX_SHORTCUTS
                    .iter()
                    .map(|(key, _, what)| view! { <dt><kbd>{*key}</kbd></dt> <dd>{*what}</dd> })
                    .collect_view()}
            </dl>
        </section>
    }
}
