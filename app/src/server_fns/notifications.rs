//! Server functions for Settings → Notifications: a person's own channels (add, change, remove, "Send a
//! test"), this browser's push subscription, and for owners the shared channels and the SMTP server. Thin
//! calls into the notifier (taken from context); whose channel is whose is warden-notify's `Scope`.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;

use crate::error::AppError;
use warden_types::channel::{ChannelCreated, ChannelInput, ChannelView, SmtpInput, SmtpView, TestResult};
use warden_types::id::ChannelId;

#[cfg(feature = "ssr")]
fn notifier() -> Result<warden_notify::Notifier, AppError> {
    use_context::<warden_notify::Notifier>()
        .ok_or_else(|| AppError::internal("the notifier was not provided as Leptos context"))
}

/// The person asking, as warden-notify scopes channels.
#[cfg(feature = "ssr")]
fn scope() -> Result<warden_notify::Scope, AppError> {
    let asker = crate::server_fns::asker::asker()?;
    Ok(warden_notify::Scope {
        named: format!("{} ({})", asker.person.name, asker.role().label().to_lowercase()),
        manages: asker.role().manages(),
        person: asker.person.id,
    })
}

#[cfg(feature = "ssr")]
impl From<warden_notify::Error> for AppError {
    fn from(error: warden_notify::Error) -> Self {
        AppError::of_kind(error.kind(), &error)
    }
}

/// The page a test message links to: Settings on the origin the page was loaded from.
#[cfg(feature = "ssr")]
fn settings_link(origin: &str) -> Result<String, AppError> {
    let origin = origin.trim().trim_end_matches('/');
    let fine = (origin.starts_with("https://") || origin.starts_with("http://"))
        && !origin[origin.find("://").map_or(0, |i| i + 3)..].contains(['/', '@', ' ']);
    if !fine {
        return Err(AppError::Invalid(format!("{origin:?} is not this page's origin")));
    }
    Ok(format!("{origin}/settings#notifications"))
}

/// The person's own channels, oldest first.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_channels() -> Result<Vec<ChannelView>, AppError> {
    Ok(notifier()?.own_channels(&scope()?).await?)
}

/// The shared channels (owners).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_shared_channels() -> Result<Vec<ChannelView>, AppError> {
    Ok(notifier()?.shared_channels(&scope()?).await?)
}

/// Adds a channel (`shared`: a team's, owners only) or, with `id`, changes one. A webhook's secret that
/// Warden made is answered this once.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn save_channel(
    id: Option<ChannelId>,
    shared: bool,
    input: ChannelInput,
) -> Result<ChannelCreated, AppError> {
    let notifier = notifier()?;
    let scope = scope()?;
    Ok(match id {
        Some(id) => notifier.change_channel(&scope, &id, &input).await?,
        None => notifier.add_channel(&scope, shared, &input).await?,
    })
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn delete_channel(id: ChannelId) -> Result<(), AppError> {
    Ok(notifier()?.remove_channel(&scope()?, &id).await?)
}

/// "Send a test": the channel's answer or the error (kept as its last test). `origin`: this page's, which the
/// message links to.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn test_channel(id: ChannelId, origin: String) -> Result<TestResult, AppError> {
    Ok(notifier()?.test_channel(&scope()?, &id, &settings_link(&origin)?).await?)
}

/// Registers this browser's push subscription (`/notifications.js` does this through `/api/push/subscriptions`) as the person's channel named `name`.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn register_push(
    name: String,
    endpoint: String,
    p256dh: String,
    auth: String,
) -> Result<ChannelView, AppError> {
    Ok(notifier()?.add_push(&scope()?, &name, &endpoint, &p256dh, &auth).await?)
}

/// Removes this browser's push channel; whether there was one.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn unregister_push(endpoint: String) -> Result<bool, AppError> {
    Ok(notifier()?.remove_push(&scope()?, &endpoint).await?)
}

/// The SMTP server e-mail goes through (owners).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn get_smtp() -> Result<SmtpView, AppError> {
    Ok(notifier()?.smtp_view().await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn save_smtp(input: SmtpInput) -> Result<SmtpView, AppError> {
    Ok(notifier()?.set_smtp(&input).await?)
}

/// "Send a test mail to me", to `address`.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn test_smtp(address: String, origin: String) -> Result<TestResult, AppError> {
    Ok(notifier()?.test_smtp(&scope()?, &address, &settings_link(&origin)?).await?)
}
