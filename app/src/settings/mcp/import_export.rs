//! Import and export in the `mcpServers` JSON format other MCP clients use: paste a document to add
//! or update servers, or show every server as one (secrets redacted by the server).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::mcp::{export_mcp_servers, import_mcp_servers};
use crate::settings::mcp::actions::McpUi;

#[component]
pub fn McpImportExport() -> impl IntoView {
    let ui = expect_context::<McpUi>();
    let pasted = RwSignal::new(String::new());
    let imported = RwSignal::new(None::<Result<Vec<String>, String>>);
    let exported = RwSignal::new(None::<Result<String, String>>);

    let import = move |_| {
        let json = pasted.get_untracked();
        imported.set(None);
        spawn_local(async move {
            let outcome = import_mcp_servers(json).await.map_err(|e| e.to_string());
            if outcome.is_ok() {
                pasted.set(String::new());
                ui.refresh();
            }
            imported.set(Some(outcome));
        });
    };
    let export = move |_| {
        spawn_local(async move {
            exported.set(Some(export_mcp_servers().await.map_err(|e| e.to_string())));
        });
    };

    view! {
        <section class="mcp-import-export" aria-labelledby="mcp-import-title">
            <h3 id="mcp-import-title">"Import and export"</h3>
            <label>
                "mcpServers JSON to import"
                <textarea rows="6" placeholder=r#"{"mcpServers": {"name": {"command": "npx", "args": ["-y", "package"]}}}"#
                    prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
            </label>
            <div class="mcp-form-buttons">
                <button type="button" disabled=move || pasted.with(|p| p.trim().is_empty()) on:click=import>"Import"</button>
                <button type="button" on:click=export>"Export"</button>
            </div>
            {move || imported.get().map(|outcome| match outcome {
                Ok(names) if names.is_empty() => view! { <p role="status">"Nothing to import."</p> }.into_any(),
                Ok(names) => view! { <p role="status">"Imported: " {names.join(", ")}</p> }.into_any(),
                Err(message) => view! { <p class="error" role="alert">"Import failed: " {message}</p> }.into_any(),
            })}
            {move || exported.get().map(|outcome| match outcome {
                Ok(json) => view! {
                    <label>
                        "Exported configuration (secrets redacted)"
                        <textarea rows="10" readonly prop:value=json></textarea>
                    </label>
                }
                .into_any(),
                Err(message) => view! { <p class="error" role="alert">"Export failed: " {message}</p> }.into_any(),
            })}
        </section>
    }
}
