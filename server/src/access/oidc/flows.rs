//! Sign-ins with the provider under way: the `state`, `nonce` and PKCE verifier of each, with the provider's
//! discovery document and the redirect URL it was started with, kept in memory under a random id for ten
//! minutes and taken once. The browser carries the id back in a cookie, so a callback another browser
//! started (a link someone was sent) finds nothing.

use openidconnect::core::CoreProviderMetadata;
use openidconnect::{CsrfToken, Nonce, PkceCodeVerifier, RedirectUrl};

use crate::access::pending::Pending;

pub struct Flow {
    pub state: CsrfToken,
    pub nonce: Nonce,
    pub verifier: PkceCodeVerifier,
    pub redirect: RedirectUrl,
    pub metadata: CoreProviderMetadata,
}

/// The sign-ins under way, ten minutes at most each.
pub type Flows = Pending<Flow, { 10 * 60 }>;
