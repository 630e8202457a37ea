//! Passkey ceremonies under way: what the server said to the browser (webauthn-rs's state, with its
//! challenge) kept in memory under a random id until the browser answers, for five minutes at most, and
//! used once. Memory rather than a table: a ceremony lasts a minute, a restart only asks the person to try
//! again, anonymous sign-in attempts write nothing to the database, and the state never leaves the process
//! (webauthn-rs's `danger-allow-state-serialisation` stays off). The map is bounded.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use warden_db::secret::Secret;
use warden_types::id::PersonId;
use webauthn_rs::prelude::{DiscoverableAuthentication, PasskeyRegistration};

/// How long a browser has to answer (webauthn-rs asks authenticators for five minutes at most).
const LIFETIME: Duration = Duration::from_secs(5 * 60);
/// Ceremonies under way at once; past this a new one is refused until some end (the sign-in limiter
/// keeps a single address far below it).
const MAX_PENDING: usize = 4096;

/// One ceremony's state.
pub enum Ceremony {
    /// Signing in on `/sign-in`.
    SignIn(DiscoverableAuthentication),
    /// Joining by the invitation whose link carries `secret`, as the new person `person`.
    Join { secret: String, person: PersonId, login: String, name: String, state: PasskeyRegistration },
    /// Adding a passkey called `name` to `person`'s account.
    Add { person: PersonId, name: String, state: PasskeyRegistration },
}

#[derive(Default)]
pub struct Ceremonies {
    pending: Mutex<HashMap<String, (Ceremony, Instant)>>,
}

impl Ceremonies {
    /// Keeps `ceremony` under a new random id; `None` when too many are under way or no randomness came.
    pub fn begin(&self, ceremony: Ceremony) -> Option<String> {
        let id = Secret::new().ok()?.expose().to_string();
        let now = Instant::now();
        let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if pending.len() >= MAX_PENDING {
            pending.retain(|_, (_, started)| now.duration_since(*started) < LIFETIME);
            if pending.len() >= MAX_PENDING {
                return None;
            }
        }
        pending.insert(id.clone(), (ceremony, now));
        Some(id)
    }

    /// The ceremony `id` names, taken out (a ceremony is answered once); `None` when unknown or expired.
    pub fn finish(&self, id: &str) -> Option<Ceremony> {
        let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (ceremony, started) = pending.remove(id)?;
        (started.elapsed() < LIFETIME).then_some(ceremony)
    }
}
