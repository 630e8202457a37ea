//! `/settings`: the model providers (`providers`), the MCP servers (`mcp`), the outside clients and
//! their policy (`outside`), the executors Warden dials (`executors`), and the signed-in browsers
//! (`signed_in_browsers`), one section each.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::settings::executors::section::ExecutorsSection;
use crate::settings::mcp::section::McpSection;
use crate::settings::outside::clients::OutsideClients;
use crate::settings::outside::state::OutsideClientsChanged;
use crate::settings::providers::section::ProvidersSection;
use crate::settings::signed_in_browsers::SignedInBrowsers;

#[component]
pub fn SettingsPage() -> impl IntoView {
    // Executors added or removed list again in the outside clients' table.
    OutsideClientsChanged::provide();
    view! {
        <Title text="Settings · Warden"/>
        <div class="settings">
            <h1>"Settings"</h1>
            <ProvidersSection/>
            <McpSection/>
            <OutsideClients/>
            <ExecutorsSection/>
            <SignedInBrowsers/>
        </div>
    }
}
