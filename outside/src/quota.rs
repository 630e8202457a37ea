//! Per-client bounds, so that one client cannot bury the others (or the person's own chats) under its
//! requests, nor hold Warden's sockets: how many of its requests may wait for a person at once, how
//! many it may send a minute (a `governor` rate limiter keyed by client), and how many WebSockets and
//! long-polls it may hold open at once. A refusal names the bound, and when trying again helps.
//! Decided requests count against nothing: they are kept for the audit log.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use warden_types::id::ClientId;

use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use governor::{Quota, RateLimiter};

use crate::error::{Error, Result};

/// The bounds every client is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Requests of one client waiting for a person at the same time.
    pub max_pending: u64,
    /// Requests one client may send a minute: this many at once, then one every `60 s / n`.
    pub per_minute: NonZeroU32,
    /// WebSockets of one client open at the same time.
    pub max_sockets: usize,
    /// Long-polls (`GET …/decision?wait=`) of one client waiting at the same time.
    pub max_waits: usize,
    /// MCP sessions (`/mcp/approvals`) of one client open at the same time.
    pub max_mcp_sessions: usize,
    /// How long an MCP session may go without a message either way before it is closed (and stops
    /// counting against `max_mcp_sessions`).
    pub mcp_session_idle: Duration,
}

impl Default for Limits {
    /// 100 waiting, 120 a minute, 8 sockets, 32 long-polls, 16 MCP sessions closed after 5 idle minutes
    /// (rmcp's default): far above what an agent or an executor asks for (one request at a time, a
    /// socket or a session per process).
    fn default() -> Self {
        Self {
            max_pending: 100,
            per_minute: NonZeroU32::new(120).unwrap_or(NonZeroU32::MIN),
            max_sockets: 8,
            max_waits: 32,
            max_mcp_sessions: 16,
            mcp_session_idle: Duration::from_secs(300),
        }
    }
}

impl Limits {
    /// The defaults, each changed by its environment variable when set: `WARDEN_OUTSIDE_MAX_PENDING`,
    /// `WARDEN_OUTSIDE_REQUESTS_PER_MINUTE`, `WARDEN_OUTSIDE_MAX_SOCKETS`, `WARDEN_OUTSIDE_MAX_LONG_POLLS`,
    /// `WARDEN_OUTSIDE_MAX_MCP_SESSIONS`, `WARDEN_OUTSIDE_MCP_IDLE_SECS` (whole numbers from 1). A bad
    /// value is an error naming it.
    pub fn from_env() -> Result<Self> {
        fn read(name: &str) -> Result<Option<u64>> {
            match std::env::var(name) {
                Ok(text) => match text.trim().parse::<u64>() {
                    Ok(n) if n >= 1 => Ok(Some(n)),
                    _ => Err(Error::Invalid(format!("{name} must be a whole number from 1, not `{text}`"))),
                },
                Err(_) => Ok(None),
            }
        }
        let mut limits = Self::default();
        if let Some(n) = read("WARDEN_OUTSIDE_MAX_PENDING")? {
            limits.max_pending = n;
        }
        if let Some(n) = read("WARDEN_OUTSIDE_REQUESTS_PER_MINUTE")? {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            limits.per_minute = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
        }
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        if let Some(n) = read("WARDEN_OUTSIDE_MAX_SOCKETS")? {
            limits.max_sockets = count(n);
        }
        if let Some(n) = read("WARDEN_OUTSIDE_MAX_LONG_POLLS")? {
            limits.max_waits = count(n);
        }
        if let Some(n) = read("WARDEN_OUTSIDE_MAX_MCP_SESSIONS")? {
            limits.max_mcp_sessions = count(n);
        }
        if let Some(secs) = read("WARDEN_OUTSIDE_MCP_IDLE_SECS")? {
            limits.mcp_session_idle = Duration::from_secs(secs);
        }
        Ok(limits)
    }
}

/// What a client holds open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Held {
    Socket,
    LongPoll,
}

impl Held {
    fn words(self) -> &'static str {
        match self {
            Held::Socket => "WebSockets",
            Held::LongPoll => "long-polls",
        }
    }
}

type Limiter = RateLimiter<String, HashMapStateStore<String>, DefaultClock>;

/// The hub's bookkeeping of [`Limits`].
pub(crate) struct Quotas {
    limits: Limits,
    rate: Limiter,
    held: Mutex<HashMap<(String, Held), usize>>,
}

impl Quotas {
    pub fn new(limits: Limits) -> Arc<Self> {
        let rate = RateLimiter::hashmap(Quota::per_minute(limits.per_minute));
        Arc::new(Self { limits, rate, held: Mutex::new(HashMap::new()) })
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Takes one request of the client's minute, or says how long until there is room.
    pub fn take_request(&self, client_id: &ClientId) -> Result<()> {
        let key = client_id.to_string();
        match self.rate.check_key(&key) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.rate.clock().now());
                // Whole seconds, never 0: a client told "0" would try again at once.
                let retry_after = Duration::from_secs(wait.as_secs() + u64::from(wait.subsec_nanos() > 0))
                    .max(Duration::from_secs(1));
                // The keys of clients that sent nothing for a while are dropped now and then.
                if self.rate.len() > 1024 {
                    self.rate.retain_recent();
                }
                Err(Error::RateLimited { per_minute: self.limits.per_minute.get(), retry_after })
            }
        }
    }

    /// One more `what` of the client, held until the permit is dropped; refused over its bound.
    pub fn hold(self: &Arc<Self>, client_id: &ClientId, what: Held) -> Result<Permit> {
        let max = match what {
            Held::Socket => self.limits.max_sockets,
            Held::LongPoll => self.limits.max_waits,
        };
        let key = (client_id.to_string(), what);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.entry(key.clone()).or_insert(0);
        if *count >= max {
            return Err(Error::TooManyOpen { what: what.words(), max });
        }
        *count += 1;
        Ok(Permit { quotas: self.clone(), key })
    }
}

/// One socket or long-poll of a client, counted against its bound until dropped.
pub struct Permit {
    quotas: Arc<Quotas>,
    key: (String, Held),
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut held = self.quotas.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

impl std::fmt::Debug for Permit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Permit").field("client", &self.key.0).field("what", &self.key.1).finish()
    }
}
