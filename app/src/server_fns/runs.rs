//! Server functions that start and stop runs: a new chat from the welcome page, a message, an edit,
//! another answer, switching branches, Retry,
//! Stop, and revoking a thread's "allow" rule. Decisions are in `approvals`.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::id::{MessageId, RuleId, RunId, ThreadId};

use crate::error::AppError;
use crate::model::{NewChat, RunStarted};

/// Creates a thread and sends its first message, to the model chosen on the welcome page (`None`:
/// the default).
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn start_chat(
    prompt: String,
    choice: Option<warden_types::provider::ModelChoice>,
) -> Result<NewChat, AppError> {
    // Checked before the thread is made, so a refused prompt or choice leaves no empty thread behind.
    let prompt = warden_engine::input::message(&prompt)?;
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    if let Some(choice) = &choice {
        engine.check_model_choice(choice)?;
    }
    let as_reader = engine.as_reader(&reader);
    let thread = as_reader.create_thread(None).await?;
    if choice.is_some() {
        as_reader.set_thread_model(&thread.id, choice).await?;
    }
    let started = as_reader.send_message(&thread.id, prompt, &requester()?).await?;
    Ok(NewChat { thread_id: thread.id, run_id: started.run_id })
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn send_message(thread_id: ThreadId, content: String) -> Result<RunStarted, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let started = engine.as_reader(&reader).send_message(&thread_id, content, &requester()?).await?;
    Ok(RunStarted { run_id: started.run_id, message_id: started.message_id })
}

/// Sends `content` in place of the person's message `message_id`, on a new branch.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn edit_message(thread_id: ThreadId, message_id: MessageId, content: String) -> Result<RunStarted, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let started = engine.as_reader(&reader).edit_message(&thread_id, &message_id, content, &requester()?).await?;
    Ok(RunStarted { run_id: started.run_id, message_id: started.message_id })
}

/// Another answer to the turn of the model's message `message_id`, on a new branch.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn regenerate_answer(thread_id: ThreadId, message_id: MessageId) -> Result<RunStarted, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let started = engine.as_reader(&reader).regenerate(&thread_id, &message_id, &requester()?).await?;
    Ok(RunStarted { run_id: started.run_id, message_id: started.message_id })
}

/// Shows the branch through `message_id`; answers the thread as its page then shows it.
#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn switch_branch(thread_id: ThreadId, message_id: MessageId) -> Result<crate::model::ThreadDetail, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    engine.as_reader(&reader).choose_branch(&thread_id, &message_id).await?;
    Ok(engine.as_reader(&reader).thread_page(&thread_id, 0, None).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn retry_run(thread_id: ThreadId) -> Result<RunStarted, AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    let started = engine.as_reader(&reader).retry(&thread_id, &requester()?).await?;
    Ok(RunStarted { run_id: started.run_id, message_id: started.message_id })
}

/// The person asking, as the run they start records them (its cards are routed by who asked).
#[cfg(feature = "ssr")]
fn requester() -> Result<warden_types::person::ActingPerson, AppError> {
    Ok(super::asker::asker()?.acting())
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn stop_run(run_id: RunId) -> Result<(), AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    Ok(engine.as_reader(&reader).stop_run(&run_id).await?)
}

#[server(input = Json, output = crate::server_fns::codec::TextJson)]
pub async fn revoke_rule(rule_id: RuleId) -> Result<(), AppError> {
    let (engine, reader) = (super::engine()?, super::asker::reader()?);
    Ok(engine.as_reader(&reader).revoke_rule(&rule_id).await?)
}
