//! A server's tools as a table: the name the model sees, the server's hints, the risk, whether a
//! call waits for approval, and a policy select per tool. Without `server` (a connection test's
//! result) the policy cannot be changed yet and is shown as text.

use leptos::prelude::*;

use crate::server_fns::mcp::set_mcp_tool_policy;
use crate::settings::mcp::actions::McpUi;
use crate::ui::data_table::DataTable;
use warden_types::mcp::{McpToolStatus, ToolPolicy};

#[component]
pub fn McpToolTable(
    tools: Vec<McpToolStatus>,
    #[prop(optional)] server: Option<String>,
    caption: String,
) -> impl IntoView {
    if tools.is_empty() {
        return view! { <p class="empty">"No tools."</p> }.into_any();
    }
    let rows = tools.into_iter().map(|tool| view! { <McpToolRow tool server=server.clone()/> }).collect_view();
    view! {
        <DataTable class="mcp-tools" caption columns=&["Tool", "Hints", "Risk", "Approval", "Policy"]>
            {rows}
        </DataTable>
    }
    .into_any()
}

#[component]
fn McpToolRow(tool: McpToolStatus, server: Option<String>) -> impl IntoView {
    let approval = if tool.policy == ToolPolicy::Disabled {
        "Not offered"
    } else if tool.needs_approval {
        "Asks first"
    } else {
        "Runs without asking"
    };
    let risk = tool.risk.label();
    let about = tool.title.clone().or(tool.description.clone());
    let hints = view! {
        {tool.read_only_hint.then(|| view! { <span class="badge badge-read-only">"read-only"</span> })}
        {tool.destructive_hint.then(|| view! { <span class="badge badge-destructive">"destructive"</span> })}
        {tool.offline.then(|| view! { <span class="badge badge-offline">"offline"</span> })}
    };
    let policy = match server {
        Some(server) => view! { <PolicySelect server tool=tool.name.clone() current=tool.policy/> }.into_any(),
        None => tool.policy.label().into_any(),
    };
    view! {
        <tr>
            <th scope="row">
                <code>{tool.name.clone()}</code>
                {about.map(|text| view! { <span class="mcp-tool-about">{text}</span> })}
            </th>
            <td>{hints}</td>
            <td class=format!("risk risk-{risk}")><strong>{risk}</strong></td>
            <td>{approval}</td>
            <td>{policy}</td>
        </tr>
    }
}

#[component]
fn PolicySelect(server: String, tool: String, current: ToolPolicy) -> impl IntoView {
    let ui = expect_context::<McpUi>();
    let label = format!("Policy for {tool}");
    let busy_server = server.clone();
    let on_change = move |ev: leptos::ev::Event| {
        let Some(policy) = ToolPolicy::from_key(&event_target_value(&ev)) else {
            return;
        };
        let (name, tool) = (server.clone(), tool.clone());
        ui.run(
            server.clone(),
            server.clone(),
            "Could not change a tool policy on",
            set_mcp_tool_policy(name, tool, policy),
        );
    };
    view! {
        <select aria-label=label disabled=move || ui.is_busy(&busy_server) on:change=on_change>
            {ToolPolicy::ALL
                .into_iter()
                .map(|p| view! { <option value=p.key() selected=p == current>{p.label()}</option> })
                .collect_view()}
        </select>
    }
}
