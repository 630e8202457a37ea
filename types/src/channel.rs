//! Notification channels as Settings shows and edits them: how a message reaches a person (a webhook, Slack,
//! Discord, ntfy, e-mail, a browser's Web Push), and the SMTP server an owner configures. Sending is
//! `warden-notify`'s; these are the records both sides of the wire share. Secrets (a webhook's signing secret,
//! an ntfy token, a chat webhook's URL, the SMTP password) leave the server only masked (`crate::secret`).

use serde::{Deserialize, Serialize};

use crate::id::ChannelId;

/// How a channel reaches its person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum ChannelKind {
    Webhook,
    Slack,
    Discord,
    Ntfy,
    Email,
    WebPush,
}

impl ChannelKind {
    pub const ALL: [ChannelKind; 6] = [
        ChannelKind::Webhook,
        ChannelKind::Slack,
        ChannelKind::Discord,
        ChannelKind::Ntfy,
        ChannelKind::Email,
        ChannelKind::WebPush,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn label(self) -> &'static str {
        match self {
            ChannelKind::Webhook => "Webhook (JSON, signed)",
            ChannelKind::Slack => "Slack",
            ChannelKind::Discord => "Discord",
            ChannelKind::Ntfy => "ntfy",
            ChannelKind::Email => "E-mail",
            ChannelKind::WebPush => "This browser (Web Push)",
        }
    }
}

/// A channel's settings. As a person sends them, secrets are in full (`None`, empty or the masked form shown
/// keeps the stored one, as long as the address is unchanged); as Settings shows them, secrets are masked.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ChannelConfig {
    /// A JSON POST signed with HMAC-SHA256 (`Warden-Signature: t=<unix>,v1=<hex>`). No secret on creation:
    /// Warden makes one and shows it once.
    Webhook {
        url: String,
        #[serde(default)]
        secret: Option<String>,
    },
    /// A Slack incoming webhook URL (the URL is the secret).
    Slack { url: String },
    /// A Discord webhook URL (the URL is the secret).
    Discord { url: String },
    /// An ntfy server and topic, with an access token when the topic is protected.
    Ntfy {
        server: String,
        topic: String,
        #[serde(default)]
        token: Option<String>,
    },
    /// An e-mail address, reached through the SMTP server an owner configured.
    Email { address: String },
    /// A browser's push subscription (what `PushManager.subscribe()` gave).
    WebPush { endpoint: String, p256dh: String, auth: String },
}

impl ChannelConfig {
    pub fn kind(&self) -> ChannelKind {
        match self {
            ChannelConfig::Webhook { .. } => ChannelKind::Webhook,
            ChannelConfig::Slack { .. } => ChannelKind::Slack,
            ChannelConfig::Discord { .. } => ChannelKind::Discord,
            ChannelConfig::Ntfy { .. } => ChannelKind::Ntfy,
            ChannelConfig::Email { .. } => ChannelKind::Email,
            ChannelConfig::WebPush { .. } => ChannelKind::WebPush,
        }
    }

    /// The settings as a browser may see them: every secret masked.
    pub fn masked(&self) -> ChannelConfig {
        use crate::secret::mask;
        match self {
            ChannelConfig::Webhook { url, secret } => {
                ChannelConfig::Webhook { url: url.clone(), secret: secret.as_deref().map(mask) }
            }
            ChannelConfig::Slack { url } => ChannelConfig::Slack { url: mask_url(url) },
            ChannelConfig::Discord { url } => ChannelConfig::Discord { url: mask_url(url) },
            ChannelConfig::Ntfy { server, topic, token } => {
                ChannelConfig::Ntfy { server: server.clone(), topic: topic.clone(), token: token.as_deref().map(mask) }
            }
            ChannelConfig::Email { address } => ChannelConfig::Email { address: address.clone() },
            ChannelConfig::WebPush { endpoint, .. } => ChannelConfig::WebPush {
                endpoint: mask_url(endpoint),
                p256dh: crate::secret::MASK.into(),
                auth: crate::secret::MASK.into(),
            },
        }
    }

    /// One line that says where the channel goes, secrets masked (`https://hooks.slack.com/••••abcd`).
    pub fn destination(&self) -> String {
        match self.masked() {
            ChannelConfig::Webhook { url, .. } | ChannelConfig::Slack { url } | ChannelConfig::Discord { url } => url,
            ChannelConfig::Ntfy { server, topic, .. } => format!("{}/{topic}", server.trim_end_matches('/')),
            ChannelConfig::Email { address } => address,
            ChannelConfig::WebPush { endpoint, .. } => endpoint,
        }
    }
}

/// A URL whose path is a secret: its origin, then the mask and at most the last 4 characters.
fn mask_url(url: &str) -> String {
    let after_scheme = url.find("://").map(|i| i + 3).unwrap_or(0);
    let origin_end = url[after_scheme..].find('/').map(|i| after_scheme + i).unwrap_or(url.len());
    let (origin, rest) = url.split_at(origin_end);
    if rest.is_empty() {
        return origin.to_string();
    }
    format!("{origin}/{}", crate::secret::mask(rest))
}

// A config's secrets must never reach a log line through `{:?}`.
impl std::fmt::Debug for ChannelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelConfig").field("kind", &self.kind()).field("to", &self.destination()).finish()
    }
}

/// A new channel or a change to one, as Settings and the API send it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChannelInput {
    pub name: String,
    pub config: ChannelConfig,
}

/// The last "Send a test" of a channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestResult {
    /// RFC 3339 UTC.
    pub at: String,
    pub ok: bool,
    /// The channel's answer ("HTTP 200", "250 2.0.0 Ok: queued as …") or the error.
    pub detail: String,
}

/// A channel as Settings lists it (secrets masked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelView {
    pub id: ChannelId,
    pub name: String,
    pub kind: ChannelKind,
    /// A team's channel an owner made (policies name it per rule), not one person's.
    pub shared: bool,
    pub config: ChannelConfig,
    pub created_at: String,
    pub last_test: Option<TestResult>,
    /// When the push service said the subscription is gone (the browser unsubscribed or expired).
    pub gone_at: Option<String>,
}

/// What creating a channel answers: the channel, and a webhook's signing secret when Warden made it (shown
/// this once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelCreated {
    pub channel: ChannelView,
    pub secret: Option<String>,
}

/// How the SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(rename_all = "snake_case"))]
pub enum SmtpSecurity {
    /// TLS from the first byte (`smtps://`, usually port 465).
    Tls,
    /// Plain, then STARTTLS, which must succeed (usually port 587).
    StartTls,
    /// No encryption at all: only for a relay on this machine or a test server.
    None,
}

impl SmtpSecurity {
    pub const ALL: [SmtpSecurity; 3] = [SmtpSecurity::StartTls, SmtpSecurity::Tls, SmtpSecurity::None];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn label(self) -> &'static str {
        match self {
            SmtpSecurity::Tls => "TLS (port 465)",
            SmtpSecurity::StartTls => "STARTTLS (port 587)",
            SmtpSecurity::None => "None (local relay only)",
        }
    }
}

/// The SMTP server e-mail channels are sent through, as an owner sets it. `password`: `None`, empty or the
/// masked form keeps the stored one while the host is unchanged.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpInput {
    pub host: String,
    pub port: u16,
    pub security: SmtpSecurity,
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    /// The sender, `Warden <warden@example.com>` or a bare address.
    pub from: String,
}

impl std::fmt::Debug for SmtpInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpInput")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "[redacted]"))
            .field("from", &self.from)
            .finish()
    }
}

/// The SMTP server as Settings shows it (password masked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmtpView {
    /// `None` when none is stored (the environment's may still apply).
    pub stored: Option<SmtpInput>,
    /// `WARDEN_SMTP_URL` is set: it is used instead of the stored server (its password is never shown).
    pub from_environment: Option<String>,
}

/// What a browser needs to subscribe to push: the server's VAPID public key (base64url, uncompressed P-256).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushKey {
    pub public_key: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_masked_config_keeps_no_secret_and_its_debug_output_shows_none() {
        let slack = ChannelConfig::Slack { url: "https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX".into() };
        let shown = format!("{:?} {}", slack.masked().destination(), serde_json::to_string(&slack.masked()).unwrap());
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("https://hooks.slack.com/"), "{shown}");
        let hook = ChannelConfig::Webhook {
            url: "https://example.com/h".into(),
            secret: Some("whsec_abcdef0123456789".into()),
        };
        assert!(!format!("{hook:?}").contains("abcdef"));
        assert!(!serde_json::to_string(&hook.masked()).unwrap().contains("abcdef0123"));
    }
}
