//! Warden connects out: the executors configured to be dialled (URL, optional bearer token,
//! enabled) each get a task that opens their WebSocket, serves it (`dial_socket`), and when it fails
//! or is lost dials again with exponential backoff and jitter, until the executor is switched off,
//! removed, its client revoked, or Warden shuts down. Each executor is an outside client of its own,
//! so its requests are stored, decided and delivered exactly as a connecting client's.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use warden_types::id::ExecutorId;

use backon::{BackoffBuilder, ExponentialBuilder};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_util::sync::CancellationToken;
use warden_db::Database;

use crate::dial_socket::{self, End, Socket};
use crate::error::{Error, Result};
use crate::executor::{check_bearer, check_url, DialState, DialStatus, Executor, NewExecutor};
use crate::executor_store::{ExecutorRow, ExecutorStore};
use crate::hub::OutsideHub;
use crate::protocol::MAX_FRAME_BYTES;
use crate::store;

/// How long one attempt to open an executor's socket may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest message read from an executor (bigger frames than the protocol's get `too_large`).
const MAX_MESSAGE_BYTES: usize = 4 * MAX_FRAME_BYTES;

/// How long to wait between attempts: from `min`, doubling, up to `max`, with jitter.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub min: Duration,
    pub max: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Self { min: Duration::from_millis(500), max: Duration::from_secs(60) }
    }
}

impl Backoff {
    fn delays(&self) -> impl Iterator<Item = Duration> {
        ExponentialBuilder::new()
            .with_min_delay(self.min)
            .with_max_delay(self.max)
            .with_jitter()
            .without_max_times()
            .build()
    }
}

/// Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Dialer {
    inner: Arc<Inner>,
}

struct Inner {
    hub: OutsideHub,
    store: ExecutorStore,
    backoff: Backoff,
    /// The running task of each dialled executor, ended by its token.
    tasks: Mutex<HashMap<ExecutorId, CancellationToken>>,
    states: Mutex<HashMap<ExecutorId, DialState>>,
    /// A child of the hub's shutdown token.
    shutdown: CancellationToken,
}

impl Dialer {
    /// Starts dialling every enabled executor whose client is not revoked. The hub must be open on
    /// `database` (it runs the migrations).
    pub async fn start(database: &Database, hub: OutsideHub, backoff: Backoff) -> Result<Self> {
        let shutdown = hub.shutdown_token().child_token();
        let dialer = Self {
            inner: Arc::new(Inner {
                hub,
                store: ExecutorStore::new(database),
                backoff,
                tasks: Mutex::new(HashMap::new()),
                states: Mutex::new(HashMap::new()),
                shutdown,
            }),
        };
        for row in dialer.inner.store.list().await? {
            dialer.start_or_stop(row);
        }
        Ok(dialer)
    }

    /// Adds an executor (and the outside client it asks as, registered by `by`: its requests are asked by
    /// them) and dials it if enabled.
    pub async fn add(&self, new: NewExecutor, by: &crate::ownership::Manager) -> Result<Executor> {
        check_url(&new.url).map_err(Error::Invalid)?;
        if let Some(token) = &new.bearer_token {
            check_bearer(token).map_err(Error::Invalid)?;
        }
        // The client's token is never used: an executor is reached by dialling it.
        let client = self.inner.hub.create_client_of(by, &new.name, new.policy).await?.client;
        let row = ExecutorRow {
            id: ExecutorId::new(),
            client_id: client.id,
            name: client.name,
            url: new.url,
            bearer_token: new.bearer_token,
            enabled: new.enabled,
            created_at: store::now(),
            revoked: false,
        };
        self.inner.store.insert(&row).await?;
        self.start_or_stop(row.clone());
        Ok(self.view(&row))
    }

    /// Every executor with its connection's state, oldest first.
    pub async fn list(&self) -> Result<Vec<Executor>> {
        Ok(self.inner.store.list().await?.iter().map(|row| self.view(row)).collect())
    }

    pub async fn get(&self, id: &ExecutorId) -> Result<Executor> {
        Ok(self.view(&self.row(id).await?))
    }

    /// Switches dialling on or off (off closes an open socket).
    pub async fn set_enabled(&self, id: &ExecutorId, enabled: bool) -> Result<Executor> {
        if !self.inner.store.set_enabled(id, enabled).await? {
            return Err(Error::not_found("executor", id));
        }
        let row = self.row(id).await?;
        self.start_or_stop(row.clone());
        Ok(self.view(&row))
    }

    /// Stops dialling the executor, forgets it and revokes its client. Its requests stay in the
    /// inbox and the audit.
    pub async fn remove(&self, id: &ExecutorId) -> Result<()> {
        let row = self.row(id).await?;
        self.stop(id);
        self.inner.store.delete(id).await?;
        self.inner.hub.revoke_client(&row.client_id).await?;
        lock(&self.inner.states).remove(id);
        Ok(())
    }

    async fn row(&self, id: &ExecutorId) -> Result<ExecutorRow> {
        self.inner.store.get(id).await?.ok_or_else(|| Error::not_found("executor", id))
    }

    fn view(&self, row: &ExecutorRow) -> Executor {
        let state = lock(&self.inner.states).get(&row.id).cloned().unwrap_or_else(|| {
            DialState::of(match (row.revoked, row.enabled) {
                (true, _) => DialStatus::Stopped,
                (false, true) => DialStatus::Connecting,
                (false, false) => DialStatus::Disabled,
            })
        });
        Executor {
            id: row.id.clone(),
            client_id: row.client_id.clone(),
            name: row.name.clone(),
            url: row.url.clone(),
            has_bearer_token: row.bearer_token.is_some(),
            enabled: row.enabled,
            created_at: row.created_at.clone(),
            state,
        }
    }

    /// Brings the executor's task in line with its row: (re)started when enabled and not revoked,
    /// else stopped.
    fn start_or_stop(&self, row: ExecutorRow) {
        self.stop(&row.id);
        if row.revoked {
            self.set_state(&row.id, DialState::of(DialStatus::Stopped));
            return;
        }
        if !row.enabled {
            self.set_state(&row.id, DialState::of(DialStatus::Disabled));
            return;
        }
        let stop = self.inner.shutdown.child_token();
        lock(&self.inner.tasks).insert(row.id.clone(), stop.clone());
        tokio::spawn(self.clone().dial_forever(row, stop));
    }

    fn stop(&self, id: &ExecutorId) {
        if let Some(stop) = lock(&self.inner.tasks).remove(id) {
            stop.cancel();
        }
    }

    fn set_state(&self, id: &ExecutorId, state: DialState) {
        lock(&self.inner.states).insert(id.clone(), state);
    }

    /// Dials the executor, serves the socket, and dials again after a backoff, until stopped. Only
    /// this task writes its executor's state while it runs (a stopped task writes nothing more).
    async fn dial_forever(self, row: ExecutorRow, stop: CancellationToken) {
        // Under the states' lock, so a state set when the task was stopped is never overwritten.
        let update = |state: DialState| {
            let mut states = lock(&self.inner.states);
            if !stop.is_cancelled() {
                states.insert(row.id.clone(), state);
            }
        };
        let client = match self.inner.hub.client(&row.client_id).await {
            Ok(client) => client,
            Err(error) => {
                tracing::error!(executor = %row.id, %error, "cannot read the executor's client");
                update(DialState {
                    last_error: Some("Warden could not read the executor's client".into()),
                    ..DialState::of(DialStatus::Stopped)
                });
                return;
            }
        };
        let mut delays = self.inner.backoff.delays();
        let mut failed_attempts = 0u32;
        let mut last_error = None;
        loop {
            update(DialState {
                failed_attempts,
                last_error: last_error.clone(),
                ..DialState::of(DialStatus::Connecting)
            });
            let opened = tokio::select! {
                opened = tokio::time::timeout(CONNECT_TIMEOUT, open(&row)) => opened,
                () = stop.cancelled() => return,
            };
            match opened {
                Ok(Ok(socket)) => {
                    tracing::info!(executor = %row.id, name = %row.name, "connected to the executor");
                    update(DialState { connected_at: Some(store::now()), ..DialState::of(DialStatus::Connected) });
                    let mut connection = self.inner.hub.connect(&client);
                    match dial_socket::serve(socket, &mut connection, &stop).await {
                        End::Lost(why) => {
                            tracing::info!(executor = %row.id, reason = %why, "lost the executor's socket");
                            last_error = Some(why);
                            failed_attempts = 0;
                            delays = self.inner.backoff.delays();
                        }
                        End::Revoked => {
                            update(DialState {
                                last_error: Some("the client was revoked".into()),
                                ..DialState::of(DialStatus::Stopped)
                            });
                            return;
                        }
                        End::Stopped => return,
                    }
                }
                Ok(Err(why)) => {
                    failed_attempts += 1;
                    last_error = Some(why);
                }
                Err(_) => {
                    failed_attempts += 1;
                    last_error = Some(format!("no connection within {} s", CONNECT_TIMEOUT.as_secs()));
                }
            }
            let delay = delays.next().unwrap_or(self.inner.backoff.max);
            update(DialState {
                failed_attempts,
                last_error: last_error.clone(),
                retry_at: Some(store::at(SystemTime::now() + delay)),
                ..DialState::of(DialStatus::Retrying)
            });
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = stop.cancelled() => return,
            }
        }
    }
}

/// Opens the executor's socket, with its bearer token if it has one. The error says what went
/// wrong without the token.
async fn open(row: &ExecutorRow) -> Result<Socket, String> {
    warden_llm::tls::install_crypto_provider();
    let mut request = row.url.as_str().into_client_request().map_err(|e| format!("bad address: {e}"))?;
    if let Some(token) = &row.bearer_token {
        let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| "the bearer token cannot be sent in a header".to_string())?;
        value.set_sensitive(true);
        request.headers_mut().insert("authorization", value);
    }
    let config =
        WebSocketConfig::default().max_message_size(Some(MAX_MESSAGE_BYTES)).max_frame_size(Some(MAX_MESSAGE_BYTES));
    match tokio_tungstenite::connect_async_with_config(request, Some(config), false).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(format!("the executor refused the connection: HTTP {}", response.status()))
        }
        Err(error) => Err(format!("could not connect: {error}")),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
