//! Sign-in with the team's OpenID Connect provider (Google, Microsoft, Okta, Keycloak, Authentik…), when the
//! server is configured for one (`config`). `GET /sign-in/oidc` discovers the provider and sends the browser
//! to it (authorization code flow with PKCE, a random `state` and `nonce`, kept in memory under a random id
//! that a `SameSite=Lax` cookie carries back); `GET /sign-in/oidc/callback` takes the answer once, checks
//! `state`, exchanges the code with the PKCE verifier and the client secret, and checks the ID token
//! (signature by the provider's published keys, issuer, audience, expiry, nonce). The person is found by
//! (issuer, subject) or made on a first sign-in (`warden_people::ProviderSignIn`).

mod callback;
pub mod config;
mod flows;
mod http;
mod start;

pub use config::{ConfigError, OidcConfig};

use std::sync::Arc;

use openidconnect::core::{
    CoreAuthDisplay, CoreAuthPrompt, CoreErrorResponseType, CoreGenderClaim, CoreJsonWebKey,
    CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm, CoreRevocableToken, CoreRevocationErrorResponse,
    CoreTokenIntrospectionResponse, CoreTokenType,
};
use openidconnect::{
    AdditionalClaims, Client, EmptyExtraTokenFields, EndpointMaybeSet, EndpointNotSet, EndpointSet, IdTokenFields,
    StandardErrorResponse, StandardTokenResponse,
};
use serde::{Deserialize, Serialize};

pub(super) use callback::finish;
pub(super) use start::start;

/// The sign-in path and the one the provider sends the browser back to.
pub const START_PATH: &str = "/sign-in/oidc";
pub const CALLBACK_PATH: &str = "/sign-in/oidc/callback";

/// The ID token's claims beyond the standard ones (the role claim is one of them).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OtherClaims {
    #[serde(flatten)]
    claims: serde_json::Map<String, serde_json::Value>,
}

impl AdditionalClaims for OtherClaims {}

type TokenFields = IdTokenFields<
    OtherClaims,
    EmptyExtraTokenFields,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
>;

/// A client of the provider, as its discovery document describes it.
type ProviderClient = Client<
    OtherClaims,
    CoreAuthDisplay,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJsonWebKey,
    CoreAuthPrompt,
    StandardErrorResponse<CoreErrorResponseType>,
    StandardTokenResponse<TokenFields, CoreTokenType>,
    CoreTokenIntrospectionResponse,
    CoreRevocableToken,
    CoreRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// The configured provider, its HTTP client and the sign-ins under way.
#[derive(Clone)]
pub struct Provider(Arc<ProviderInner>);

struct ProviderInner {
    config: OidcConfig,
    http: http::Http,
    flows: flows::Flows,
}

impl Provider {
    pub fn new(config: OidcConfig) -> Result<Self, reqwest::Error> {
        Ok(Self(Arc::new(ProviderInner { config, http: http::Http::new()?, flows: flows::Flows::default() })))
    }

    pub fn config(&self) -> &OidcConfig {
        &self.0.config
    }
}
