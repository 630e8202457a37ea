//! Who a card is for: the person signed in (read once per page, in the browser), whether a card is theirs
//! to decide, and the line every card shows about who asked and what its policy requires.

use leptos::prelude::*;
use warden_policies::{may_decide, route_of, Tally};
use warden_types::id::PersonId;
use warden_types::person::Person;
use warden_types::policy::{ApprovalRoute, Vote};

use crate::model::Approval;
use crate::server_fns::people::who_am_i;

/// The person signed in, once the browser has read it (`None` on the server and until then). A signal set
/// by an effect after hydration, not a resource: a resource read inside a page's `<Transition>` would make
/// the browser show the fallback where the server rendered the cards (a hydration panic).
#[derive(Clone, Copy)]
pub struct Me(pub RwSignal<Option<Person>>);

impl Me {
    /// Provides the person as context for the pages' cards; the browser reads who it is once hydrated.
    pub fn provide() {
        let me = RwSignal::new(None);
        Effect::new(move |_| {
            leptos::task::spawn_local(async move {
                if let Ok(person) = who_am_i().await {
                    me.try_set(Some(person));
                }
            });
        });
        provide_context(Me(me));
    }

    /// The signed-in person's id, once the browser has read it (`None` on the server and until then): a
    /// decision's words say "you" to them alone.
    pub fn id() -> Signal<Option<PersonId>> {
        let me = use_context::<Me>();
        Signal::derive(move || me.and_then(|m| m.0.with(|p| p.as_ref().map(|p| p.id.clone()))))
    }

    /// Whether the person signed in may decide `approval`; `true` until that is known (the server decides).
    pub fn may_decide(approval: &Approval) -> Signal<bool> {
        Self::may_decide_on(route_of(approval))
    }

    /// Whether the person signed in may decide what `route` routes; `true` until that is known.
    pub fn may_decide_on(route: ApprovalRoute) -> Signal<bool> {
        let me = use_context::<Me>();
        Signal::derive(move || {
            let person = me.and_then(|m| m.0.get());
            person.is_none_or(|p| may_decide(&route, &p.acting()).is_ok())
        })
    }
}

/// "Asked by Mo · Policy “Two for writes” · 1 of 2 approvals (ann)".
pub fn routing_line(approval: &Approval) -> String {
    routing_line_of(&route_of(approval), &approval.votes)
}

/// [`routing_line`] of any request: its route and the votes on it.
pub fn routing_line_of(route: &ApprovalRoute, votes: &[Vote]) -> String {
    let mut parts = Vec::new();
    if let Some(requester) = &route.requester {
        parts.push(format!("Asked by {}", requester.name));
    }
    if let Some(policy) = &route.policy {
        parts.push(format!("Policy \u{201c}{}\u{201d}", policy.name));
    }
    let tally = Tally::of(route.quorum, votes);
    let mut progress = tally.describe();
    let approvers: Vec<&str> = votes.iter().map(|v| v.person.name.as_str()).collect();
    if !approvers.is_empty() {
        progress.push_str(&format!(" (approved by {})", approvers.join(", ")));
    }
    parts.push(progress);
    parts.join(" \u{b7} ")
}
