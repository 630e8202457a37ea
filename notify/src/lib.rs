//! Notification channels: how a message about a waiting request reaches a person where they are. A channel is
//! a person's own (or a team's shared one, made by an owner): a signed JSON webhook, a Slack or Discord
//! incoming webhook, an ntfy topic, an e-mail address (over the SMTP server an owner configured) or a browser's
//! Web Push subscription (VAPID, RFC 8291 encryption).
//!
//! [`Notifier::send`] sends one [`Notice`] to one channel, within a timeout, and answers what the channel
//! said ([`Delivery`]) or a typed [`SendError`]. Who is notified when, the links' meaning and the delivery log
//! are the caller's; this crate only delivers.

mod channel;
mod error;
mod notice;
mod scope;
mod send;
mod smtp;
mod store;
mod text;
mod validate;
mod vapid;

pub use channel::{Channel, ChannelOwner};
pub use error::{Error, Result};
pub use notice::{LinkIntent, Notice, NoticeKind, NoticeLink};
pub use scope::Scope;
pub use send::webhook::{sign as sign_webhook, DELIVERY_HEADER, REPLAY_WINDOW, SIGNATURE_HEADER};
pub use send::{Delivery, Notifier, NotifierOptions, SendError, SEND_TIMEOUT};
pub use smtp::SmtpSettings;
pub use store::Channels;
pub use warden_types::channel::{
    ChannelConfig, ChannelCreated, ChannelInput, ChannelKind, ChannelView, PushKey, SmtpInput, SmtpSecurity, SmtpView,
    TestResult,
};
pub use warden_types::id::ChannelId;

/// Where this crate's migrations are recorded, apart from the other crates'.
pub const MIGRATIONS_TABLE: &str = "_warden_notify_migrations";
