//! One registered outside client in Settings: its name, when it was registered, whether it is
//! revoked, its policy override (editable), and Revoke, confirmed inline (no browser dialog).

use leptos::prelude::*;

use crate::server_fns::outside::revoke_outside_client;
use crate::settings::outside::policy::{override_summary, ClientPolicyForm};
use crate::settings::outside::state::OutsideUi;
use crate::ui::timestamp::Timestamp;
use warden_outside::Client;

#[component]
pub fn OutsideClientRow(client: Client) -> impl IntoView {
    let ui = expect_context::<OutsideUi>();
    let id = StoredValue::new(client.id.clone());
    let name = StoredValue::new(client.name.clone());
    let revoked = client.revoked_at.clone();
    let active = revoked.is_none();
    let confirming = move || ui.confirm_revoke.read().as_deref() == Some(id.read_value().as_str());
    let editing = move || ui.editing.read().as_deref() == Some(id.read_value().as_str());
    let revoke =
        move |_| {
            ui.confirm_revoke.set(None);
            let id = id.get_value();
            ui.run("Could not revoke the client", "Client revoked.", async move {
                revoke_outside_client(id).await.map(drop)
            });
        };
    let toggle_editing = move |_| {
        let id = id.get_value();
        ui.editing
            .update(|open| *open = if open.as_deref() == Some(id.as_str()) { None } else { Some(id.to_string()) });
    };
    let state = match revoked {
        Some(at) => view! { <span class="revoked">"Revoked " <Timestamp at/></span> }.into_any(),
        None => view! { <span class="active">"Active"</span> }.into_any(),
    };
    let form_client = StoredValue::new(client.clone());

    // Each piece is type-erased (`into_any`): nested as one type, the row is too deep for the compiler.
    let main_row = view! {
        <tr class=if active { "outside-client" } else { "outside-client revoked" }>
            <th scope="row">{client.name.clone()}</th>
            <td><Timestamp at=client.created_at.clone()/></td>
            <td>{state}</td>
            <td>{override_summary(&client.policy)}</td>
            <td class="outside-actions">
                <Show when=move || active>
                    <Show when=move || ui.manages>
                        <button type="button" aria-expanded=move || editing().to_string()
                            aria-label=format!("Override policy of {}", name.get_value()) on:click=toggle_editing>
                            "Override policy"
                        </button>
                    </Show>
                    <button type="button" class="danger" disabled=move || ui.busy.get()
                        aria-label=format!("Revoke {}", name.get_value())
                        on:click=move |_| ui.confirm_revoke.set(Some(id.get_value().to_string()))>
                        "Revoke"
                    </button>
                </Show>
            </td>
        </tr>
    }
    .into_any();
    let confirm_row = move || {
        view! {
            <tr class="outside-confirm-row">
                <td colspan="5">
                    <div class="mcp-confirm" role="group" aria-label="Confirm revocation">
                        <p>
                            "Revoke " <strong>{name.get_value()}</strong>
                            "? Its token stops working at once and its connections close. This cannot be undone."
                        </p>
                        <button type="button" class="danger" on:click=revoke>
                            {format!("Yes, revoke {}", name.get_value())}
                        </button>
                        <button type="button" on:click=move |_| ui.confirm_revoke.set(None)>"Cancel"</button>
                    </div>
                </td>
            </tr>
        }
        .into_any()
    };
    let policy_row = move || {
        view! {
            <tr class="outside-policy-row">
                <td colspan="5"><ClientPolicyForm client=form_client.get_value()/></td>
            </tr>
        }
        .into_any()
    };

    view! {
        {main_row}
        <Show when=confirming>{confirm_row()}</Show>
        <Show when=editing>{policy_row()}</Show>
    }
    .into_any()
}
