//! Server functions of the inbox and the full-screen view of an outside request: thin calls into
//! the engine (chat approvals, connection checks) and the `OutsideHub` (outside requests), both
//! taken from context. A person's decision on a chat approval goes through `decide_approval`, and
//! on a connection check through `decide_connection_check`, as on the chat page.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use serde::{Deserialize, Serialize};
use warden_outside::{DecisionInput as OutsideDecisionInput, OutsideRequest};
#[cfg(feature = "ssr")]
use warden_types::id::ApprovalId;
use warden_types::id::OutsideRequestId;

use crate::error::AppError;
use crate::model::inbox::decide::BatchOutcome;
use crate::model::inbox::filter::InboxFilter;
use crate::model::inbox::item::ItemKey;
use crate::model::inbox::list::InboxList;
use crate::model::Verdict;

/// The outside request full screen: the request, the security evaluation a code response follows
/// (its code is the code the output came from), and that code highlighted on the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutsideView {
    pub request: OutsideRequest,
    pub follows: Option<OutsideRequest>,
    /// The code as sanitised HTML spans; `None` when it is shown as plain text.
    pub code_html: Option<String>,
    /// The grammar the code was highlighted with.
    pub syntax: Option<String>,
    /// The name of the person who decided the request, if a person did (the request names them by id).
    #[serde(default)]
    pub decider: Option<String>,
}

#[cfg(feature = "ssr")]
use super::outside::hub;

/// At most [`MAX_LISTED`](crate::model::inbox::order::MAX_LISTED) approvals the filter selects, shared out among
/// their sources ([`fair_share`](crate::model::inbox::order::fair_share): a client's flood hides no chat's approval
/// and no other client's request), trimmed (the page lists again on every change; the thread or the
/// full-screen view shows the full texts), and the outside clients to filter by. Each store is asked
/// for the statuses the filter shows, and the outside store for the newest of each client.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_inbox(filter: InboxFilter) -> Result<InboxList, AppError> {
    use crate::model::inbox::item::InboxItem;
    use crate::model::inbox::list::ClientRef;
    use crate::model::inbox::order::{fair_share, MAX_LISTED};
    use crate::model::inbox::trim::{cut_code, trimmed};

    let hub = hub()?;
    let clients = hub.clients().await?;
    let client_ids: Vec<&str> = clients.iter().map(|c| c.id.as_str()).collect();
    let mut items = Vec::new();
    // Only what is routed to the person asking (an owner sees everything; the page marks what is not theirs).
    let person = super::asker::asker()?.acting();
    if filter.wants_chat() {
        let engine = super::engine()?;
        for status in filter.status.chat_statuses() {
            let approvals = engine.list_approvals(*status).await?.into_iter();
            let theirs = approvals.filter(|a| warden_policies::shown_to(&warden_policies::route_of(a), &person));
            items.extend(theirs.map(|a| InboxItem::Chat(Box::new(a))));
        }
        for status in filter.status.check_statuses() {
            let checks = engine.list_connection_checks(*status).await?;
            items.extend(checks.into_iter().map(|c| InboxItem::Check(Box::new(c))));
        }
        // Requests on the cards of Warden's own calls belong to their chats.
        items.extend(outside_items(&hub, &filter, &client_ids, true, &person).await?);
    }
    if let Some(client_id) = filter.wants_outside() {
        // A request on a call's card in its thread is not listed apart.
        let of = client_id.map(|id| vec![id]).unwrap_or_else(|| client_ids.clone());
        items.extend(outside_items(&hub, &filter, &of, false, &person).await?);
    }
    items.retain(|item| filter.matches(item));
    let items = fair_share(items, MAX_LISTED);
    let mut cut = Vec::new();
    let mut cut_codes = Vec::new();
    let items: Vec<InboxItem> = items
        .into_iter()
        .map(|item| {
            cut_codes.extend(cut_code(&item));
            let (item, was_cut) = trimmed(item);
            if was_cut {
                cut.push(item.key());
            }
            item
        })
        .collect();
    let clients = clients.into_iter().map(|c| ClientRef { id: c.id.to_string(), name: c.name }).collect();
    let deciders = decider_names(&items).await?;
    Ok(InboxList { items, clients, cut, cut_code: cut_codes, deciders })
}

/// The names of the people who decided the outside requests among `items` (a request names them by id).
#[cfg(feature = "ssr")]
async fn decider_names(
    items: &[crate::model::inbox::item::InboxItem],
) -> Result<Vec<warden_types::person::PersonName>, AppError> {
    use crate::model::inbox::item::InboxItem;
    let ids = items
        .iter()
        .filter_map(|i| match i {
            InboxItem::Outside(r) => r.decision.as_ref()?.person.clone(),
            _ => None,
        })
        .collect();
    names_of(ids).await
}

/// The people of `ids`, by name (none asked: the store is not read).
#[cfg(feature = "ssr")]
async fn names_of(
    ids: std::collections::HashSet<warden_types::id::PersonId>,
) -> Result<Vec<warden_types::person::PersonName>, AppError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let people = use_context::<warden_people::People>()
        .ok_or_else(|| AppError::internal("the people were not provided as Leptos context"))?;
    Ok(people
        .list()
        .await?
        .into_iter()
        .filter(|p| ids.contains(&p.id))
        .map(|p| warden_types::person::PersonName { id: p.id, name: p.name })
        .collect())
}

/// The newest outside requests of the statuses `filter` shows, of each of `clients`, on the cards of
/// Warden's calls (`linked`) or apart, that are `person`'s to see (routed to them; an owner sees all). Asked
/// client by client: the newest of all clients together were one client's flood.
#[cfg(feature = "ssr")]
async fn outside_items(
    hub: &warden_outside::OutsideHub,
    filter: &InboxFilter,
    clients: &[&str],
    linked: bool,
    person: &warden_types::person::ActingPerson,
) -> Result<Vec<crate::model::inbox::item::InboxItem>, AppError> {
    use crate::model::inbox::item::InboxItem;
    use crate::model::inbox::order::MAX_LISTED;
    let mut items = Vec::new();
    for client_id in clients {
        for status in filter.status.outside_statuses() {
            let query = warden_outside::RequestQuery {
                status: *status,
                client_id: Some(client_id.to_string().into()),
                linked: Some(linked),
                limit: Some(MAX_LISTED as u32),
            };
            let theirs = hub.list(&query).await?.into_iter().filter(|r| warden_policies::shown_to(&r.route(), person));
            items.extend(theirs.map(|r| InboxItem::Outside(Box::new(r))));
        }
    }
    Ok(items)
}

/// A person's decision on an outside request; the client hears it at once (or when it is back).
/// A `Conflict` means it was decided first (by another tab, the policy or its timeout).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn decide_outside(id: OutsideRequestId, decision: OutsideDecisionInput) -> Result<OutsideRequest, AppError> {
    let by = crate::server_fns::asker::asker()?.acting();
    Ok(hub()?.decide(&id, decision, &by).await?)
}

/// Gives a pending outside request `secs` more seconds before it times out.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn extend_outside(id: OutsideRequestId, secs: u64) -> Result<OutsideRequest, AppError> {
    let person = crate::server_fns::asker::asker()?.acting();
    Ok(hub()?.extend(&id, std::time::Duration::from_secs(secs), &person).await?)
}

/// One outside request for the full-screen view, its code highlighted.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn get_outside_request(id: OutsideRequestId) -> Result<OutsideView, AppError> {
    use warden_outside::protocol::ClientFrame;

    let hub = hub()?;
    let person = crate::server_fns::asker::asker()?.acting();
    let request = hub.request_as(&id, &person).await?;
    let follows = match &request.follows {
        Some(follows) => Some(hub.request(follows).await?),
        None => None,
    };
    let evaluation = [Some(&request), follows.as_ref()].into_iter().flatten().find_map(|r| match r.as_shown() {
        ClientFrame::SecurityEvaluation(e) => Some((e.code, e.language)),
        ClientFrame::CodeResponse(_) => None,
    });
    let highlighted = match evaluation {
        // Code with hidden characters is shown plain, each one as a visible marker.
        Some((code, _)) if warden_types::hidden_chars::has_hidden(&code) => None,
        Some((code, language)) => {
            tokio::task::spawn_blocking(move || warden_engine::code_highlight::highlight(&code, language.as_deref()))
                .await
                .map_err(AppError::internal)?
        }
        None => None,
    };
    let (code_html, syntax) = highlighted.map(|h| (Some(h.html), Some(h.syntax))).unwrap_or_default();
    let decider = match request.decision.as_ref().and_then(|d| d.person.clone()) {
        Some(id) => names_of([id].into()).await?.pop().map(|p| p.name),
        None => None,
    };
    Ok(OutsideView { request, follows, code_html, syntax, decider })
}

/// Approves or denies the selected pending approvals together: all of one run, or all of one
/// outside client (anything else is refused, saying why, before any is decided). Those decided
/// first by someone or something else are counted, not errors; so are chat approvals another approver
/// edited since the page showed them (a batch approval names no arguments, so it approves none it was
/// not shown): not decided, to be looked at again; and those the person had approved already (a quorum
/// waits for others).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn decide_batch(
    keys: Vec<ItemKey>,
    verdict: Verdict,
    reason: Option<String>,
) -> Result<BatchOutcome, AppError> {
    use crate::model::inbox::decide::{batch_group, chat_input, outside_input, MAX_BATCH};
    use crate::model::inbox::item::InboxItem;

    if keys.len() > MAX_BATCH {
        return Err(AppError::Invalid(format!("A batch decision takes at most {MAX_BATCH} approvals.")).answer());
    }
    let engine = super::engine()?;
    let person = super::asker::asker()?.acting();
    let hub = hub()?;
    let mut items = Vec::with_capacity(keys.len());
    for key in &keys {
        items.push(match key {
            ItemKey::Chat(id) => InboxItem::Chat(Box::new(engine.approval(&ApprovalId::from(id.as_str())).await?)),
            ItemKey::Outside(id) => {
                InboxItem::Outside(Box::new(hub.request_as(&OutsideRequestId::from(id.as_str()), &person).await?))
            }
            ItemKey::Check(_) => {
                let why = "A connection check is decided on its own: Connect or Continue anyway.";
                return Err(AppError::Invalid(why.into()).answer());
            }
        });
    }
    let refs: Vec<&InboxItem> = items.iter().collect();
    batch_group(&refs).map_err(|why| AppError::Invalid(why).answer())?;
    let reason = reason.map(|r| r.trim().to_string()).filter(|r| !r.is_empty());
    let mut outcome = BatchOutcome::default();
    for key in keys {
        let decided = match key {
            ItemKey::Chat(id) => {
                match engine.decide(&ApprovalId::from(id.as_str()), chat_input(verdict, reason.clone()), &person).await
                {
                    Err(warden_engine::Error::ShownChanged) => {
                        outcome.changed += 1;
                        continue;
                    }
                    Err(warden_engine::Error::AlreadyVoted) => {
                        outcome.already_voted += 1;
                        continue;
                    }
                    decided => decided.map(|_| ()).map_err(AppError::from),
                }
            }
            ItemKey::Outside(id) => hub
                .decide(&OutsideRequestId::from(id.as_str()), outside_input(verdict, reason.clone()), &person)
                .await
                .map(|_| ())
                .map_err(AppError::from),
            // Refused above.
            ItemKey::Check(_) => continue,
        };
        match decided {
            Ok(()) => outcome.decided += 1,
            Err(AppError::Conflict(_)) => outcome.already_decided += 1,
            Err(other) => return Err(other),
        }
    }
    // A conflict set the answer's status; the batch as a whole went through.
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::OK);
    }
    Ok(outcome)
}
