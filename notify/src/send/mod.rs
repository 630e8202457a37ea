//! Sending one notice to one channel: each kind in its own module, all through [`Notifier::send`], within
//! [`SEND_TIMEOUT`]. The answer is what the channel said ([`Delivery`]) or a typed [`SendError`].

mod discord;
mod email;
mod http;
mod ntfy;
mod slack;
mod web_push;
pub mod webhook;

use std::time::Duration;

use warden_db::Database;
use warden_types::channel::{ChannelConfig, SmtpInput, SmtpView};
use warden_types::ErrorKind;

use crate::channel::Channel;
use crate::error::{Error, Result};
use crate::notice::Notice;
use crate::smtp::{SmtpSettings, SmtpStore};
use crate::store::Channels;
use crate::vapid::Vapid;

/// Every send ends within this, answered or not.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// What the channel answered: "HTTP 200", "250 2.0.0 Ok: queued as …", ntfy's message id, the push service's
/// `Location`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub detail: String,
}

/// Why a notice was not delivered.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The channel's server could not be reached (no connection, a TLS failure, no answer in time).
    #[error("{0}")]
    Unreachable(String),
    /// It answered, and refused.
    #[error("the channel answered {status}: {body}")]
    Refused { status: u16, body: String },
    /// The push subscription no longer exists (the push service answered 404 or 410): the channel is marked gone.
    #[error(
        "this browser's subscription is gone (the push service answered {status}): allow notifications on it again"
    )]
    Gone { status: u16 },
    /// The channel's settings or the SMTP server's cannot be used; the message says what to fix.
    #[error("{0}")]
    Config(String),
    /// E-mail needs an SMTP server, and none is configured.
    #[error("no SMTP server is configured: an owner sets one in Settings → Notifications (or WARDEN_SMTP_URL)")]
    NoSmtp,
    #[error(transparent)]
    Store(#[from] Error),
}

impl SendError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            SendError::Unreachable(_) | SendError::Refused { .. } | SendError::Gone { .. } => ErrorKind::Upstream,
            SendError::Config(_) => ErrorKind::Invalid,
            SendError::NoSmtp => ErrorKind::Unavailable,
            SendError::Store(e) => e.kind(),
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            SendError::Unreachable(_) => "channel_unreachable",
            SendError::Refused { .. } => "channel_refused",
            SendError::Gone { .. } => "channel_gone",
            SendError::Config(_) => "invalid_request",
            SendError::NoSmtp => "no_smtp_server",
            SendError::Store(e) => e.code(),
        }
    }
}

/// How the server starts the notifier (from the environment: [`NotifierOptions::from_env`]).
#[derive(Clone, Debug)]
pub struct NotifierOptions {
    /// `WARDEN_SMTP_URL`, which overrides the SMTP server set in Settings.
    pub smtp_url: Option<String>,
    /// `WARDEN_SMTP_FROM`.
    pub smtp_from: Option<String>,
    /// Who runs this Warden, for push services (a `mailto:` or `https:` URL; `WARDEN_VAPID_SUBJECT`).
    pub vapid_subject: String,
    pub timeout: Duration,
}

impl Default for NotifierOptions {
    fn default() -> Self {
        Self { smtp_url: None, smtp_from: None, vapid_subject: "mailto:warden@localhost".into(), timeout: SEND_TIMEOUT }
    }
}

impl NotifierOptions {
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        Self {
            smtp_url: var("WARDEN_SMTP_URL"),
            smtp_from: var("WARDEN_SMTP_FROM"),
            vapid_subject: var("WARDEN_VAPID_SUBJECT").unwrap_or_else(|| NotifierOptions::default().vapid_subject),
            timeout: SEND_TIMEOUT,
        }
    }
}

/// Built once by the server: the HTTP client, the SMTP settings, the VAPID keys and the channels' store.
#[derive(Clone)]
pub struct Notifier {
    channels: Channels,
    smtp: SmtpStore,
    vapid: Vapid,
    http: http::Client,
    options: NotifierOptions,
}

impl Notifier {
    /// Applies this crate's migrations to `database`, loads (or makes) the VAPID key pair.
    pub async fn open(database: &Database, options: NotifierOptions) -> Result<Self> {
        let mut migrator = sqlx::migrate!("./migrations");
        migrator.dangerous_set_table_name(crate::MIGRATIONS_TABLE);
        migrator.run(database.writer()).await?;
        let vapid = Vapid::load_or_make(database.writer()).await?;
        let http = http::Client::new(options.timeout).map_err(Error::Invalid)?;
        Ok(Self {
            channels: Channels::new(database.pool().clone(), database.writer().clone()),
            smtp: SmtpStore::new(database.pool().clone(), database.writer().clone()),
            vapid,
            http,
            options,
        })
    }

    /// The channels' store.
    pub fn channels(&self) -> &Channels {
        &self.channels
    }

    /// The VAPID public key browsers subscribe with (base64url).
    pub fn vapid_public_key(&self) -> &str {
        self.vapid.public_key()
    }

    /// The SMTP server as Settings shows it.
    pub async fn smtp_view(&self) -> Result<SmtpView> {
        Ok(crate::smtp::view(self.smtp.stored().await?, self.env_smtp().as_ref()))
    }

    /// Keeps the SMTP server an owner set.
    pub async fn set_smtp(&self, input: &SmtpInput) -> Result<SmtpView> {
        self.smtp.set(input).await?;
        self.smtp_view().await
    }

    fn env_smtp(&self) -> Option<SmtpSettings> {
        let url = self.options.smtp_url.clone()?;
        Some(SmtpSettings::Url { url, from: self.options.smtp_from.clone() })
    }

    /// The SMTP server in use: the environment's, else the stored one.
    async fn smtp_settings(&self) -> Result<Option<SmtpSettings>> {
        if let Some(env) = self.env_smtp() {
            return Ok(Some(env));
        }
        Ok(self.smtp.stored().await?.map(SmtpSettings::Stored))
    }

    /// Sends `notice` to `channel`, within the timeout. A push subscription the service says is gone is marked
    /// so in the store.
    pub async fn send(&self, channel: &Channel, notice: &Notice) -> Result<Delivery, SendError> {
        let sent =
            tokio::time::timeout(self.options.timeout + Duration::from_secs(1), self.send_now(channel, notice)).await;
        let answer = sent.unwrap_or_else(|_| {
            Err(SendError::Unreachable(format!("no answer within {} s", self.options.timeout.as_secs())))
        });
        match &answer {
            Ok(delivery) => {
                tracing::debug!(channel = %channel.id, kind = channel.config.kind().as_str(), detail = %delivery.detail, "notice delivered")
            }
            Err(error) => {
                tracing::warn!(channel = %channel.id, kind = channel.config.kind().as_str(), %error, "notice not delivered")
            }
        }
        if let Err(SendError::Gone { .. }) = &answer {
            self.channels.mark_gone(&channel.id).await?;
        }
        answer
    }

    /// Sends `notice` by e-mail to `address` through the SMTP server in use ("send a test mail to me").
    pub async fn send_mail(&self, address: &str, notice: &Notice) -> Result<Delivery, SendError> {
        let settings = self.smtp_settings().await?.ok_or(SendError::NoSmtp)?;
        let sent = tokio::time::timeout(
            self.options.timeout + Duration::from_secs(1),
            email::send(&settings, self.options.timeout, address, notice),
        )
        .await;
        sent.unwrap_or_else(|_| Err(SendError::Unreachable("the SMTP server gave no answer in time".into())))
    }

    async fn send_now(&self, channel: &Channel, notice: &Notice) -> Result<Delivery, SendError> {
        match &channel.config {
            ChannelConfig::Webhook { url, secret } => {
                webhook::send(&self.http, url, secret.as_deref().unwrap_or_default(), notice).await
            }
            ChannelConfig::Slack { url } => slack::send(&self.http, url, notice).await,
            ChannelConfig::Discord { url } => discord::send(&self.http, url, notice).await,
            ChannelConfig::Ntfy { server, topic, token } => {
                ntfy::send(&self.http, server, topic, token.as_deref(), notice).await
            }
            ChannelConfig::Email { address } => {
                let settings = self.smtp_settings().await?.ok_or(SendError::NoSmtp)?;
                email::send(&settings, self.options.timeout, address, notice).await
            }
            ChannelConfig::WebPush { endpoint, p256dh, auth } => {
                let subscription = web_push::Subscription { endpoint, p256dh, auth };
                web_push::send(&self.http, &self.vapid, &self.options.vapid_subject, &subscription, notice).await
            }
        }
    }
}
