//! Server functions for sharing a thread: who may read it besides its owner (the Share dialog), the
//! names of the people it can be shared with, and the owners' names the sidebar shows on threads of
//! someone else's.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::ThreadId;
use warden_types::person::PersonName;
use warden_types::thread::Sharing;

use crate::error::AppError;

#[cfg(feature = "ssr")]
fn people() -> Result<warden_people::People, AppError> {
    use_context::<warden_people::People>()
        .ok_or_else(|| AppError::internal("the people were not provided as Leptos context"))
}

/// Marks each thread that is not the reader's with its owner's name ("shared by …").
#[cfg(feature = "ssr")]
pub async fn name_owners(
    threads: &mut [crate::model::Thread],
    reader: &warden_types::person::Reader,
) -> Result<(), AppError> {
    if threads.iter().all(|t| t.owner_id.as_ref().is_none_or(|o| *o == reader.person)) {
        return Ok(());
    }
    let names: std::collections::HashMap<_, _> = people()?.list().await?.into_iter().map(|p| (p.id, p.name)).collect();
    for thread in threads {
        if let Some(owner) = thread.owner_id.as_ref().filter(|o| **o != reader.person) {
            thread.shared_by = Some(names.get(owner).cloned().unwrap_or_else(|| "someone".into()));
        }
    }
    Ok(())
}

/// Everyone a thread can be shared with (enabled accounts but the one asking), by name: for those who can
/// own a thread and share it (not viewers, who own none).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn list_people_names() -> Result<Vec<PersonName>, AppError> {
    let me = super::asker::asker()?.person.id;
    let people = people()?.list().await?;
    Ok(people
        .into_iter()
        .filter(|p| p.disabled_at.is_none() && p.id != me)
        .map(|p| PersonName { id: p.id, name: p.name })
        .collect())
}

/// Who besides its owner may read the thread (its owner asks; others are refused).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn get_sharing(thread_id: ThreadId) -> Result<Sharing, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    Ok(engine.as_reader(&reader).sharing(&thread_id).await?)
}

/// Shares the thread for reading: with nobody, everyone, or the people named.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn set_sharing(thread_id: ThreadId, sharing: Sharing) -> Result<Sharing, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let known: std::collections::HashSet<_> = people()?.list().await?.into_iter().map(|p| p.id).collect();
    Ok(engine.as_reader(&reader).set_sharing(&thread_id, sharing, |p| known.contains(p)).await?)
}
