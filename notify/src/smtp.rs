//! The SMTP server e-mail channels go through: `WARDEN_SMTP_URL` (lettre's `smtp://user:pass@host:port`,
//! `smtps://…`, `?tls=required` for STARTTLS) with `WARDEN_SMTP_FROM`, or else what an owner set in Settings.
//! A setting that does not make a transport is a clear error, never a panic.

use std::time::Duration;

use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, Tokio1Executor};
use sqlx::SqlitePool;
use warden_db::timestamp;
use warden_types::channel::{SmtpInput, SmtpSecurity, SmtpView};
use warden_types::secret::{mask, MASK};

use crate::error::{Error, Result};

pub type Transport = AsyncSmtpTransport<Tokio1Executor>;

/// Where e-mail goes, once chosen.
#[derive(Clone)]
pub enum SmtpSettings {
    /// `WARDEN_SMTP_URL`, with `WARDEN_SMTP_FROM`.
    Url { url: String, from: Option<String> },
    /// What an owner set in Settings.
    Stored(SmtpInput),
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SmtpSettings::Url { url, from } => {
                f.debug_struct("Url").field("url", &url_without_password(url)).field("from", from).finish()
            }
            SmtpSettings::Stored(input) => input.fmt(f),
        }
    }
}

/// An SMTP URL as it may be shown: its password (if any) masked.
pub fn url_without_password(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            if parsed.password().is_some() {
                let _ = parsed.set_password(Some(MASK));
            }
            parsed.to_string()
        }
        Err(_) => "(not a URL)".to_string(),
    }
}

impl SmtpSettings {
    /// The transport and the sender, or why not.
    pub fn transport(&self, timeout: Duration) -> Result<(Transport, Mailbox)> {
        match self {
            SmtpSettings::Url { url, from } => {
                let builder = Transport::from_url(url).map_err(|e| {
                    Error::Invalid(format!(
                        "WARDEN_SMTP_URL is not a usable SMTP URL ({e}): write smtp://user:password@host:587?tls=required \
                         or smtps://user:password@host:465"
                    ))
                })?;
                let host = reqwest::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_string));
                let from = match from {
                    Some(from) => mailbox("WARDEN_SMTP_FROM", from)?,
                    None => {
                        mailbox("the sender", &format!("Warden <warden@{}>", host.as_deref().unwrap_or("localhost")))?
                    }
                };
                Ok((builder.timeout(Some(timeout)).build(), from))
            }
            SmtpSettings::Stored(input) => {
                let input = checked(input)?;
                let builder = match input.security {
                    SmtpSecurity::Tls => Transport::relay(&input.host),
                    SmtpSecurity::StartTls => Transport::starttls_relay(&input.host),
                    SmtpSecurity::None => Ok(Transport::builder_dangerous(&input.host)),
                }
                .map_err(|e| Error::Invalid(format!("the SMTP server {} cannot be used: {e}", input.host)))?;
                let mut builder = builder.port(input.port).timeout(Some(timeout));
                if let Some(user) = input.user.as_deref().filter(|u| !u.is_empty()) {
                    builder =
                        builder.credentials(Credentials::new(user.into(), input.password.clone().unwrap_or_default()));
                }
                Ok((builder.build(), mailbox("the sender", &input.from)?))
            }
        }
    }
}

fn mailbox(what: &str, text: &str) -> Result<Mailbox> {
    text.trim()
        .parse::<Mailbox>()
        .map_err(|e| Error::Invalid(format!("{what} {:?} is not an e-mail address ({e})", text.trim())))
}

/// A stored SMTP setting, checked.
fn checked(input: &SmtpInput) -> Result<SmtpInput> {
    let host = input.host.trim();
    if host.is_empty() || host.len() > 253 || host.contains(|c: char| c.is_whitespace() || c == '/' || c == '@') {
        return Err(Error::Invalid("the SMTP host is a name or address such as smtp.example.com".into()));
    }
    if input.port == 0 {
        return Err(Error::Invalid("the SMTP port is a number from 1 to 65535".into()));
    }
    mailbox("the sender", &input.from)?;
    Ok(SmtpInput { host: host.to_string(), user: input.user.as_ref().map(|u| u.trim().to_string()), ..input.clone() })
}

/// The SMTP row.
#[derive(Clone)]
pub struct SmtpStore {
    pool: SqlitePool,
    writer: SqlitePool,
}

#[derive(sqlx::FromRow)]
struct Row {
    host: String,
    port: i64,
    security: SmtpSecurity,
    user: Option<String>,
    password: Option<String>,
    from_addr: String,
}

impl SmtpStore {
    pub fn new(pool: SqlitePool, writer: SqlitePool) -> Self {
        Self { pool, writer }
    }

    pub async fn stored(&self) -> Result<Option<SmtpInput>> {
        let row: Option<Row> =
            sqlx::query_as("SELECT host, port, security, user, password, from_addr FROM notify_smtp WHERE id = 1")
                .fetch_optional(&self.pool)
                .await?;
        Ok(row.map(|r| SmtpInput {
            host: r.host,
            port: u16::try_from(r.port).unwrap_or(587),
            security: r.security,
            user: r.user,
            password: r.password,
            from: r.from_addr,
        }))
    }

    /// Keeps `input` (checked); a password left out or masked keeps the stored one while the host is the same.
    pub async fn set(&self, input: &SmtpInput) -> Result<SmtpInput> {
        let mut input = checked(input)?;
        let keeps = input.password.as_deref().map(str::trim).is_none_or(|p| p.is_empty() || p.starts_with(MASK));
        if keeps {
            input.password = match self.stored().await? {
                Some(old) if old.host == input.host => old.password,
                _ => None,
            };
        }
        sqlx::query(
            "INSERT INTO notify_smtp (id, host, port, security, user, password, from_addr, updated_at)
             VALUES (1, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET host = excluded.host, port = excluded.port, security = excluded.security,
                 user = excluded.user, password = excluded.password, from_addr = excluded.from_addr,
                 updated_at = excluded.updated_at",
        )
        .bind(&input.host)
        .bind(i64::from(input.port))
        .bind(input.security)
        .bind(input.user.as_deref().filter(|u| !u.is_empty()))
        .bind(input.password.as_deref().filter(|p| !p.is_empty()))
        .bind(input.from.trim())
        .bind(timestamp::now())
        .execute(&self.writer)
        .await?;
        Ok(input)
    }
}

/// The SMTP settings as Settings shows them: the password masked.
pub fn view(stored: Option<SmtpInput>, from_environment: Option<&SmtpSettings>) -> SmtpView {
    SmtpView {
        stored: stored.map(|s| SmtpInput { password: s.password.as_deref().map(mask), ..s }),
        from_environment: match from_environment {
            Some(SmtpSettings::Url { url, .. }) => Some(url_without_password(url)),
            _ => None,
        },
    }
}
