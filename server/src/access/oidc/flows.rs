//! Sign-ins with the provider under way: the `state`, `nonce` and PKCE verifier of each, with the provider's
//! discovery document and the redirect URL it was started with, kept in memory under a random id for ten
//! minutes and taken once. The browser carries the id back in a cookie, so a callback another browser
//! started (a link someone was sent) finds nothing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use openidconnect::core::CoreProviderMetadata;
use openidconnect::{CsrfToken, Nonce, PkceCodeVerifier, RedirectUrl};
use warden_db::secret::Secret;

/// How long the person has at the provider.
pub const LIFETIME: Duration = Duration::from_secs(10 * 60);
const MAX_PENDING: usize = 4096;

pub struct Flow {
    pub state: CsrfToken,
    pub nonce: Nonce,
    pub verifier: PkceCodeVerifier,
    pub redirect: RedirectUrl,
    pub metadata: CoreProviderMetadata,
}

#[derive(Default)]
pub struct Flows {
    pending: Mutex<HashMap<String, (Flow, Instant)>>,
}

impl Flows {
    /// Keeps `flow` under a new random id; `None` when too many are under way.
    pub fn begin(&self, flow: Flow) -> Option<String> {
        let id = Secret::new().ok()?.expose().to_string();
        let now = Instant::now();
        let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if pending.len() >= MAX_PENDING {
            pending.retain(|_, (_, started)| now.duration_since(*started) < LIFETIME);
            if pending.len() >= MAX_PENDING {
                return None;
            }
        }
        pending.insert(id.clone(), (flow, now));
        Some(id)
    }

    /// The flow `id` names, taken out; `None` when unknown, used or expired.
    pub fn finish(&self, id: &str) -> Option<Flow> {
        let mut pending = self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (flow, started) = pending.remove(id)?;
        (started.elapsed() < LIFETIME).then_some(flow)
    }
}
