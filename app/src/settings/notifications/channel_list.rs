//! The channels as a table: name, kind, where it goes (secrets masked), the last test's result and time, and
//! "Send a test", "Edit", "Remove" (confirmed). A test shows the channel's own answer or the error.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::server_fns::notifications::{delete_channel, test_channel};
use crate::settings::notifications::state::{origin, ChannelsUi};
use crate::ui::data_table::DataTable;
use crate::ui::timestamp::Timestamp;
use warden_types::channel::{ChannelView, TestResult};

const COLUMNS: [&str; 5] = ["Channel", "Kind", "Goes to", "Last test", "Actions"];

#[component]
pub fn ChannelList(list: Vec<ChannelView>, ui: ChannelsUi, shared: bool) -> impl IntoView {
    if list.is_empty() {
        let text = if shared { "No shared channel yet." } else { "No channel yet: add one, or allow this browser." };
        return view! { <p class="empty">{text}</p> }.into_any();
    }
    let caption = if shared { "Shared channels" } else { "Your channels" };
    view! {
        <DataTable class="outside-clients channels" caption=caption hidden_caption=true columns=&COLUMNS>
            {list.into_iter().map(|channel| view! { <ChannelRow channel ui/> }).collect_view()}
        </DataTable>
    }
    .into_any()
}

#[component]
fn ChannelRow(channel: ChannelView, ui: ChannelsUi) -> impl IntoView {
    let id = StoredValue::new(channel.id.clone());
    let name = StoredValue::new(channel.name.clone());
    let editing = StoredValue::new(channel.clone());
    let last_test = RwSignal::new(channel.last_test.clone());
    let testing = RwSignal::new(false);
    let confirm = move || ui.confirm_remove.with(|c| c.as_deref() == Some(id.read_value().as_str()));
    let send_test = move |_| {
        testing.set(true);
        ui.error.set(None);
        spawn_local(async move {
            match test_channel(id.get_value(), origin()).await {
                Ok(result) => last_test.set(Some(result)),
                Err(error) => ui.error.set(Some(format!("Could not test \"{}\": {error}", name.get_value()))),
            }
            testing.set(false);
        });
    };
    let remove = move |_| {
        ui.confirm_remove.set(None);
        let channel = id.get_value();
        ui.run(channel.to_string(), name.get_value(), "Could not remove", async move { delete_channel(channel).await });
    };
    let gone = channel.gone_at.is_some();
    view! {
        <tr class="channel">
            <th scope="row">{channel.name.clone()}</th>
            <td>{channel.kind.label()}</td>
            <td class="channel-destination">
                <code>{channel.config.destination()}</code>
                {gone.then(|| view! { <p class="error">"Gone: this browser unsubscribed. Allow it again."</p> })}
            </td>
            <td class="channel-test" aria-live="polite">
                {move || testing.get().then(|| view! { <span class="loading" role="status">"Sending…"</span> })}
                {move || last_test.get().map(|result| view! { <TestLine result/> })}
            </td>
            <td class="outside-actions">
                <button type="button" disabled=move || testing.get()
                    aria-label=format!("Send a test to {}", channel.name)
                    on:click=send_test>"Send a test"</button>
                <button type="button" aria-label=format!("Edit {}", channel.name)
                    on:click=move |_| ui.form.set(Some(Some(editing.get_value())))>"Edit"</button>
                <button type="button" class="danger" aria-label=format!("Remove {}", channel.name)
                    disabled=move || ui.is_busy(id.read_value().as_str())
                    on:click=move |_| ui.confirm_remove.set(Some(id.get_value().to_string()))>"Remove"</button>
                <Show when=confirm>
                    <span role="group" aria-label="Confirm removal">
                        <button type="button" class="danger" on:click=remove>"Yes, remove"</button>
                        <button type="button" on:click=move |_| ui.confirm_remove.set(None)>"Cancel"</button>
                    </span>
                </Show>
            </td>
        </tr>
    }
}

#[component]
fn TestLine(result: TestResult) -> impl IntoView {
    let (class, said) = if result.ok { ("test-ok", "Delivered") } else { ("test-failed error", "Failed") };
    view! {
        <p class=class>
            <strong>{said}</strong> ": " <span class="test-detail">{result.detail}</span>
            <br/><small><Timestamp at=result.at/></small>
        </p>
    }
}
