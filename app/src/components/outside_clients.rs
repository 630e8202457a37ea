//! Settings' "Outside clients": register an executor or agent (its token is shown once, with a
//! copy button, and never again: only its hash is stored), the registered clients with Revoke
//! (confirmed inline) and their policy overrides, and the global auto-approve policy.

use std::future::Future;

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::error_notice::error_list;
use super::outside_client_row::OutsideClientRow;
use super::outside_policy::GlobalPolicyForm;
use super::token_reveal::TokenReveal;
use crate::error::AppError;
use crate::server_fns::outside::{create_outside_client, list_outside_clients, outside_policy};
use warden_outside::{Client, NewClient};

/// The section's shared state, provided as context to its pieces.
#[derive(Clone, Copy)]
pub struct OutsideUi {
    /// Bumped after every change; the client list refetches on it.
    pub changed: RwSignal<u32>,
    /// The last failed action, as "what: why".
    pub error: RwSignal<Option<String>>,
    /// The last action that worked, in words.
    pub notice: RwSignal<Option<String>>,
    /// The client whose revocation waits for confirmation.
    pub confirm_revoke: RwSignal<Option<String>>,
    /// The client whose policy override is open for editing.
    pub editing: RwSignal<Option<String>>,
    /// Set while an action is under way (the buttons are disabled meanwhile).
    pub busy: RwSignal<bool>,
}

impl OutsideUi {
    fn new() -> Self {
        Self {
            changed: RwSignal::new(0),
            error: RwSignal::new(None),
            notice: RwSignal::new(None),
            confirm_revoke: RwSignal::new(None),
            editing: RwSignal::new(None),
            busy: RwSignal::new(false),
        }
    }

    pub fn refresh(&self) {
        self.changed.update(|v| *v += 1);
    }

    pub fn failed(&self, message: String) {
        self.notice.set(None);
        self.error.set(Some(message));
    }

    /// Runs one change through the hub, then refreshes the list; says `done` or `what: why`.
    pub fn run<F>(self, what: &'static str, done: &'static str, action: F)
    where
        F: Future<Output = Result<(), AppError>> + 'static,
    {
        self.error.set(None);
        self.notice.set(None);
        self.busy.set(true);
        spawn_local(async move {
            match action.await {
                Ok(()) => self.notice.set(Some(done.to_string())),
                Err(error) => self.error.set(Some(format!("{what}: {error}"))),
            }
            self.busy.set(false);
            self.refresh();
        });
    }
}

/// Bumped when something outside this section adds or removes a client (Settings → Executors: each
/// executor asks as a client of its own), so the table lists again without a reload. Provided by
/// the settings page, above both sections.
#[derive(Clone, Copy)]
pub struct OutsideClientsChanged(RwSignal<u32>);

impl OutsideClientsChanged {
    pub fn provide() -> Self {
        let changed = Self(RwSignal::new(0));
        provide_context(changed);
        changed
    }

    /// Tells the table to list again.
    pub fn bump(self) {
        self.0.try_update(|n| *n = n.wrapping_add(1));
    }
}

#[component]
pub fn OutsideClients() -> impl IntoView {
    let ui = OutsideUi::new();
    provide_context(ui);
    let elsewhere = use_context::<OutsideClientsChanged>();
    let clients = Resource::new(move || (ui.changed.get(), elsewhere.map(|c| c.0.get())), |_| list_outside_clients());
    let policy = Resource::new(|| (), |_| outside_policy());
    // The token of the client just registered: in this signal only, gone with a reload.
    let revealed = RwSignal::new(None::<NewClient>);

    view! {
        <section class="outside" aria-labelledby="outside-title">
            <h2 id="outside-title">"Outside clients"</h2>
            <p class="mcp-intro">
                "Executors and agents outside Warden that ask you before they run code or pass its output on \
                 (over the approvals WebSocket or HTTP, with their own token)."
            </p>
            {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <p role="status" class="notice">{move || ui.notice.get()}</p>
            <RegisterForm revealed/>
            {move || revealed.get().map(|created| view! { <TokenReveal created on_done=move || revealed.set(None)/> })}
            <Transition fallback=|| view! { <p class="loading">"Loading clients…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { clients.await.map(|list| view! { <ClientTable list/> }) })}
                </ErrorBoundary>
            </Transition>
            <Transition fallback=|| view! { <p class="loading">"Loading the policy…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { policy.await.map(|policy| view! { <GlobalPolicyForm policy/> }) })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
    // Type-erased: nested into the settings page as one type, it is too deep for the compiler.
    .into_any()
}

#[component]
fn RegisterForm(revealed: RwSignal<Option<NewClient>>) -> impl IntoView {
    let ui = expect_context::<OutsideUi>();
    let name = RwSignal::new(String::new());
    let register = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let chosen = name.get_untracked();
        ui.error.set(None);
        ui.notice.set(None);
        ui.busy.set(true);
        spawn_local(async move {
            match create_outside_client(chosen).await {
                Ok(created) => {
                    name.set(String::new());
                    revealed.set(Some(created));
                }
                Err(error) => ui.failed(format!("Could not register the client: {error}")),
            }
            ui.busy.set(false);
            ui.refresh();
        });
    };
    view! {
        <form class="outside-register" on:submit=register>
            <label>
                "Client name"
                <input type="text" maxlength="64" required placeholder="code runner"
                    prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))/>
            </label>
            <button type="submit" disabled=move || ui.busy.get() || name.with(|n| n.trim().is_empty())>
                "Register client"
            </button>
        </form>
    }
}

#[component]
fn ClientTable(list: Vec<Client>) -> impl IntoView {
    if list.is_empty() {
        return view! { <p class="empty">"No outside clients yet."</p> }.into_any();
    }
    view! {
        <table class="outside-clients">
            <caption>"Registered clients"</caption>
            <thead>
                <tr>
                    <th scope="col">"Name"</th>
                    <th scope="col">"Registered"</th>
                    <th scope="col">"State"</th>
                    <th scope="col">"Policy"</th>
                    <th scope="col">"Actions"</th>
                </tr>
            </thead>
            <tbody>
                {list.into_iter().map(|client| view! { <OutsideClientRow client/> }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}
