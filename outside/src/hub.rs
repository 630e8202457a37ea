//! The one owner of outside requests: stores what a client sends before answering it, lets a policy
//! or a person decide it (or a timeout, by the deadline task), and tells whoever waits. SQLite is
//! the truth; the in-memory signals only wake waiters, who then read what is stored, so a decision
//! made while a client was away (or before a restart) reaches it when it comes back.

mod ballot;
mod calls_ended;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, SystemTime};
use warden_types::id::{ClientId, OutsideRequestId, PersonId, ThreadId, ToolCallId};

use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, watch, Notify};
use tokio_util::sync::CancellationToken;
use warden_db::timestamp::parse_time;
use warden_db::Database;
use warden_engine::Engine;
use warden_types::cursor::AuditCursor;
use warden_types::run::ToolCallStatus;
use warden_types::tool::ToolOrigin;
use warden_types::ErrorKind;

use crate::connection::Connection;
use crate::error::{Error, Result};
use crate::ownership::Manager;
use crate::policy::{self, ClientPolicy, Policy, MAX_TIMEOUT_SECS};
use crate::protocol::{Ack, ClientFrame, DecidedBy, DeciderKind, DecisionFrame, RequestKind, ServerFrame, Verdict};
use crate::quota::{Held, Limits, Permit, Quotas};
use crate::record::{
    self, Client, Decision, DecisionInput, InboxEvent, LinkedCall, NewClient, OutsideRequest, RequestQuery,
    RequestStatus, MAX_CLIENT_NAME_CHARS,
};
use crate::store::{self, Inserted, NewRequest, Store, Votes};
use ballot::Ballot;
use warden_people::People;
use warden_policies::{may_decide, Policies, Request};
use warden_types::person::ActingPerson;
use warden_types::policy::{ApprovalRoute, Source, VoteVia};

/// How many inbox events a slow subscriber may fall behind before it is told it lagged.
const INBOX_CAPACITY: usize = 1024;
/// Longest token `authenticate` looks at; ours are 67 characters.
const MAX_TOKEN_CHARS: usize = 256;
/// How long the deadline task sleeps when nothing is pending (a new request wakes it anyway).
const IDLE_CHECK: Duration = Duration::from_secs(3600);
/// How often a vote is counted again when another was written meanwhile.
const VOTE_ATTEMPTS: usize = 8;

/// The answer to a request: stored and waiting, or decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Ack(Ack),
    Decided(DecisionFrame),
}

impl Answer {
    fn of(request: &OutsideRequest) -> Self {
        match request.decision_frame() {
            Some(frame) => Answer::Decided(frame),
            None => Answer::Ack(Ack { id: request.client_request_id.clone(), request_id: request.id.clone() }),
        }
    }

    pub fn into_frame(self) -> ServerFrame {
        match self {
            Answer::Ack(ack) => ServerFrame::Ack(ack),
            Answer::Decided(decision) => ServerFrame::Decision(decision),
        }
    }
}

/// The pending requests a person may decide (see [`OutsideHub::pending_for`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PendingFor {
    /// Shown in the inbox on their own.
    pub apart: u64,
    /// On the cards of calls of Warden's own runs, by thread.
    pub on_cards: HashMap<ThreadId, u64>,
}

/// What a client's waiters are woken by: a count of decisions for it, and whether it was revoked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientSignal {
    pub decided: u64,
    pub revoked: bool,
}

/// Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct OutsideHub {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    policy: RwLock<Policy>,
    signals: Mutex<HashMap<ClientId, watch::Sender<ClientSignal>>>,
    inbox: broadcast::Sender<InboxEvent>,
    /// Wakes the deadline task: a new deadline may be the earliest.
    deadlines: Notify,
    shutdown: CancellationToken,
    /// Warden's engine, whose running tool calls a request may belong to (see [`OutsideHub::follow_runs`]).
    runs: OnceLock<Engine>,
    /// Each client's bounds (`quota`).
    quotas: Arc<Quotas>,
    /// The approval policies requests that wait for a person are routed by, and the people their
    /// clients belong to (see [`OutsideHub::route_by`]).
    routing: OnceLock<Routing>,
}

/// What routes a request: the policies (shared with the engine's, so an edit in Settings applies at once)
/// and the people, for the requester's name and role.
struct Routing {
    policies: Policies,
    people: People,
}

impl OutsideHub {
    /// Opens warden-outside's tables in `database` (running its migrations), loads the policy, and
    /// starts the deadline task, which first expires whatever came due while Warden was down.
    pub async fn open(database: &Database) -> Result<Self> {
        Self::open_with(database, Limits::default()).await
    }

    /// [`OutsideHub::open`] with bounds of its own for every client.
    pub async fn open_with(database: &Database, limits: Limits) -> Result<Self> {
        let store = Store::open(database).await?;
        let policy = store.policy().await?;
        let hub = Self {
            inner: Arc::new(Inner {
                store,
                policy: RwLock::new(policy),
                signals: Mutex::new(HashMap::new()),
                inbox: broadcast::channel(INBOX_CAPACITY).0,
                deadlines: Notify::new(),
                shutdown: CancellationToken::new(),
                runs: OnceLock::new(),
                quotas: Quotas::new(limits),
                routing: OnceLock::new(),
            }),
        };
        tokio::spawn(hub.clone().expire_forever());
        Ok(hub)
    }

    /// Lets requests that name a running tool call of `engine`'s runs (`warden_call_id`) belong to that
    /// call, and ends those that still wait when their call ends (`calls_ended`). Without it (or before
    /// it) every request is one of its own. Set once; later calls are ignored.
    pub fn follow_runs(&self, engine: Engine) {
        if self.inner.runs.set(engine.clone()).is_ok() {
            tokio::spawn(self.clone().end_with_their_calls(engine));
        }
    }

    /// The bounds every client is held to.
    /// Routes every request that waits for a person by `policies`, asked by its client's owner (read from
    /// `people`): who may decide it, how many must approve, and whether the owner may. Without it (or
    /// before it) any owner or approver decides alone. Set once; later calls are ignored.
    pub fn route_by(&self, policies: Policies, people: People) {
        let _ = self.inner.routing.set(Routing { policies, people });
    }

    pub fn limits(&self) -> Limits {
        self.inner.quotas.limits()
    }

    /// Counts a socket or long-poll of the client until the permit is dropped; refused
    /// ([`Error::TooManyOpen`]) when the client holds as many as it may.
    pub fn hold(&self, client_id: &ClientId, what: Held) -> Result<Permit> {
        self.inner.quotas.hold(client_id, what)
    }

    /// Ends the deadline task, open connections and long-polls.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// Cancelled at shutdown: connection loops end on it.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.inner.shutdown.clone()
    }

    // ---- clients ----

    /// Registers a client; its token is in the answer and nowhere else (only its hash is stored).
    pub async fn create_client(&self, name: &str, policy: ClientPolicy) -> Result<NewClient> {
        self.register_client(name, policy, None).await
    }

    /// Registers a client of `manager`'s: its requests are asked by them. A policy of its own (which can
    /// approve without asking) is only an owner's to give.
    pub async fn create_client_of(&self, manager: &Manager, name: &str, policy: ClientPolicy) -> Result<NewClient> {
        if policy != ClientPolicy::default() && !manager.role.manages() {
            return Err(Error::Forbidden("only an owner gives a client a policy of its own".into()));
        }
        self.register_client(name, policy, Some(&manager.person)).await
    }

    async fn register_client(&self, name: &str, policy: ClientPolicy, owner: Option<&PersonId>) -> Result<NewClient> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > MAX_CLIENT_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(Error::Invalid(format!(
                "a client name is 1 to {MAX_CLIENT_NAME_CHARS} characters without control characters"
            )));
        }
        policy.timeouts.validate().map_err(Error::Invalid)?;
        let token = new_token()?;
        let client = Client {
            id: ClientId::new(),
            name: name.to_string(),
            policy,
            created_at: store::now(),
            revoked_at: None,
            created_by: owner.cloned(),
        };
        self.inner.store.insert_client(&client, &token_hash(&token)).await?;
        Ok(NewClient { client, token })
    }

    pub async fn clients(&self) -> Result<Vec<Client>> {
        self.inner.store.clients().await
    }

    /// The clients `manager` may see and revoke: every one for an owner, their own for anyone else.
    pub async fn clients_managed_by(&self, manager: &Manager) -> Result<Vec<Client>> {
        let mut clients = self.clients().await?;
        clients.retain(|client| manager.manages(client));
        Ok(clients)
    }

    /// `revoke_client` for `manager`: a client they do not manage is not found (its id says nothing).
    pub async fn revoke_client_as(&self, manager: &Manager, id: &ClientId) -> Result<Client> {
        let client = self.client(id).await?;
        if !manager.manages(&client) {
            return Err(Error::not_found("client", id));
        }
        self.revoke_client(id).await
    }

    /// Gives every client registered before Warden knew people to `owner` (the founding owner, at start).
    pub async fn adopt_unowned_clients(&self, owner: &PersonId) -> Result<u64> {
        self.inner.store.adopt_unowned_clients(owner).await
    }

    pub async fn client(&self, id: &ClientId) -> Result<Client> {
        self.inner.store.client(id).await?.ok_or_else(|| Error::not_found("client", id))
    }

    /// Revokes the client's token for good and closes its open connections. Its pending requests
    /// stay in the inbox until decided or expired.
    pub async fn revoke_client(&self, id: &ClientId) -> Result<Client> {
        self.inner.store.revoke_client(id).await?;
        let client = self.client(id).await?;
        self.signal(id).send_modify(|s| s.revoked = true);
        Ok(client)
    }

    pub async fn set_client_policy(&self, id: &ClientId, policy: ClientPolicy) -> Result<Client> {
        policy.timeouts.validate().map_err(Error::Invalid)?;
        if !self.inner.store.set_client_policy(id, &policy).await? {
            return Err(Error::not_found("client", id));
        }
        self.client(id).await
    }

    /// The client a token belongs to, if it is not revoked.
    pub async fn authenticate(&self, token: &str) -> Result<Client> {
        if token.is_empty() || token.len() > MAX_TOKEN_CHARS {
            return Err(Error::Unauthorized);
        }
        match self.inner.store.client_by_token_hash(&token_hash(token)).await? {
            Some(client) if client.revoked_at.is_none() => Ok(client),
            _ => Err(Error::Unauthorized),
        }
    }

    // ---- policy ----

    pub fn policy(&self) -> Policy {
        *self.inner.policy.read().unwrap_or_else(|e| e.into_inner())
    }

    pub async fn set_policy(&self, policy: Policy) -> Result<()> {
        policy.timeouts.validate().map_err(Error::Invalid)?;
        self.inner.store.set_policy(&policy).await?;
        *self.inner.policy.write().unwrap_or_else(|e| e.into_inner()) = policy;
        Ok(())
    }

    // ---- requests ----

    /// Takes a request from a client: stored first, then answered with a decision if a policy
    /// approves it, else an ack. The same id with the same request is answered as it stands (never
    /// stored twice, and not counted again); with a different request it is [`Error::IdReused`]. A
    /// new request counts against the client's rate ([`Error::RateLimited`]), and one that would wait
    /// for a person against its pending requests ([`Error::TooManyPending`]).
    pub async fn submit(&self, client_id: &ClientId, frame: ClientFrame) -> Result<Answer> {
        self.submit_from(client_id, frame, Source::OutsideClient).await
    }

    /// [`OutsideHub::submit`] for a request from `source`: a coding agent's permission prompt comes
    /// through Warden's own MCP endpoint, which says so (a client's word for it is not taken).
    pub async fn submit_from(&self, client_id: &ClientId, frame: ClientFrame, source: Source) -> Result<Answer> {
        frame.validate()?;
        let client = match self.inner.store.client(client_id).await? {
            Some(client) if client.revoked_at.is_none() => client,
            _ => return Err(Error::Unauthorized),
        };
        // A request sent again (a client that reconnected re-sends what it has no decision for).
        if let Some(stored) = self.inner.store.request_of_client(client_id, frame.id()).await? {
            if stored.request != frame {
                return Err(Error::IdReused(frame.id().to_string()));
            }
            return Ok(Answer::of(&stored));
        }
        self.inner.quotas.take_request(client_id)?;
        let follows = match &frame {
            ClientFrame::CodeResponse(response) => match &response.follows {
                Some(follows) => Some(
                    self.inner
                        .store
                        .request_of_client(client_id, follows)
                        .await?
                        .filter(|r| r.kind == RequestKind::SecurityEvaluation)
                        .ok_or_else(|| Error::UnknownRequest(follows.clone()))?
                        .id,
                ),
                None => None,
            },
            ClientFrame::SecurityEvaluation(_) => None,
        };
        let linked_call = self.linked_call(&frame, follows.as_ref()).await?;
        let policy = self.policy();
        let decision = policy::auto_approval(&policy, &client.policy, &frame).map(|auto| Decision {
            decision: Verdict::Approved,
            reason: None,
            edited_code: None,
            decided_by: DecidedBy { kind: DeciderKind::Policy, detail: auto.rule },
            person: None,
        });
        let max_pending = self.inner.quotas.limits().max_pending;
        if decision.is_none() && self.inner.store.pending_of_client(client_id).await? >= max_pending {
            return Err(Error::TooManyPending(max_pending));
        }
        let route = match decision {
            Some(_) => None,
            None => self.route(&client, &frame, source).await?,
        };
        let timeout = match route.as_ref().and_then(|r| r.timeout_secs) {
            Some(secs) => Duration::from_secs(secs.clamp(1, MAX_TIMEOUT_SECS)),
            None => policy::timeout(&policy, &client.policy, frame.risk()),
        };
        let id = OutsideRequestId::new();
        let expires_at = store::at(SystemTime::now() + timeout);
        let inserted = self
            .inner
            .store
            .insert_request(NewRequest {
                id: &id,
                client_id,
                frame: &frame,
                follows: follows.as_ref(),
                timeout_secs: timeout.as_secs(),
                expires_at: &expires_at,
                decision: decision.as_ref().map(|d| (RequestStatus::Approved, d)),
                linked_call: linked_call.as_ref(),
                route: route.as_ref(),
            })
            .await?;
        let request = match inserted {
            Inserted::Existing(request) => return Ok(Answer::of(&request)),
            Inserted::New(request) => request,
        };
        if request.decision.is_some() {
            self.publish(InboxEvent::Decided { request: Box::new(request.clone()) });
        } else {
            self.inner.deadlines.notify_one();
            self.publish(InboxEvent::Pending { request: Box::new(request.clone()) });
        }
        Ok(Answer::of(&request))
    }

    /// The call of Warden's own runs a new request belongs to: the one a security evaluation names in
    /// `warden_call_id`, or the one of the evaluation a code response follows, if that call is running
    /// now. A call that is unknown, not running (finished, waiting, another state) or no MCP call (only
    /// those pass their id on) links nothing: the request is one of its own, as if it named none.
    async fn linked_call(&self, frame: &ClientFrame, follows: Option<&OutsideRequestId>) -> Result<Option<LinkedCall>> {
        let named = match (frame.warden_call_id(), follows) {
            (Some(call_id), _) => ToolCallId::from(call_id),
            (None, Some(follows)) => match self.inner.store.request(follows).await?.and_then(|r| r.linked_call) {
                Some(linked) => linked.call_id,
                None => return Ok(None),
            },
            (None, None) => return Ok(None),
        };
        let Some(engine) = self.inner.runs.get() else { return Ok(None) };
        match engine.tool_call(&named).await {
            Ok(call) if call.status == ToolCallStatus::Running && matches!(call.origin, ToolOrigin::Mcp { .. }) => {
                Ok(Some(LinkedCall { call_id: call.id, thread_id: call.thread_id }))
            }
            Ok(_) => Ok(None),
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
            // The request is stored all the same, as one of its own: better shown apart than lost.
            Err(error) => {
                tracing::warn!(%error, call_id = %named, "could not read the call an outside request names");
                Ok(None)
            }
        }
    }

    /// Who decides a request of `client` that waits for a person: the first approval policy that matches
    /// it, asked by the client's owner. `None` without routing (see [`OutsideHub::route_by`]).
    async fn route(&self, client: &Client, frame: &ClientFrame, source: Source) -> Result<Option<ApprovalRoute>> {
        let Some(routing) = self.inner.routing.get() else { return Ok(None) };
        let requester = match &client.created_by {
            Some(id) => match routing.people.person(id).await {
                Ok(person) => Some(ActingPerson { id: person.id, name: person.name, role: person.role }),
                // The owner's account is gone: routed as asked by nobody known (no requester rule holds).
                Err(warden_people::Error::NotFound(_)) => None,
                Err(error) => return Err(Error::Internal(format!("could not read the client's owner: {error}"))),
            },
            None => None,
        };
        let tool = record::routing_tool(frame, source);
        let request = Request {
            source,
            tool: &tool,
            mcp_server: None,
            risk: record::routing_risk(frame),
            requester: requester.as_ref(),
        };
        Ok(Some(routing.policies.route(&request)))
    }

    /// The person `by` decides the pending request `request_id`, or votes on it where its route wants
    /// more than one approval: they must be one of its approvers (not its requester, unless the route
    /// allows), and decide what the card shows now. One deny denies; an approval settles once enough
    /// distinct approvers approved the code shown; an approver's edit (with a quorum) becomes what is
    /// shown and starts the count again. Settled, the client is told at once (or when it comes back).
    /// Deciding a request that is already decided is [`Error::AlreadyDecided`].
    pub async fn decide(
        &self,
        request_id: &OutsideRequestId,
        input: DecisionInput,
        by: &ActingPerson,
    ) -> Result<OutsideRequest> {
        self.decide_via(request_id, input, by, None).await
    }

    /// `decide`, cast outside the app (`via`: a decision link's confirm page), recorded on the vote.
    pub async fn decide_via(
        &self,
        request_id: &OutsideRequestId,
        input: DecisionInput,
        by: &ActingPerson,
        via: Option<VoteVia>,
    ) -> Result<OutsideRequest> {
        // A vote written by someone else between reading and writing: count again on what is there now.
        for _ in 0..VOTE_ATTEMPTS {
            let request = self.request(request_id).await?;
            if request.status != RequestStatus::Pending {
                return Err(Error::AlreadyDecided(request_id.to_string()));
            }
            let route = request.route();
            may_decide(&route, by).map_err(Error::Refused)?;
            let ballot = Ballot::cast(&request, &route, input.clone(), by, via)?;
            let votes = Votes { votes: &ballot.votes, shown_code: ballot.shown_code.as_deref() };
            let settles = ballot.settles.as_ref().map(|(status, decision)| (*status, decision));
            let written = self.inner.store.write_vote(request_id, request.revision, votes, settles).await?;
            if !written {
                continue;
            }
            if ballot.settles.is_some() {
                return self.decided(request_id).await;
            }
            let request = self.request(request_id).await?;
            self.publish(InboxEvent::Voted { request: Box::new(request.clone()) });
            return Ok(request);
        }
        Err(Error::Internal(format!("outside request `{request_id}` kept changing while a vote was counted")))
    }

    /// Gives a pending request `by` more time before it times out, asked by `person`, who must be one who
    /// may decide it.
    pub async fn extend(
        &self,
        request_id: &OutsideRequestId,
        by: Duration,
        person: &ActingPerson,
    ) -> Result<OutsideRequest> {
        let request = self.request_as(request_id, person).await?;
        may_decide(&request.route(), person).map_err(Error::Refused)?;
        if request.status != RequestStatus::Pending {
            return Err(Error::AlreadyDecided(request_id.to_string()));
        }
        let by = by.as_secs().clamp(1, MAX_TIMEOUT_SECS);
        let deadline = parse_time(&request.expires_at)
            .ok_or_else(|| Error::Corrupt(format!("deadline of `{request_id}`: `{}`", request.expires_at)))?
            .max(SystemTime::now());
        let expires_at = store::at(deadline + Duration::from_secs(by));
        let created = parse_time(&request.created_at).unwrap_or(deadline);
        let timeout_secs =
            (deadline + Duration::from_secs(by)).duration_since(created).map(|d| d.as_secs()).unwrap_or(by);
        if !self.inner.store.extend(request_id, &expires_at, timeout_secs).await? {
            return Err(Error::AlreadyDecided(request_id.to_string()));
        }
        self.inner.deadlines.notify_one();
        self.request(request_id).await
    }

    /// The request `id` if `person` may read it ([`OutsideRequest::readable_by`]); any other is not
    /// found, so an id tells nothing.
    pub async fn request_as(&self, id: &OutsideRequestId, person: &ActingPerson) -> Result<OutsideRequest> {
        self.request(id).await?.readable_by(person).ok_or_else(|| Error::not_found("outside request", id))
    }

    /// [`OutsideHub::list`] of what `person` may read (a page may hold fewer than its limit).
    pub async fn list_as(&self, query: &RequestQuery, person: &ActingPerson) -> Result<Vec<OutsideRequest>> {
        Ok(self.list(query).await?.into_iter().filter_map(|r| r.readable_by(person)).collect())
    }

    pub async fn request(&self, id: &OutsideRequestId) -> Result<OutsideRequest> {
        self.inner.store.request(id).await?.ok_or_else(|| Error::not_found("outside request", id))
    }

    /// Requests for the inbox, newest first.
    /// How many requests have `status`: a count, with no rows read.
    pub async fn count(&self, status: RequestStatus) -> Result<u64> {
        self.inner.store.count(status).await
    }

    /// What waits for `person` to decide: how many requests apart, and how many on the calls of each
    /// thread (threads with none left out).
    pub async fn pending_for(&self, person: &ActingPerson) -> Result<PendingFor> {
        let mut pending = PendingFor::default();
        for (route, thread) in self.inner.store.pending_routes().await? {
            let route = route.unwrap_or_else(|| ApprovalRoute::unrouted(None));
            if may_decide(&route, person).is_err() {
                continue;
            }
            match thread {
                Some(thread) => *pending.on_cards.entry(thread).or_default() += 1,
                None => pending.apart += 1,
            }
        }
        Ok(pending)
    }

    /// How many pending requests wait on calls of each thread (threads with none are left out); their
    /// sum is how many pending requests are on cards rather than apart.
    pub async fn pending_linked_by_thread(&self) -> Result<HashMap<ThreadId, u64>> {
        Ok(self.inner.store.pending_linked_by_thread().await?.into_iter().collect())
    }

    /// The requests that belong to calls of the thread (any status), oldest first, at most 500.
    pub async fn linked_to_thread(&self, thread_id: &ThreadId) -> Result<Vec<OutsideRequest>> {
        self.inner.store.linked_to_thread(thread_id).await
    }

    pub async fn list(&self, query: &RequestQuery) -> Result<Vec<OutsideRequest>> {
        self.inner.store.list(query).await
    }

    /// Decided requests for the audit log, newest decision first, at most `limit` (up to 1,000):
    /// those decided before `before` (`decided_at`, `id`), with `status` and decided by
    /// `decided_by` when given.
    pub async fn decisions(
        &self,
        status: Option<RequestStatus>,
        decided_by: Option<DeciderKind>,
        before: Option<&AuditCursor>,
        limit: u32,
    ) -> Result<Vec<OutsideRequest>> {
        self.inner.store.decided(status, decided_by, before, limit).await
    }

    /// The decisions the client has not been sent yet, oldest first (also those made before a
    /// restart), the first page of at most 500. Sending one is followed by
    /// [`OutsideHub::mark_delivered`].
    pub async fn missed(&self, client_id: &ClientId) -> Result<Vec<DecisionFrame>> {
        self.missed_after(client_id, None).await
    }

    /// The next page of [`OutsideHub::missed`]: those after the request `after` (Warden's id of the
    /// last decision of the page before), delivered or not since.
    pub async fn missed_after(
        &self,
        client_id: &ClientId,
        after: Option<&OutsideRequestId>,
    ) -> Result<Vec<DecisionFrame>> {
        self.inner.store.undelivered(client_id, after).await
    }

    pub async fn mark_delivered(&self, request_id: &OutsideRequestId) -> Result<()> {
        self.inner.store.mark_delivered(request_id).await
    }

    /// Waits up to `wait` for the decision on the client's request `request_id` (Warden's id):
    /// the decision (marked delivered) or, still pending, the ack.
    pub async fn wait_decision(
        &self,
        client_id: &ClientId,
        request_id: &OutsideRequestId,
        wait: Duration,
    ) -> Result<Answer> {
        let mut signal = self.watch_client(client_id);
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let request = self
                .inner
                .store
                .request(request_id)
                .await?
                .filter(|r| r.client_id == client_id)
                .ok_or_else(|| Error::not_found("outside request", request_id))?;
            if request.decision.is_some() {
                self.mark_delivered(request_id).await?;
                return Ok(Answer::of(&request));
            }
            tokio::select! {
                changed = signal.changed() => if changed.is_err() { return Ok(Answer::of(&request)) },
                () = tokio::time::sleep_until(deadline) => return Ok(Answer::of(&request)),
                () = self.inner.shutdown.cancelled() => return Ok(Answer::of(&request)),
            }
        }
    }

    // ---- listeners ----

    /// Every request that starts waiting for a person, and every decision, as it happens (for the
    /// inbox and notifications). Lossy for a subscriber that lags: it should re-list then.
    pub fn subscribe(&self) -> broadcast::Receiver<InboxEvent> {
        self.inner.inbox.subscribe()
    }

    /// Changes when a decision for the client is made or the client is revoked.
    pub fn watch_client(&self, client_id: &ClientId) -> watch::Receiver<ClientSignal> {
        self.signal(client_id).subscribe()
    }

    /// A live connection of the authenticated `client`.
    pub fn connect(&self, client: &Client) -> Connection {
        Connection::new(self.clone(), client.id.clone(), self.watch_client(&client.id))
    }

    fn signal(&self, client_id: &ClientId) -> watch::Sender<ClientSignal> {
        let mut signals = self.inner.signals.lock().unwrap_or_else(|e| e.into_inner());
        signals.entry(client_id.clone()).or_insert_with(|| watch::Sender::new(ClientSignal::default())).clone()
    }

    fn publish(&self, event: InboxEvent) {
        // No subscriber is fine: nobody has the inbox open.
        let _ = self.inner.inbox.send(event);
    }

    /// After a decision is stored: wakes the client's waiters and tells the inbox.
    async fn decided(&self, request_id: &OutsideRequestId) -> Result<OutsideRequest> {
        let request = self.request(request_id).await?;
        self.signal(&request.client_id).send_modify(|s| s.decided += 1);
        self.publish(InboxEvent::Decided { request: Box::new(request.clone()) });
        Ok(request)
    }

    // ---- deadlines ----

    /// Expires due requests, then sleeps until the next deadline or a new request, until shutdown.
    async fn expire_forever(self) {
        loop {
            if let Err(error) = self.expire_due().await {
                tracing::error!(%error, "could not expire outside requests");
            }
            let next = match self.inner.store.next_expiry().await {
                Ok(next) => next.and_then(|at| parse_time(&at)),
                Err(error) => {
                    tracing::error!(%error, "could not read the next outside deadline");
                    Some(SystemTime::now() + Duration::from_secs(5))
                }
            };
            let wait =
                next.map(|at| at.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO)).unwrap_or(IDLE_CHECK);
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = self.inner.deadlines.notified() => {}
                () = self.inner.shutdown.cancelled() => return,
            }
        }
    }

    async fn expire_due(&self) -> Result<()> {
        for (id, secs) in self.inner.store.due(&store::now()).await? {
            let detail = format!("no decision within {secs} s");
            let decision = Decision {
                decision: Verdict::Rejected,
                reason: Some(detail.clone()),
                edited_code: None,
                decided_by: DecidedBy { kind: DeciderKind::Timeout, detail },
                person: None,
            };
            if self.inner.store.decide(&id, RequestStatus::Expired, &decision).await? {
                self.decided(&id).await?;
            }
        }
        Ok(())
    }
}

/// A new client token: `wo_` and 32 random bytes in hex.
fn new_token() -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::Internal(format!("no randomness for a token: {e}")))?;
    Ok(format!("wo_{}", hex::encode(bytes)))
}

/// The stored form of a token. Tokens are 256 random bits, so a plain SHA-256 is enough: there is
/// nothing to guess from it.
fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}
