//! The add/edit form for one MCP server: name, transport (stdio command, arguments and environment,
//! or HTTP URL and headers), trust in read-only hints; Test connection shows what the server offers
//! (or why it failed) before anything is saved. Redacted secrets shown when editing are kept as stored
//! while the server's command, arguments and environment (or URL) stay the same.

use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::mcp::{save_mcp_server, test_mcp_connection};
use crate::settings::mcp::actions::McpUi;
use crate::settings::mcp::form_fields::{FormFields, TransportKind};
use crate::settings::mcp::tool_table::McpToolTable;
use warden_types::mcp::{McpServerConfig, ServerProbe};

/// What the last Test connection found.
#[derive(Clone)]
enum TestOutcome {
    Found(ServerProbe),
    Failed(String),
}

#[component]
pub fn McpServerForm(editing: Option<McpServerConfig>) -> impl IntoView {
    let ui = expect_context::<McpUi>();
    let initial = editing.as_ref().map(FormFields::from_config).unwrap_or_default();
    let is_edit = editing.is_some();
    let base = StoredValue::new(editing);
    let fields = RwSignal::new(initial);
    let error = RwSignal::new(None::<String>);
    let tested = RwSignal::new(None::<TestOutcome>);
    let working = RwSignal::new(false);
    let first_field = NodeRef::<Input>::new();
    // Opening the form moves focus into it (and scrolls it into view).
    Effect::new(move |_| {
        if let Some(input) = first_field.get() {
            let _ = input.focus();
        }
    });

    let config = move || fields.with_untracked(|f| base.with_value(|b| f.to_config(b.as_ref())));
    let test = move |_| match config() {
        Err(message) => error.set(Some(message)),
        Ok(config) => {
            error.set(None);
            tested.set(None);
            working.set(true);
            spawn_local(async move {
                tested.set(Some(match test_mcp_connection(config).await {
                    Ok(probe) => TestOutcome::Found(probe),
                    Err(e) => TestOutcome::Failed(e.to_string()),
                }));
                working.set(false);
            });
        }
    };
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match config() {
            Err(message) => error.set(Some(message)),
            Ok(config) => {
                error.set(None);
                working.set(true);
                spawn_local(async move {
                    match save_mcp_server(config).await {
                        Ok(()) => {
                            ui.form.set(None);
                            ui.refresh();
                        }
                        Err(e) => error.set(Some(e.to_string())),
                    }
                    working.set(false);
                });
            }
        }
    };

    let title = match base.with_value(|b| b.as_ref().map(|c| c.name.clone())) {
        Some(name) => format!("Edit {name}"),
        None => "Add server".to_string(),
    };
    let text = move |get: fn(&FormFields) -> &String| move || fields.with(|f| get(f).clone());
    let kind = move || fields.with(|f| f.kind);
    view! {
        <form class="mcp-form" aria-labelledby="mcp-form-title" on:submit=save>
            <h3 id="mcp-form-title">{title}</h3>
            <label>
                "Name"
                <input type="text" node_ref=first_field required readonly=is_edit autocomplete="off"
                    prop:value=text(|f| &f.name) on:input=move |ev| fields.update(|f| f.name = event_target_value(&ev))/>
            </label>
            <fieldset>
                <legend>"Transport"</legend>
                <label>
                    <input type="radio" name="mcp-transport" prop:checked=move || kind() == TransportKind::Stdio
                        on:change=move |_| fields.update(|f| f.kind = TransportKind::Stdio)/>
                    "stdio (a local command)"
                </label>
                <label>
                    <input type="radio" name="mcp-transport" prop:checked=move || kind() == TransportKind::Http
                        on:change=move |_| fields.update(|f| f.kind = TransportKind::Http)/>
                    "HTTP (a URL)"
                </label>
            </fieldset>
            <Show
                when=move || kind() == TransportKind::Stdio
                fallback=move || view! {
                    <label>
                        "URL"
                        <input type="url" autocomplete="off" prop:value=text(|f| &f.url)
                            on:input=move |ev| fields.update(|f| f.url = event_target_value(&ev))/>
                    </label>
                    <label>
                        "Headers (Name: value, one per line)"
                        <textarea rows="3" prop:value=text(|f| &f.headers)
                            on:input=move |ev| fields.update(|f| f.headers = event_target_value(&ev))></textarea>
                    </label>
                }
            >
                <label>
                    "Command"
                    <input type="text" autocomplete="off" prop:value=text(|f| &f.command)
                        on:input=move |ev| fields.update(|f| f.command = event_target_value(&ev))/>
                </label>
                <label>
                    "Arguments (one per line, or separated by spaces)"
                    <textarea rows="3" prop:value=text(|f| &f.args)
                        on:input=move |ev| fields.update(|f| f.args = event_target_value(&ev))></textarea>
                </label>
                <label>
                    "Environment (KEY=VALUE, one per line)"
                    <textarea rows="3" prop:value=text(|f| &f.env)
                        on:input=move |ev| fields.update(|f| f.env = event_target_value(&ev))></textarea>
                </label>
            </Show>
            <label>
                <input type="checkbox" prop:checked=move || fields.with(|f| f.trust_read_only_hints)
                    on:change=move |ev| fields.update(|f| f.trust_read_only_hints = event_target_checked(&ev))/>
                "Trust read-only hints (tools marked read-only run without asking)"
            </label>
            {is_edit.then(|| view! { <p class="hint">"Values shown as •••• are kept as stored unless you replace them. They are kept only for the same command, arguments and environment, or URL: change one of those and re-enter them."</p> })}
            <div class="mcp-form-buttons">
                <button type="button" disabled=move || working.get() on:click=test>"Test connection"</button>
                <button type="submit" class="approve" disabled=move || working.get()>"Save"</button>
                <button type="button" on:click=move |_| ui.form.set(None)>"Cancel"</button>
            </div>
            {move || working.get().then(|| view! { <p class="loading" role="status">"Working…"</p> })}
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            {move || tested.get().map(|outcome| view! { <TestResult outcome/> })}
        </form>
    }
}

#[component]
fn TestResult(outcome: TestOutcome) -> impl IntoView {
    match outcome {
        TestOutcome::Failed(message) => {
            view! { <p class="error" role="alert">"Connection failed: " {message}</p> }.into_any()
        }
        TestOutcome::Found(probe) => {
            let who = probe
                .server_info
                .map(|i| format!("{} {}", i.name, i.version))
                .unwrap_or_else(|| "a server that did not name itself".into());
            let count = probe.tools.len();
            view! {
                <section class="mcp-test-result" aria-label="Connection test result">
                    <p role="status">"Connection works: " {who} ", " {count} " tools."</p>
                    {probe.tools_notice.map(|notice| view! { <p class="notice" role="note">{notice}</p> })}
                    <McpToolTable tools=probe.tools caption="Tools found".to_string()/>
                </section>
            }
            .into_any()
        }
    }
}
