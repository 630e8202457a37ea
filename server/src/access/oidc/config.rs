//! The identity provider's configuration, from the environment: `WARDEN_OIDC_ISSUER`,
//! `WARDEN_OIDC_CLIENT_ID` and `WARDEN_OIDC_CLIENT_SECRET` together (none of them: no provider), and
//! `WARDEN_OIDC_ROLE_CLAIM` if the provider says people's roles. Checked at start, so a typo stops the
//! server with the variable's name rather than failing at someone's first sign-in.

use openidconnect::url;
use openidconnect::{ClientId, ClientSecret, IssuerUrl};
use warden_types::person::Role;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "{missing} is not set: WARDEN_OIDC_ISSUER, WARDEN_OIDC_CLIENT_ID and WARDEN_OIDC_CLIENT_SECRET go together"
    )]
    Incomplete { missing: &'static str },
    #[error("WARDEN_OIDC_ISSUER: `{0}` is not an https URL (plain http only on localhost or a loopback address)")]
    Issuer(String),
    #[error("WARDEN_OIDC_ROLE_CLAIM: `{0}` is not a claim name (letters, digits and . _ - : / only)")]
    RoleClaim(String),
}

/// How Warden signs people in with the provider.
#[derive(Clone, Debug)]
pub struct OidcConfig {
    pub issuer: IssuerUrl,
    pub client_id: ClientId,
    pub client_secret: ClientSecret,
    /// The ID token claim whose value (a string, or a list of strings) names a role.
    pub role_claim: Option<String>,
}

impl OidcConfig {
    /// The configuration in the environment, if any.
    pub fn from_env() -> Result<Option<Self>, ConfigError> {
        let env = |name| std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        Self::from_values(
            env("WARDEN_OIDC_ISSUER"),
            env("WARDEN_OIDC_CLIENT_ID"),
            env("WARDEN_OIDC_CLIENT_SECRET"),
            env("WARDEN_OIDC_ROLE_CLAIM"),
        )
    }

    pub fn from_values(
        issuer: Option<String>,
        client_id: Option<String>,
        client_secret: Option<String>,
        role_claim: Option<String>,
    ) -> Result<Option<Self>, ConfigError> {
        let (issuer, client_id, client_secret) = match (issuer, client_id, client_secret) {
            (None, None, None) => return Ok(None),
            (Some(i), Some(c), Some(s)) => (i, c, s),
            (None, _, _) => return Err(ConfigError::Incomplete { missing: "WARDEN_OIDC_ISSUER" }),
            (_, None, _) => return Err(ConfigError::Incomplete { missing: "WARDEN_OIDC_CLIENT_ID" }),
            (_, _, None) => return Err(ConfigError::Incomplete { missing: "WARDEN_OIDC_CLIENT_SECRET" }),
        };
        let url = IssuerUrl::new(issuer.clone()).map_err(|_| ConfigError::Issuer(issuer.clone()))?;
        let parsed = url.url();
        let loopback = matches!(parsed.host(), Some(url::Host::Domain("localhost")))
            || matches!(parsed.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
            || matches!(parsed.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback());
        let secure = parsed.scheme() == "https" || (parsed.scheme() == "http" && loopback);
        if !secure || parsed.query().is_some() || parsed.fragment().is_some() || !parsed.username().is_empty() {
            return Err(ConfigError::Issuer(issuer));
        }
        if let Some(claim) = &role_claim {
            let fits = claim.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ':' | '/'));
            if !fits {
                return Err(ConfigError::RoleClaim(claim.clone()));
            }
        }
        Ok(Some(Self {
            issuer: url,
            client_id: ClientId::new(client_id),
            client_secret: ClientSecret::new(client_secret),
            role_claim,
        }))
    }

    /// What the sign-in page calls the provider: its host name.
    pub fn display_name(&self) -> String {
        self.issuer.url().host_str().unwrap_or("your identity provider").to_string()
    }
}

/// The role a claim's value names: a role's name (`owner`, `approver`, `member`, `viewer`, any case), or the
/// first such name in a list.
pub fn role_of(value: &serde_json::Value) -> Option<Role> {
    match value {
        serde_json::Value::String(name) => name.trim().to_ascii_lowercase().parse().ok(),
        serde_json::Value::Array(values) => values.iter().find_map(role_of),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some(v: &str) -> Option<String> {
        Some(v.to_string())
    }

    #[test]
    fn the_three_settings_go_together_and_the_issuer_must_be_https_or_loopback() {
        assert!(OidcConfig::from_values(None, None, None, None).unwrap().is_none());
        let missing = OidcConfig::from_values(some("https://id.example"), some("warden"), None, None).unwrap_err();
        assert!(missing.to_string().contains("WARDEN_OIDC_CLIENT_SECRET"), "{missing}");
        for bad in ["http://id.example", "id.example", "https://id.example/?x=1", "ftp://id.example"] {
            let error = OidcConfig::from_values(some(bad), some("c"), some("s"), None).unwrap_err();
            assert!(error.to_string().starts_with("WARDEN_OIDC_ISSUER"), "{bad}: {error}");
        }
        for good in ["https://id.example/realms/team", "http://127.0.0.1:8080", "http://localhost:9000/"] {
            assert!(OidcConfig::from_values(some(good), some("c"), some("s"), None).unwrap().is_some(), "{good}");
        }
        let claim = OidcConfig::from_values(some("https://id.example"), some("c"), some("s"), some("warden role"));
        assert!(claim.unwrap_err().to_string().starts_with("WARDEN_OIDC_ROLE_CLAIM"));
    }

    #[test]
    fn a_claim_names_a_role_by_its_name_or_in_a_list() {
        assert_eq!(role_of(&serde_json::json!("Approver")), Some(Role::Approver));
        assert_eq!(role_of(&serde_json::json!(["staff", "viewer", "owner"])), Some(Role::Viewer));
        assert_eq!(role_of(&serde_json::json!("admin")), None);
        assert_eq!(role_of(&serde_json::json!(3)), None);
    }
}
