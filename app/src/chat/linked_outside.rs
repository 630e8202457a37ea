//! The chat page's outside requests that belong to its tool calls (an executor an MCP tool called
//! asked for approval naming the call): read when the thread opens and again whenever the inbox's
//! count changes (one arrived or was decided), a call starts or ends, or the run ends; a decision made
//! on a card replaces that request at once. Read in the browser only (the cards appear after
//! hydration), so the server's page and the hydrated one agree.

use leptos::prelude::*;
use warden_outside::OutsideRequest;

/// Given as context by the chat page; each tool call's card takes its own from it.
#[derive(Clone, Copy)]
pub struct LinkedOutside {
    requests: RwSignal<Vec<OutsideRequest>>,
    /// Bumped to read them again.
    version: RwSignal<u32>,
}

impl LinkedOutside {
    /// Provides the thread's linked requests as context and, in the browser, keeps them read.
    pub fn provide(thread_id: Memo<String>) -> Self {
        let linked = Self { requests: RwSignal::new(Vec::new()), version: RwSignal::new(0) };
        provide_context(linked);
        #[cfg(feature = "hydrate")]
        {
            use leptos::task::spawn_local;

            let inbox = use_context::<crate::inbox_live::InboxLive>();
            // Only the newest reading lands (numbered): an older one may answer after it.
            let latest = StoredValue::new(0u64);
            Effect::new(move |_| {
                let id = thread_id.get();
                linked.version.track();
                if let Some(inbox) = inbox {
                    inbox.changed.track();
                }
                let Some(this) = latest.try_update_value(|n| {
                    *n += 1;
                    *n
                }) else {
                    return;
                };
                spawn_local(async move {
                    let answer = crate::server_fns::outside_linked::linked_outside_requests(id.clone().into()).await;
                    let newest = latest.try_update_value(|n| *n == this).unwrap_or(false);
                    if !newest || thread_id.try_get_untracked().as_deref() != Some(id.as_str()) {
                        return;
                    }
                    match answer {
                        Ok(requests) => {
                            linked.requests.try_set(requests);
                        }
                        // The cards keep what they show; the next change reads again.
                        Err(error) => leptos::logging::warn!("could not read the thread's outside requests: {error}"),
                    }
                });
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = thread_id;
        linked
    }

    /// Reads them again.
    pub fn refresh(&self) {
        self.version.try_update(|v| *v = v.wrapping_add(1));
    }

    /// The requests on the card of the call `call_id`, oldest first.
    pub fn of_call(&self, call_id: &str) -> Vec<OutsideRequest> {
        self.requests.with(|all| {
            all.iter().filter(|r| r.linked_call.as_ref().is_some_and(|l| l.call_id == call_id)).cloned().collect()
        })
    }

    /// A request as a decision left it.
    pub fn replace(&self, request: OutsideRequest) {
        self.requests.update(|all| match all.iter_mut().find(|r| r.id == request.id) {
            Some(shown) => *shown = request,
            None => all.push(request),
        });
    }
}
