//! Settings' "Approval policies", for owners: the policies in the order they are tried (moved up and down),
//! each with what it matches, who approves, how many must, whether the requester may, and its timeout; a
//! form adds one or edits one in place; a policy is deleted after a confirmation. A request no policy matches
//! is decided as before: by any owner or approver, alone.

use leptos::prelude::*;

use crate::server_fns::people::list_people;
use crate::server_fns::policies::{delete_policy, list_policies, reorder_policies, save_policy};
use crate::settings::section_ui::SectionUi;
use crate::ui::error_notice::error_list;
use warden_types::id::{PersonId, PolicyId};
use warden_types::person::{Person, Role};
use warden_types::policy::{Approvers, Policy, PolicyInput, PolicyMatch, RequesterMatch, Source};
use warden_types::tool::Risk;

type Ui = SectionUi<Policy>;

#[component]
pub fn PoliciesSection() -> impl IntoView {
    let ui = Ui::new();
    let policies = Resource::new(move || ui.changed.get(), |_| list_policies());
    let people = Resource::new(|| (), |_| list_people());
    view! {
        <section class="policies" aria-labelledby="policies-title">
            <h2 id="policies-title">"Approval policies"</h2>
            <p class="mcp-intro">
                "The first policy that matches a request routes it to its approvers. A request no policy matches \
                 is decided by any owner or approver, alone."
            </p>
            {move || ui.error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
            <Transition fallback=|| view! { <p class="loading">"Loading policies…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        let (list, people) = (policies.await?, people.await?);
                        Ok::<_, crate::error::AppError>(view! { <PolicyList list people ui/> })
                    })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
}

#[component]
fn PolicyList(list: Vec<Policy>, people: Vec<Person>, ui: Ui) -> impl IntoView {
    let ids: Vec<PolicyId> = list.iter().map(|p| p.id.clone()).collect();
    let people = StoredValue::new(people);
    let rows = list
        .into_iter()
        .enumerate()
        .map(|(at, policy)| view! { <PolicyRow policy at ids=ids.clone() people=people.get_value() ui/> })
        .collect_view();
    view! {
        <ol class="policy-list">{rows}</ol>
        {move || match ui.form.get() {
            Some(editing) => view! { <PolicyForm editing people=people.get_value() ui/> }.into_any(),
            None => view! {
                <button type="button" on:click=move |_| ui.form.set(Some(None))>"Add a policy"</button>
            }
            .into_any(),
        }}
    }
}

/// A policy in words: "tool write_* · risk at least high", "every request".
fn matches_text(m: &PolicyMatch, people: &[Person]) -> String {
    let mut parts = Vec::new();
    if let Some(source) = m.source {
        parts.push(format!("from {}", source.label().to_lowercase()));
    }
    if let Some(tool) = &m.tool {
        parts.push(format!("tool {tool}"));
    }
    if let Some(server) = &m.mcp_server {
        parts.push(format!("MCP server {server}"));
    }
    if let Some(risk) = m.risk_at_least {
        parts.push(format!("risk at least {}", risk.label()));
    }
    match &m.requester {
        Some(RequesterMatch::Person { id }) => parts.push(format!("asked by {}", name_of(people, id))),
        Some(RequesterMatch::Role { role }) => parts.push(format!("asked by a {}", role.label().to_lowercase())),
        None => {}
    }
    if parts.is_empty() {
        "every request".into()
    } else {
        parts.join(" · ")
    }
}

/// Puts `item` in `chosen` once (`on`) or takes it out: a checkbox of the approvers' lists.
fn set_chosen<T: PartialEq>(chosen: &mut Vec<T>, item: T, on: bool) {
    chosen.retain(|x| *x != item);
    if on {
        chosen.push(item);
    }
}

fn name_of(people: &[Person], id: &PersonId) -> String {
    people.iter().find(|p| p.id == *id).map(|p| p.name.clone()).unwrap_or_else(|| id.to_string())
}

fn approvers_text(a: &Approvers, people: &[Person]) -> String {
    let mut names: Vec<String> = a.people.iter().map(|id| name_of(people, id)).collect();
    names.extend(a.roles.iter().map(|r| format!("every {}", r.label().to_lowercase())));
    names.join(", ")
}

#[component]
fn PolicyRow(policy: Policy, at: usize, ids: Vec<PolicyId>, people: Vec<Person>, ui: Ui) -> impl IntoView {
    let count = ids.len();
    let id = policy.id.to_string();
    let name = policy.name.clone();
    let moved = move |to: usize| {
        let mut order = ids.clone();
        let moving = order.remove(at);
        order.insert(to, moving);
        let (id, name) = (id.clone(), name.clone());
        move |_| {
            let order = order.clone();
            ui.run(id.clone(), name.clone(), "Could not move", async move { reorder_policies(order).await })
        }
    };
    let (remove_id, remove_name) = (policy.id.clone(), policy.name.clone());
    let confirm_key = policy.id.to_string();
    let confirming = move || ui.confirm_remove.get().as_deref() == Some(confirm_key.as_str());
    let editing = StoredValue::new(policy.clone());
    let requirement = format!(
        "{} of its approvers must approve{}{}",
        policy.quorum,
        if policy.self_approval { "; the requester may be one" } else { "; never the requester" },
        policy.timeout_secs.map(|s| format!("; waits {s} s")).unwrap_or_default()
    );
    let label = policy.name.clone();
    view! {
        <li class="policy">
            <h3>{policy.name.clone()}</h3>
            <p>"Matches: " {matches_text(&policy.matches, &people)}</p>
            <p>"Approvers: " {approvers_text(&policy.approvers, &people)}</p>
            <p>{requirement}</p>
            <div class="policy-actions">
                <button type="button" disabled={at == 0} aria-label=format!("Move {label} up") on:click={moved(at.saturating_sub(1))}>"Up"</button>
                <button type="button" disabled={at + 1 >= count} aria-label=format!("Move {label} down") on:click={moved((at + 1).min(count.saturating_sub(1)))}>"Down"</button>
                <button type="button" aria-label=format!("Edit {label}") on:click=move |_| ui.form.set(Some(Some(editing.get_value())))>"Edit"</button>
                <Show
                    when=confirming.clone()
                    fallback={
                        let key = policy.id.to_string();
                        let label = label.clone();
                        move || {
                            let key = key.clone();
                            view! {
                                <button type="button" aria-label=format!("Delete {label}") on:click=move |_| ui.confirm_remove.set(Some(key.clone()))>"Delete"</button>
                            }
                        }
                    }
                >
                    {
                        let (id, name) = (remove_id.clone(), remove_name.clone());
                        view! {
                            <button type="button" class="danger" on:click=move |_| {
                                let id = id.clone();
                                ui.confirm_remove.set(None);
                                ui.run(id.to_string(), name.clone(), "Could not delete", async move { delete_policy(id).await });
                            }>"Delete for good"</button>
                            <button type="button" on:click=move |_| ui.confirm_remove.set(None)>"Keep it"</button>
                        }
                    }
                </Show>
            </div>
        </li>
    }
}

/// The add/edit form. Empty fields are no condition.
#[component]
fn PolicyForm(editing: Option<Policy>, people: Vec<Person>, ui: Ui) -> impl IntoView {
    let id = editing.as_ref().map(|p| p.id.clone());
    let start = editing.clone();
    let m = start.as_ref().map(|p| p.matches.clone()).unwrap_or_default();
    let name = RwSignal::new(start.as_ref().map(|p| p.name.clone()).unwrap_or_default());
    let source = RwSignal::new(m.source.map(|s| s.as_str().to_string()).unwrap_or_default());
    let tool = RwSignal::new(m.tool.clone().unwrap_or_default());
    let server = RwSignal::new(m.mcp_server.clone().unwrap_or_default());
    let risk = RwSignal::new(m.risk_at_least.map(|r| r.label().to_string()).unwrap_or_default());
    let requester = RwSignal::new(match &m.requester {
        Some(RequesterMatch::Person { id }) => format!("person:{id}"),
        Some(RequesterMatch::Role { role }) => format!("role:{}", role.as_str()),
        None => String::new(),
    });
    let approvers = start.as_ref().map(|p| p.approvers.clone()).unwrap_or_default();
    let chosen_people = RwSignal::new(approvers.people.clone());
    let chosen_roles = RwSignal::new(approvers.roles.clone());
    let quorum = RwSignal::new(start.as_ref().map(|p| p.quorum).unwrap_or(1).to_string());
    let self_approval = RwSignal::new(start.as_ref().map(|p| p.self_approval).unwrap_or(false));
    let timeout = RwSignal::new(start.as_ref().and_then(|p| p.timeout_secs).map(|t| t.to_string()).unwrap_or_default());
    let heading = if editing.is_some() { "Edit the policy" } else { "A new policy" };

    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let text = |s: RwSignal<String>| Some(s.get_untracked().trim().to_string()).filter(|t| !t.is_empty());
        let requester = text(requester).and_then(|r| match r.split_once(':') {
            Some(("person", id)) => Some(RequesterMatch::Person { id: id.into() }),
            Some(("role", role)) => role.parse::<Role>().ok().map(|role| RequesterMatch::Role { role }),
            _ => None,
        });
        let Ok(quorum) = quorum.get_untracked().trim().parse::<u32>() else {
            ui.error.set(Some("The quorum is a whole number, 1 or more.".into()));
            return;
        };
        let timeout_secs = match text(timeout).map(|t| t.parse::<u64>()) {
            Some(Ok(t)) => Some(t),
            Some(Err(_)) => {
                ui.error.set(Some("The timeout is a whole number of seconds.".into()));
                return;
            }
            None => None,
        };
        let input = PolicyInput {
            name: name.get_untracked(),
            matches: PolicyMatch {
                source: text(source).and_then(|s| s.parse::<Source>().ok()),
                tool: text(tool),
                mcp_server: text(server),
                risk_at_least: text(risk).and_then(|r| r.parse::<Risk>().ok()),
                requester,
            },
            approvers: Approvers { people: chosen_people.get_untracked(), roles: chosen_roles.get_untracked() },
            quorum,
            self_approval: Some(self_approval.get_untracked()),
            timeout_secs,
        };
        let (key, label) = (id.clone().map(|i| i.to_string()).unwrap_or_default(), input.name.clone());
        let id = id.clone();
        ui.run(key, label, "Could not save", async move {
            save_policy(id, input).await?;
            ui.form.try_set(None);
            Ok(())
        });
    };

    let person_boxes = people
        .iter()
        .filter(|p| p.role.decides() && p.disabled_at.is_none())
        .map(|p| {
            let pid = p.id.clone();
            let checked_id = pid.clone();
            view! {
                <label class="check">
                    <input
                        type="checkbox"
                        prop:checked=move || chosen_people.with(|c| c.contains(&checked_id))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            chosen_people.update(|c| set_chosen(c, pid.clone(), on));
                        }
                    />
                    {format!(" {} ({})", p.name, p.role.label())}
                </label>
            }
        })
        .collect_view();
    let role_boxes = [Role::Owner, Role::Approver]
        .into_iter()
        .map(|role| {
            view! {
                <label class="check">
                    <input
                        type="checkbox"
                        prop:checked=move || chosen_roles.with(|c| c.contains(&role))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            chosen_roles.update(|c| set_chosen(c, role, on));
                        }
                    />
                    {format!(" Every {}", role.label().to_lowercase())}
                </label>
            }
        })
        .collect_view();
    let requester_options = people
        .iter()
        .map(|p| view! { <option value=format!("person:{}", p.id)>{p.name.clone()}</option> })
        .collect_view();

    view! {
        <form class="policy-form" on:submit=save aria-label=heading>
            <h3>{heading}</h3>
            <label>"Name" <input type="text" dir="auto" required bind:value=name/></label>
            <fieldset>
                <legend>"Matches (empty: any)"</legend>
                <label>"Source"
                    <select prop:value=move || source.get() on:change=move |ev| source.set(event_target_value(&ev))>
                        <option value="">"Any"</option>
                        {Source::ALL.into_iter().map(|s| view! { <option value=s.as_str()>{s.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Tool (name or glob such as write_*)" <input type="text" bind:value=tool/></label>
                <label>"MCP server" <input type="text" bind:value=server/></label>
                <label>"Risk at least"
                    <select prop:value=move || risk.get() on:change=move |ev| risk.set(event_target_value(&ev))>
                        <option value="">"Any"</option>
                        <option value="low">"low"</option>
                        <option value="medium">"medium"</option>
                        <option value="high">"high"</option>
                    </select>
                </label>
                <label>"Asked by"
                    <select prop:value=move || requester.get() on:change=move |ev| requester.set(event_target_value(&ev))>
                        <option value="">"Anyone"</option>
                        {Role::ALL.into_iter().map(|r| view! { <option value=format!("role:{}", r.as_str())>{format!("Any {}", r.label().to_lowercase())}</option> }).collect_view()}
                        {requester_options}
                    </select>
                </label>
            </fieldset>
            <fieldset>
                <legend>"Approvers"</legend>
                {person_boxes}
                {role_boxes}
            </fieldset>
            <label>"Approvals needed (quorum)" <input type="number" min="1" max="20" bind:value=quorum/></label>
            <label class="check"><input type="checkbox" bind:checked=self_approval/>" The requester may approve their own request"</label>
            <label>"Timeout in seconds (empty: the server's)" <input type="number" min="1" bind:value=timeout/></label>
            <div class="form-actions">
                <button type="submit" class="approve">"Save the policy"</button>
                <button type="button" on:click=move |_| ui.form.set(None)>"Cancel"</button>
            </div>
        </form>
    }
}
