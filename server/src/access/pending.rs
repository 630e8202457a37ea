//! Sign-in steps under way (a passkey ceremony, a sign-in at the identity provider): each one's state kept in
//! memory under a new random id for `LIFETIME_SECS` at most, taken out once. The map is bounded: past
//! `MAX_PENDING` expired ones are dropped, and if it is still full a new step is refused until some end.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use warden_db::secret::Secret;

/// Steps under way at once (the sign-in limiter keeps a single address far below it).
pub const MAX_PENDING: usize = 4096;

pub struct Pending<T, const LIFETIME_SECS: u64> {
    pending: Mutex<HashMap<String, (T, Instant)>>,
}

impl<T, const LIFETIME_SECS: u64> Default for Pending<T, LIFETIME_SECS> {
    fn default() -> Self {
        Self { pending: Mutex::new(HashMap::new()) }
    }
}

impl<T, const LIFETIME_SECS: u64> Pending<T, LIFETIME_SECS> {
    /// How long a step may take.
    pub const LIFETIME: Duration = Duration::from_secs(LIFETIME_SECS);

    /// Keeps `step` under a new random id; `None` when too many are under way or no randomness came.
    pub fn begin(&self, step: T) -> Option<String> {
        let id = Secret::new().ok()?.expose().to_string();
        let now = Instant::now();
        let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if pending.len() >= MAX_PENDING {
            pending.retain(|_, (_, started)| now.duration_since(*started) < Self::LIFETIME);
            if pending.len() >= MAX_PENDING {
                return None;
            }
        }
        pending.insert(id.clone(), (step, now));
        Some(id)
    }

    /// The step `id` names, taken out (each is answered once); `None` when unknown, used or expired.
    pub fn finish(&self, id: &str) -> Option<T> {
        let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (step, started) = pending.remove(id)?;
        (started.elapsed() < Self::LIFETIME).then_some(step)
    }
}
