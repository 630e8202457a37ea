//! Server functions for threads: list a page, search, read one, rename, archive, pin, delete, its switches (tools,
//! MCP, step limit), and whether a model is configured at all.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::{MessageId, ThreadId};

use crate::error::AppError;
use crate::model::{
    ModelStatus, SearchHit, Thread, ThreadCursor, ThreadDetail, ThreadOptions, ThreadPage, ThreadSlice,
};

/// Threads per sidebar page.
pub const PAGE_SIZE: u32 = 50;

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn get_model_status() -> Result<ModelStatus, AppError> {
    let engine = super::engine()?;
    Ok(engine.model_status())
}

/// A page of threads: archived or not, and pinned (`Some(true)`), not pinned (`Some(false)`) or either.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_threads(
    archived: bool,
    pinned: Option<bool>,
    after: Option<ThreadCursor>,
) -> Result<ThreadPage, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let query = warden_types::thread::ThreadQuery { archived, before: after, limit: PAGE_SIZE, pinned };
    let mut threads: Vec<Thread> = engine.as_reader(&reader).list_threads(query).await?;
    super::sharing::name_owners(&mut threads, &reader).await?;
    super::outside_linked::count_linked_pending(&mut threads).await?;
    let next = match threads.last() {
        Some(last) if threads.len() as u32 >= PAGE_SIZE => Some(ThreadCursor::new(&last.updated_at, last.id.as_str())),
        _ => None,
    };
    Ok(ThreadPage { threads, next })
}

/// The thread as its page shows it: its newest messages, at least `at_least` of them (a page read
/// again asks for as many as it had loaded) and back to `through` (a search result's message), and
/// whether earlier ones exist.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn get_thread(
    id: ThreadId,
    at_least: Option<u32>,
    through: Option<MessageId>,
) -> Result<ThreadDetail, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    Ok(engine.as_reader(&reader).thread_page(&id, at_least.unwrap_or(0) as usize, through.as_ref()).await?)
}

/// "Show earlier messages": the messages of the thread's branch just before `before` (the first
/// one the page shows), with their calls and approvals.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn earlier_messages(thread_id: ThreadId, before: MessageId) -> Result<ThreadSlice, AppError> {
    Ok(super::engine()?.as_reader(&super::asker::reader()?).earlier_messages(&thread_id, &before).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn rename_thread(id: ThreadId, title: String) -> Result<Thread, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let patch = warden_types::thread::ThreadPatch { title: Some(title), ..Default::default() };
    Ok(engine.as_reader(&reader).update_thread(&id, patch).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_archived(id: ThreadId, archived: bool) -> Result<Thread, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let patch = warden_types::thread::ThreadPatch { archived: Some(archived), ..Default::default() };
    Ok(engine.as_reader(&reader).update_thread(&id, patch).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_pinned(id: ThreadId, pinned: bool) -> Result<Thread, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let patch = warden_types::thread::ThreadPatch { pinned: Some(pinned), ..Default::default() };
    Ok(engine.as_reader(&reader).update_thread(&id, patch).await?)
}

/// The threads whose title or messages hold every word of `query`, best first.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn search_threads(query: String) -> Result<Vec<SearchHit>, AppError> {
    Ok(super::engine()?.as_reader(&super::asker::reader()?).search(&query).await?)
}

/// The model names the thread again (the person asked; their own title is replaced).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn regenerate_title(id: ThreadId) -> Result<Thread, AppError> {
    Ok(super::engine()?.as_reader(&super::asker::reader()?).regenerate_title(&id).await?)
}

/// A new thread from the text of a JSON export (a file the person chose).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn import_thread(text: String) -> Result<Thread, AppError> {
    let export: warden_types::thread::ThreadExport = serde_json::from_str(&text)
        .map_err(|e| AppError::Invalid(format!("This file is not a Warden thread export (JSON): {e}")).answer())?;
    Ok(super::engine()?.as_reader(&super::asker::reader()?).import_thread(export).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn delete_thread(id: ThreadId) -> Result<(), AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    Ok(engine.as_reader(&reader).delete_thread(&id).await?)
}

/// Sets whether the thread's model is offered tools and MCP tools, and its runs' step limit.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_thread_options(thread_id: ThreadId, options: ThreadOptions) -> Result<ThreadOptions, AppError> {
    Ok(super::engine()?.as_reader(&super::asker::reader()?).set_thread_options(&thread_id, options).await?)
}
