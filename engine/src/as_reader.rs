//! The engine as one person sees it: what the HTTP API and the UI's server functions call for the
//! person asking. Each method finds the thread it touches (from a run, call, approval, check or rule
//! when that is what is named), checks the person's access to it (`crate::access`), then does what
//! the engine's own method does. Lists and the search read only what the person may read.

use futures::stream::BoxStream;
use warden_types::approval::{Approval, ThreadRule};
use warden_types::connection::ConnectionCheck;
use warden_types::id::{ApprovalId, ConnectionCheckId, MessageId, PersonId, RuleId, RunId, ThreadId, ToolCallId};
use warden_types::person::{ActingPerson, Reader};
use warden_types::provider::ModelChoice;
use warden_types::run::{RunSummary, ToolCallRecord};
use warden_types::status::RunStarted;
use warden_types::thread::{
    SearchHit, Sharing, Thread, ThreadDetail, ThreadExport, ThreadOptions, ThreadPatch, ThreadQuery, ThreadSlice,
    MAX_SHARED_PEOPLE,
};

use crate::access::{access_to, moderates, require, ThreadAccess};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::events::RunEventRecord;

use ThreadAccess::{Moderate, Own, Read};

/// The engine for one person (`Engine::as_reader`). Cheap: two references.
#[derive(Clone, Copy)]
pub struct AsReader<'a> {
    engine: &'a Engine,
    reader: &'a Reader,
}

impl Engine {
    /// The engine's thread entry points for `reader`: they answer only what this person may read, and
    /// change only what they may change.
    pub fn as_reader<'a>(&'a self, reader: &'a Reader) -> AsReader<'a> {
        AsReader { engine: self, reader }
    }
}

impl<'a> AsReader<'a> {
    /// What the person may do with thread `id`; `NotFound` if they may not even read it.
    pub async fn access(&self, id: &ThreadId) -> Result<ThreadAccess> {
        let store = self.engine.store();
        let facts = store.thread_facts(id, &self.reader.person).await?;
        let routed = !facts.shared
            && facts.owner.as_ref() != Some(&self.reader.person)
            && crate::store::sharing::routed_to(store, self.reader, id).await?;
        require(access_to(self.reader, &facts, routed), Read, id.as_str())
    }

    /// `Ok` if the person may do what `needed` allows with thread `id` (404 if they may not read it, 403
    /// if they may read it only).
    async fn check(&self, id: &ThreadId, needed: ThreadAccess) -> Result<ThreadAccess> {
        require(Some(self.access(id).await?), needed, id.as_str())
    }

    /// A record of thread `thread` named by `what` `id`: `NotFound` for it, as if it did not exist, when the
    /// person may not read its thread.
    async fn readable<T>(&self, thread: &ThreadId, what: &'static str, id: &str, record: T) -> Result<T> {
        match self.access(thread).await {
            Ok(_) => Ok(record),
            Err(Error::NotFound { .. }) => Err(Error::not_found(what, id)),
            Err(e) => Err(e),
        }
    }

    // --- threads ---

    /// A page of the threads the person may read.
    /// The threads the person may read, each saying whether they may delete it.
    pub async fn list_threads(&self, query: ThreadQuery) -> Result<Vec<Thread>> {
        let mut threads = self.engine.store().list_threads(&query, Some(self.reader)).await?;
        for thread in &mut threads {
            thread.may_delete = moderates(self.reader, thread.owner_id.as_ref());
        }
        Ok(threads)
    }

    /// The threads the person may read whose title or messages hold every word of `text`.
    pub async fn search(&self, text: &str) -> Result<Vec<SearchHit>> {
        self.engine.search_as(text, Some(self.reader)).await
    }

    pub async fn create_thread(&self, title: Option<String>) -> Result<Thread> {
        self.engine.create_owned_thread(title, Some(&self.reader.person)).await
    }

    /// Creates the thread with the id a client chose, or answers the one that has it if it is theirs
    /// (someone else's: not found, or forbidden if they may read it).
    pub async fn create_thread_with_id(&self, id: &ThreadId, title: Option<String>) -> Result<(Thread, bool)> {
        let (thread, created) = self.engine.create_thread_for(id, title, Some(&self.reader.person)).await?;
        if !created {
            self.check(id, Own).await?;
        }
        Ok((thread, created))
    }

    /// A new thread of the person's from a JSON export.
    pub async fn import_thread(&self, export: ThreadExport) -> Result<Thread> {
        self.engine.import_thread_for(export, Some(&self.reader.person)).await
    }

    pub async fn export_thread(&self, id: &ThreadId) -> Result<ThreadExport> {
        self.check(id, Read).await?;
        self.engine.export_thread(id).await
    }

    pub async fn thread(&self, id: &ThreadId) -> Result<ThreadDetail> {
        let access = self.check(id, Read).await?;
        Ok(ThreadDetail { writable: access == Own, ..self.engine.thread(id).await? })
    }

    pub async fn thread_page(
        &self,
        id: &ThreadId,
        at_least: usize,
        through: Option<&MessageId>,
    ) -> Result<ThreadDetail> {
        let access = self.check(id, Read).await?;
        Ok(ThreadDetail { writable: access == Own, ..self.engine.thread_page(id, at_least, through).await? })
    }

    pub async fn earlier_messages(&self, thread_id: &ThreadId, before: &MessageId) -> Result<ThreadSlice> {
        self.check(thread_id, Read).await?;
        self.engine.earlier_messages(thread_id, before).await
    }

    pub async fn thread_runs(&self, id: &ThreadId) -> Result<Vec<RunSummary>> {
        self.check(id, Read).await?;
        self.engine.thread_runs(id).await
    }

    pub async fn regenerate_title(&self, id: &ThreadId) -> Result<Thread> {
        self.check(id, Own).await?;
        self.engine.regenerate_title(id).await
    }

    pub async fn update_thread(&self, id: &ThreadId, patch: ThreadPatch) -> Result<Thread> {
        self.check(id, Own).await?;
        self.engine.update_thread(id, patch).await
    }

    pub async fn set_thread_options(&self, id: &ThreadId, options: ThreadOptions) -> Result<ThreadOptions> {
        self.check(id, Own).await?;
        self.engine.set_thread_options(id, options).await
    }

    pub async fn set_thread_model(&self, id: &ThreadId, model: Option<ModelChoice>) -> Result<()> {
        self.check(id, Own).await?;
        self.engine.set_thread_model(id, model).await
    }

    /// Its owner, or an owner by role, deletes it.
    pub async fn delete_thread(&self, id: &ThreadId) -> Result<()> {
        self.check(id, Moderate).await?;
        self.engine.delete_thread(id).await
    }

    /// Who besides its owner may read the thread (its owner asks).
    pub async fn sharing(&self, id: &ThreadId) -> Result<Sharing> {
        self.check(id, Own).await?;
        self.engine.store().sharing(id).await
    }

    /// Shares the thread (its owner asks). `known` tells whether a person exists (the engine does not keep
    /// people); the owner among those named is left out.
    pub async fn set_sharing(
        &self,
        id: &ThreadId,
        sharing: Sharing,
        known: impl Fn(&PersonId) -> bool,
    ) -> Result<Sharing> {
        self.check(id, Own).await?;
        let sharing = match sharing {
            Sharing::People { mut people } => {
                people.retain(|p| *p != self.reader.person);
                people.sort();
                people.dedup();
                if people.len() > MAX_SHARED_PEOPLE {
                    return Err(Error::Invalid(format!("a thread is shared with at most {MAX_SHARED_PEOPLE} people")));
                }
                if let Some(unknown) = people.iter().find(|p| !known(p)) {
                    return Err(Error::Invalid(format!("there is no person `{unknown}` to share with")));
                }
                if people.is_empty() {
                    Sharing::Private
                } else {
                    Sharing::People { people }
                }
            }
            other => other,
        };
        self.engine.store().set_sharing(id, &sharing).await?;
        Ok(sharing)
    }

    // --- runs and branches: the thread's owner only ---

    // The run these start records `requester` as who asked (its cards are routed by them): the person
    // reading, as an approval names them.

    pub async fn send_message(
        &self,
        thread_id: &ThreadId,
        content: String,
        requester: &ActingPerson,
    ) -> Result<RunStarted> {
        self.check(thread_id, Own).await?;
        self.engine.send_message(thread_id, content, requester).await
    }

    pub async fn retry(&self, thread_id: &ThreadId, requester: &ActingPerson) -> Result<RunStarted> {
        self.check(thread_id, Own).await?;
        self.engine.retry(thread_id, requester).await
    }

    pub async fn edit_message(
        &self,
        thread_id: &ThreadId,
        message_id: &MessageId,
        content: String,
        requester: &ActingPerson,
    ) -> Result<RunStarted> {
        self.check(thread_id, Own).await?;
        self.engine.edit_message(thread_id, message_id, content, requester).await
    }

    pub async fn regenerate(
        &self,
        thread_id: &ThreadId,
        message_id: &MessageId,
        requester: &ActingPerson,
    ) -> Result<RunStarted> {
        self.check(thread_id, Own).await?;
        self.engine.regenerate(thread_id, message_id, requester).await
    }

    pub async fn switch_branch(&self, thread_id: &ThreadId, message_id: &MessageId) -> Result<ThreadDetail> {
        self.check(thread_id, Own).await?;
        self.engine.switch_branch(thread_id, message_id).await
    }

    pub async fn choose_branch(&self, thread_id: &ThreadId, message_id: &MessageId) -> Result<()> {
        self.check(thread_id, Own).await?;
        self.engine.choose_branch(thread_id, message_id).await
    }

    pub async fn run(&self, run_id: &RunId) -> Result<RunSummary> {
        let run = self.engine.run(run_id).await?;
        let thread = run.thread_id.clone();
        self.readable(&thread, "run", run_id.as_str(), run).await
    }

    /// The thread's owner, or an owner by role, stops a run.
    pub async fn stop_run(&self, run_id: &RunId) -> Result<()> {
        let run = self.run(run_id).await?;
        self.check(&run.thread_id, Moderate).await?;
        self.engine.stop_run(run_id).await
    }

    /// The run's events, for a person who may read its thread.
    pub async fn subscribe(&self, run_id: &RunId, after: u64) -> Result<BoxStream<'static, RunEventRecord>> {
        self.run(run_id).await?;
        self.engine.subscribe(run_id, after).await
    }

    pub async fn tool_call(&self, id: &ToolCallId) -> Result<ToolCallRecord> {
        let call = self.engine.tool_call(id).await?;
        let thread = call.thread_id.clone();
        self.readable(&thread, "tool call", id.as_str(), call).await
    }

    pub async fn approval(&self, id: &ApprovalId) -> Result<Approval> {
        let approval = self.engine.approval(id).await?;
        let thread = approval.thread_id.clone();
        self.readable(&thread, "approval", id.as_str(), approval).await
    }

    pub async fn connection_check(&self, id: &ConnectionCheckId) -> Result<ConnectionCheck> {
        let check = self.engine.connection_check(id).await?;
        let thread = check.thread_id.clone();
        self.readable(&thread, "connection check", id.as_str(), check).await
    }

    /// The thread rule, unless revoked since or in a thread the person may not read.
    pub async fn rule(&self, id: &RuleId) -> Result<Option<ThreadRule>> {
        let Some(rule) = self.engine.rule(id).await? else { return Ok(None) };
        match self.access(&rule.thread_id).await {
            Ok(_) => Ok(Some(rule)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The thread's owner revokes one of its rules.
    pub async fn revoke_rule(&self, id: &RuleId) -> Result<()> {
        let rule = self.rule(id).await?.ok_or_else(|| Error::not_found("rule", id.as_str()))?;
        self.check(&rule.thread_id, Own).await?;
        self.engine.revoke_rule(id).await
    }

    /// Whether the person may read thread `id` (for a feed that tells of many threads).
    pub async fn may_read(&self, id: &ThreadId) -> Result<bool> {
        match self.access(id).await {
            Ok(_) => Ok(true),
            Err(Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
