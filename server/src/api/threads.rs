//! `/api/threads`: list, search, create, read, rename/archive/pin, delete, and post a message (which answers
//! with the event stream of the run it starts).

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::{Extension, Json};
use serde::Deserialize;
use warden_engine::Engine;
use warden_people::Asker;
use warden_types::cursor::ThreadCursor;
use warden_types::id::{MessageId, RuleId, ThreadId};
use warden_types::run::RunSummary;
use warden_types::status::RunStarted;
use warden_types::thread::{SearchHit, Thread, ThreadDetail, ThreadExport, ThreadPatch, ThreadQuery};

use super::error::{ApiError, ApiResult};
use super::json_body::JsonBody;
use super::reader::Asking;
use super::sse::{to_sse, EventStream};

/// A response header, as a handler lists it.
type Header = (header::HeaderName, HeaderValue);
/// `Content-Disposition: attachment` with the file's name.
type Attachment = [Header; 1];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    #[serde(default)]
    archived: bool,
    /// Cursor from the previous page: `<updated_at>,<id>` of its last thread ([`ThreadCursor`]).
    /// Parsed in the handler, so a bad one is a 422 saying what it must be.
    before: Option<String>,
    limit: Option<u32>,
    /// `true`: only pinned threads; `false`: only the others; absent: both.
    pinned: Option<bool>,
}

pub async fn list(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Query(p): Query<ListParams>,
) -> ApiResult<Json<Vec<Thread>>> {
    let before = ThreadCursor::param(p.before.as_deref())?;
    let query = ThreadQuery { archived: p.archived, before, limit: p.limit.unwrap_or(100), pinned: p.pinned };
    Ok(Json(engine.as_reader(&reader).list_threads(query).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    q: String,
}

/// `GET /api/search?q=…`: the threads whose title or messages hold every word, best first.
pub async fn search(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Query(p): Query<SearchParams>,
) -> ApiResult<Json<Vec<SearchHit>>> {
    Ok(Json(engine.as_reader(&reader).search(&p.q).await?))
}

/// `GET /api/threads/{id}/export.json`: the thread as records, to keep or import elsewhere.
pub async fn export_json(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
) -> ApiResult<(Attachment, Json<ThreadExport>)> {
    let export = engine.as_reader(&reader).export_thread(&id).await?;
    Ok((attachment(id.as_str(), "json")?, Json(export)))
}

/// `GET /api/threads/{id}/export.md`: the thread for people to read.
pub async fn export_markdown(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
) -> ApiResult<(Attachment, [Header; 1], String)> {
    let export = engine.as_reader(&reader).export_thread(&id).await?;
    let content_type = (header::CONTENT_TYPE, HeaderValue::from_static("text/markdown; charset=utf-8"));
    Ok((attachment(id.as_str(), "md")?, [content_type], warden_engine::transfer::markdown(&export)))
}

/// A download named after the thread's id (ids are ours: letters, digits and dashes).
fn attachment(id: &str, extension: &str) -> ApiResult<Attachment> {
    let safe: String = id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    let disposition = format!("attachment; filename=\"warden-thread-{safe}.{extension}\"");
    Ok([(header::CONTENT_DISPOSITION, HeaderValue::from_str(&disposition).map_err(|e| ApiError::internal(&e))?)])
}

/// `POST /api/threads/import`: a new thread from a JSON export.
pub async fn import(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    JsonBody(export): JsonBody<ThreadExport>,
) -> ApiResult<(StatusCode, Json<Thread>)> {
    Ok((StatusCode::CREATED, Json(engine.as_reader(&reader).import_thread(export).await?)))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CreateThread {
    title: Option<String>,
    /// The id the client chose (a UUID, say): the thread is created with it, or, if it exists
    /// already, answered as it is (200 instead of 201).
    id: Option<ThreadId>,
}

/// The body is optional: an empty one creates an untitled thread.
pub async fn create(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    body: axum::body::Bytes,
) -> ApiResult<(StatusCode, Json<Thread>)> {
    let body: CreateThread = if body.iter().all(u8::is_ascii_whitespace) {
        CreateThread::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| ApiError::unprocessable(format!("invalid JSON body: {e}")))?
    };
    match body.id {
        Some(id) => {
            let (thread, created) = engine.as_reader(&reader).create_thread_with_id(&id, body.title).await?;
            Ok((if created { StatusCode::CREATED } else { StatusCode::OK }, Json(thread)))
        }
        None => Ok((StatusCode::CREATED, Json(engine.as_reader(&reader).create_thread(body.title).await?))),
    }
}

/// `GET /api/threads/{id}/runs`: the thread's runs, oldest first.
pub async fn runs(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
) -> ApiResult<Json<Vec<RunSummary>>> {
    Ok(Json(engine.as_reader(&reader).thread_runs(&id).await?))
}

/// `POST /api/threads/{id}/title`: the model names the thread again.
pub async fn regenerate_title(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
) -> ApiResult<Json<Thread>> {
    Ok(Json(engine.as_reader(&reader).regenerate_title(&id).await?))
}

pub async fn get(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
) -> ApiResult<Json<ThreadDetail>> {
    Ok(Json(engine.as_reader(&reader).thread(&id).await?))
}

pub async fn patch(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
    JsonBody(patch): JsonBody<ThreadPatch>,
) -> ApiResult<Json<Thread>> {
    Ok(Json(engine.as_reader(&reader).update_thread(&id, patch).await?))
}

pub async fn delete(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
) -> ApiResult<StatusCode> {
    engine.as_reader(&reader).delete_thread(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostMessage {
    content: String,
}

pub async fn post_message(
    State(engine): State<Engine>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<ThreadId>,
    JsonBody(body): JsonBody<PostMessage>,
) -> ApiResult<EventStream> {
    run_events(&engine, engine.as_reader(&asker.reader()).send_message(&id, body.content, &asker.acting()).await?).await
}

/// `POST /api/threads/{id}/messages/{message_id}/edit {content}`: the new version of a person's
/// message, on a new branch; answers the event stream of the run it starts.
pub async fn edit_message(
    State(engine): State<Engine>,
    Extension(asker): Extension<Asker>,
    Path((id, message_id)): Path<(ThreadId, MessageId)>,
    JsonBody(body): JsonBody<PostMessage>,
) -> ApiResult<EventStream> {
    run_events(
        &engine,
        engine.as_reader(&asker.reader()).edit_message(&id, &message_id, body.content, &asker.acting()).await?,
    )
    .await
}

/// `POST /api/threads/{id}/messages/{message_id}/regenerate`: another answer, on a new branch.
pub async fn regenerate(
    State(engine): State<Engine>,
    Extension(asker): Extension<Asker>,
    Path((id, message_id)): Path<(ThreadId, MessageId)>,
) -> ApiResult<EventStream> {
    run_events(&engine, engine.as_reader(&asker.reader()).regenerate(&id, &message_id, &asker.acting()).await?).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Branch {
    message_id: MessageId,
}

/// `PUT /api/threads/{id}/branch {message_id}`: shows the branch through that message.
pub async fn switch_branch(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<ThreadId>,
    JsonBody(body): JsonBody<Branch>,
) -> ApiResult<Json<ThreadDetail>> {
    Ok(Json(engine.as_reader(&reader).switch_branch(&id, &body.message_id).await?))
}

pub async fn retry(
    State(engine): State<Engine>,
    Extension(asker): Extension<Asker>,
    Path(id): Path<ThreadId>,
) -> ApiResult<EventStream> {
    run_events(&engine, engine.as_reader(&asker.reader()).retry(&id, &asker.acting()).await?).await
}

pub async fn delete_rule(
    State(engine): State<Engine>,
    Asking(reader): Asking,
    Path(id): Path<RuleId>,
) -> ApiResult<StatusCode> {
    engine.as_reader(&reader).revoke_rule(&id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The event stream of a run just started, from its first event.
async fn run_events(engine: &Engine, started: RunStarted) -> ApiResult<EventStream> {
    let events = engine.subscribe_started(&started.run_id).await?;
    Ok(to_sse(events, engine.shutdown_token()))
}
