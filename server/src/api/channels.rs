//! `/api/channels…`: a person's own notification channels, owners' shared ones, "send a test", this browser's
//! push subscription and the SMTP server (owners). Whose channel is whose is warden-notify's `Scope`: another
//! person's channel is a 404, as if it did not exist.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::{Extension, Json};
use serde::Deserialize;
use warden_notify::{Notifier, Scope};
use warden_people::Asker;
use warden_types::channel::{ChannelCreated, ChannelInput, ChannelView, PushKey, SmtpInput, SmtpView, TestResult};
use warden_types::id::ChannelId;

use super::error::{ApiError, ApiResult};
use super::json_body::JsonBody;
use crate::access::page_link;

impl From<warden_notify::Error> for ApiError {
    fn from(e: warden_notify::Error) -> Self {
        Self::of_kind(e.kind(), e.code(), &e)
    }
}

fn scope(asker: &Asker) -> Scope {
    Scope {
        person: asker.person.id.clone(),
        named: format!("{} ({})", asker.person.name, asker.role().label().to_lowercase()),
        manages: asker.role().manages(),
    }
}

/// Settings on this server, which a test message links to.
fn settings_link(headers: &HeaderMap) -> String {
    page_link(headers, "/settings#notifications")
}

pub async fn list(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
) -> ApiResult<Json<Vec<ChannelView>>> {
    Ok(Json(notifier.own_channels(&scope(&asker)).await?))
}

pub async fn create(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    JsonBody(input): JsonBody<ChannelInput>,
) -> ApiResult<(StatusCode, Json<ChannelCreated>)> {
    Ok((StatusCode::CREATED, Json(notifier.add_channel(&scope(&asker), false, &input).await?)))
}

pub async fn list_shared(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
) -> ApiResult<Json<Vec<ChannelView>>> {
    Ok(Json(notifier.shared_channels(&scope(&asker)).await?))
}

pub async fn create_shared(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    JsonBody(input): JsonBody<ChannelInput>,
) -> ApiResult<(StatusCode, Json<ChannelCreated>)> {
    Ok((StatusCode::CREATED, Json(notifier.add_channel(&scope(&asker), true, &input).await?)))
}

pub async fn get(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<ChannelId>,
) -> ApiResult<Json<ChannelView>> {
    Ok(Json(notifier.channel_for(&scope(&asker), &id).await?.view()))
}

pub async fn update(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<ChannelId>,
    JsonBody(input): JsonBody<ChannelInput>,
) -> ApiResult<Json<ChannelCreated>> {
    Ok(Json(notifier.change_channel(&scope(&asker), &id, &input).await?))
}

pub async fn delete(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<ChannelId>,
) -> ApiResult<StatusCode> {
    notifier.remove_channel(&scope(&asker), &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/channels/{id}/test`: sends a test message; `200 {at, ok, detail}` whether or not the channel
/// took it (its answer or the error is the result, kept as the channel's last test).
pub async fn test(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    headers: HeaderMap,
    Path(id): Path<ChannelId>,
) -> ApiResult<Json<TestResult>> {
    Ok(Json(notifier.test_channel(&scope(&asker), &id, &settings_link(&headers)).await?))
}

pub async fn push_key(State(notifier): State<Notifier>) -> Json<PushKey> {
    Json(PushKey { public_key: notifier.vapid_public_key().to_string() })
}

/// A browser's subscription as `PushSubscription.toJSON()` gives it, with a name for the channel.
#[derive(Deserialize)]
pub struct SubscriptionBody {
    #[serde(default)]
    name: Option<String>,
    endpoint: String,
    keys: SubscriptionKeys,
}

#[derive(Deserialize)]
pub struct SubscriptionKeys {
    p256dh: String,
    auth: String,
}

pub async fn subscribe(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    JsonBody(body): JsonBody<SubscriptionBody>,
) -> ApiResult<(StatusCode, Json<ChannelView>)> {
    let name = body.name.unwrap_or_else(|| "This browser".into());
    let made = notifier.add_push(&scope(&asker), &name, &body.endpoint, &body.keys.p256dh, &body.keys.auth).await?;
    Ok((StatusCode::CREATED, Json(made)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointBody {
    endpoint: String,
}

/// `POST /api/push/unsubscribe {endpoint}`: 204, or 404 when no channel of theirs has that endpoint.
pub async fn unsubscribe(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    JsonBody(body): JsonBody<EndpointBody>,
) -> ApiResult<StatusCode> {
    if notifier.remove_push(&scope(&asker), &body.endpoint).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::new(StatusCode::NOT_FOUND, "not_found", "no push channel of yours has this endpoint"))
    }
}

pub async fn smtp(State(notifier): State<Notifier>) -> ApiResult<Json<SmtpView>> {
    Ok(Json(notifier.smtp_view().await?))
}

pub async fn set_smtp(
    State(notifier): State<Notifier>,
    JsonBody(input): JsonBody<SmtpInput>,
) -> ApiResult<Json<SmtpView>> {
    Ok(Json(notifier.set_smtp(&input).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestMailBody {
    to: String,
}

/// `POST /api/notifications/smtp/test {to}`: a test mail through the SMTP server in use.
pub async fn test_smtp(
    State(notifier): State<Notifier>,
    Extension(asker): Extension<Asker>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<TestMailBody>,
) -> ApiResult<Json<TestResult>> {
    Ok(Json(notifier.test_smtp(&scope(&asker), &body.to, &settings_link(&headers)).await?))
}
