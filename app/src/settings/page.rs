//! `/settings`: the model providers (`providers`), the MCP servers (`mcp`), the outside clients and
//! their policy (`outside`), the executors Warden dials (`executors`), the people (`people`), the
//! person's own account, their notification channels (`notifications`; owners also the shared ones and
//! SMTP), the signed-in browsers (`signed_in_browsers`) and importing a thread (`thread_import`), one section
//! each; people who are not owners see only their own outside clients, their account, their channels,
//! browsers and (if they chat) the import.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::server_fns::people::who_am_i;
use crate::settings::executors::section::ExecutorsSection;
use crate::settings::mcp::section::McpSection;
use crate::settings::notifications::section::NotificationsSection;
use crate::settings::outside::clients::OutsideClients;
use crate::settings::outside::state::OutsideClientsChanged;
use crate::settings::people::account::AccountSection;
use crate::settings::people::section::PeopleSection;
use crate::settings::policies::PoliciesSection;
use crate::settings::providers::section::ProvidersSection;
use crate::settings::signed_in_browsers::SignedInBrowsers;
use crate::settings::thread_import::ThreadImport;
use crate::ui::error_notice::error_list;
use warden_types::person::Person;

#[component]
pub fn SettingsPage() -> impl IntoView {
    // Executors added or removed list again in the outside clients' table.
    OutsideClientsChanged::provide();
    let me = Resource::new(|| (), |_| who_am_i());
    view! {
        <Title text="Settings · Warden"/>
        <div class="settings">
            <h1>"Settings"</h1>
            <Transition fallback=|| view! { <p class="loading">"Loading settings…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move { me.await.map(|me| view! { <Sections me/> }) })}
                </ErrorBoundary>
            </Transition>
        </div>
    }
}

/// The sections `me`'s role may use: everything for an owner; for the rest their own outside clients (if
/// they chat), their account and browsers.
#[component]
fn Sections(me: Person) -> impl IntoView {
    if !me.role.manages() {
        let chats = me.role.chats();
        return view! {
            {chats.then(|| view! { <OutsideClients manages=false/> })}
            <AccountSection me=me.clone()/>
            <NotificationsSection manages=false/>
            <SignedInBrowsers/>
            {chats.then(|| view! { <ThreadImport/> })}
        }
        .into_any();
    }
    view! {
        <ProvidersSection/>
        <McpSection/>
        <OutsideClients manages=true/>
        <ExecutorsSection/>
        <PeopleSection me=me.clone()/>
        <PoliciesSection/>
        <AccountSection me=me.clone()/>
        <NotificationsSection manages=true/>
        <SignedInBrowsers/>
        <ThreadImport/>
    }
    .into_any()
}
