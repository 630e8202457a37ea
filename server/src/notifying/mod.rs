//! Reaching the people a request waits for, away from the app. When a request starts waiting for a person
//! (a gated call of Warden's own runs, or an outside executor's or agent's request), each person who may
//! decide it is sent a message on each of their channels (Settings → Notifications): who asks, what, the
//! risk, how long is left, and two single-use links of their own (approve, deny) that open the confirm
//! page (`decision_page`), plus one to open it in the app. Every message is logged before it goes out and
//! marked delivered (with the channel's answer) or failed; opening one of its links marks it opened.
//!
//! A request is notified once: the delivery log says whether it was, so a restart (which sends for the
//! requests still waiting that nothing was sent about) or a repeated event sends nothing twice. Sending runs
//! beside the run: a slow or dead channel delays nobody's card.

mod notice;
mod recipients;

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use tokio::sync::broadcast::error::RecvError;
use warden_engine::Engine;
use warden_notify::{Channel, Notifier};
use warden_outside::{InboxEvent, OutsideHub, RequestQuery, RequestStatus};
use warden_people::People;
use warden_reach::{NewLink, NewNotification, Reach};
use warden_types::approval::{ApprovalStatus, Verdict};
use warden_types::notification::{NotificationReason, RequestRef};
use warden_types::person::ActingPerson;

use crate::request_view::{RequestView, Standing};

/// How long a decision link lasts at most (less when its request expires sooner).
pub const LINK_LIFETIME: Duration = Duration::from_secs(72 * 3600);

/// What the dispatcher reaches. Cheap to clone.
#[derive(Clone)]
pub struct Dispatcher {
    engine: Engine,
    hub: OutsideHub,
    people: People,
    notifier: Notifier,
    reach: Reach,
    /// Where links point: `WARDEN_PUBLIC_URL`, or this server's loopback address.
    base_url: Arc<str>,
    /// Requests being notified now (the log says so once their first message is written).
    in_flight: Arc<Mutex<HashSet<RequestRef>>>,
}

impl Dispatcher {
    pub fn new(
        engine: Engine,
        hub: OutsideHub,
        people: People,
        notifier: Notifier,
        reach: Reach,
        base_url: &str,
    ) -> Self {
        Self {
            engine,
            hub,
            people,
            notifier,
            reach,
            base_url: base_url.trim_end_matches('/').into(),
            in_flight: Arc::default(),
        }
    }

    /// Follows the engine's approvals and the hub's requests until shutdown, notifying each that starts
    /// waiting; first, those waiting already that nothing was sent about (after a restart).
    pub fn start(self) {
        let mut approvals = self.engine.watch_approvals();
        let mut outside = self.hub.subscribe();
        let shutdown = self.engine.shutdown_token();
        tokio::spawn(async move {
            self.catch_up().await;
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    approval = approvals.recv() => match approval {
                        Ok(a) if a.status == ApprovalStatus::Pending => self.arrived(RequestRef::Approval(a.id)),
                        Ok(_) => {}
                        Err(RecvError::Lagged(_)) => self.catch_up().await,
                        Err(RecvError::Closed) => return,
                    },
                    event = outside.recv() => match event {
                        Ok(InboxEvent::Pending { request }) => self.arrived(RequestRef::Outside(request.id)),
                        Ok(_) => {}
                        Err(RecvError::Lagged(_)) => self.catch_up().await,
                        Err(RecvError::Closed) => return,
                    },
                }
            }
        });
    }

    /// Notifies every waiting request nothing was sent about.
    async fn catch_up(&self) {
        match self.engine.list_approvals(Some(ApprovalStatus::Pending)).await {
            Ok(approvals) => approvals.into_iter().for_each(|a| self.arrived(RequestRef::Approval(a.id))),
            Err(error) => tracing::error!(%error, "could not list the waiting approvals to notify"),
        }
        let query = RequestQuery { status: Some(RequestStatus::Pending), ..RequestQuery::default() };
        match self.hub.list(&query).await {
            Ok(requests) => requests.into_iter().for_each(|r| self.arrived(RequestRef::Outside(r.id))),
            Err(error) => tracing::error!(%error, "could not list the waiting outside requests to notify"),
        }
    }

    /// Notifies `request` in the background, unless it is being notified or was.
    fn arrived(&self, request: RequestRef) {
        if !self.in_flight.lock().unwrap_or_else(PoisonError::into_inner).insert(request.clone()) {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(error) = this.notify_once(&request).await {
                tracing::error!(%error, request = request.id(), "could not notify the people a request waits for");
            }
            this.in_flight.lock().unwrap_or_else(PoisonError::into_inner).remove(&request);
        });
    }

    async fn notify_once(&self, request: &RequestRef) -> Result<(), String> {
        if self.reach.deliveries.any_for(request).await.map_err(|e| e.to_string())? {
            return Ok(());
        }
        let Some(view) = crate::request_view::load(&self.engine, &self.hub, request).await? else { return Ok(()) };
        if view.standing != Standing::Pending {
            return Ok(());
        }
        let people = recipients::deciders(&self.people, &view.route).await.map_err(|e| e.to_string())?;
        let mut targets = Vec::new();
        for person in people {
            let channels = self.notifier.channels().list_for(&person.id).await.map_err(|e| e.to_string())?;
            targets.extend(channels.into_iter().filter(|c| c.gone_at.is_none()).map(|c| (person.clone(), c)));
        }
        let view = &view;
        let sends = targets.into_iter().map(|(person, channel)| async move {
            self.send(request, view, &person, channel, NotificationReason::Request, 0).await
        });
        for failed in futures::future::join_all(sends).await.into_iter().filter_map(Result::err) {
            tracing::error!(error = %failed, request = request.id(), "a notification could not be logged");
        }
        Ok(())
    }

    /// One message to one of `person`'s channels, with links of their own, logged before it goes out and
    /// after the channel answered.
    async fn send(
        &self,
        request: &RequestRef,
        view: &RequestView,
        person: &ActingPerson,
        channel: Channel,
        reason: NotificationReason,
        step: u32,
    ) -> Result<(), warden_reach::Error> {
        let new = NewNotification {
            request: request.clone(),
            person: Some((person.id.clone(), person.name.clone())),
            channel_id: channel.id.to_string(),
            channel_kind: channel.config.kind().as_str().to_string(),
            channel_name: channel.name.clone(),
            reason,
            step,
        };
        let notification = self.reach.deliveries.start(&new).await?;
        let expires_at = link_expiry(view.expires_at.as_deref());
        let mut links = Vec::new();
        for intent in [Verdict::Approve, Verdict::Deny] {
            let link = NewLink {
                request: request.clone(),
                person: person.id.clone(),
                intent,
                notification: Some(notification.clone()),
                expires_at,
            };
            let (_, secret) = self.reach.links.mint(&link).await?;
            links
                .push((intent, format!("{}{}{}", self.base_url, crate::decision_page::DECIDE_PREFIX, secret.expose())));
        }
        let open = format!("{}{}", self.base_url, view.app_path);
        let notice = notice::for_request(view, reason, &links, &open);
        match self.notifier.send(&channel, &notice).await {
            Ok(delivery) => self.reach.deliveries.delivered(&notification, &delivery.detail).await,
            Err(error) => {
                tracing::warn!(%error, channel = %channel.id, "a notification was not delivered");
                self.reach.deliveries.failed(&notification, &error.to_string()).await
            }
        }
    }
}

/// When a link for a request that expires at `request_expiry` stops working: with the request, and no later
/// than [`LINK_LIFETIME`] from now.
fn link_expiry(request_expiry: Option<&str>) -> SystemTime {
    let latest = SystemTime::now() + LINK_LIFETIME;
    request_expiry.and_then(warden_db::timestamp::parse_time).map_or(latest, |at| at.min(latest))
}
