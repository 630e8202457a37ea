//! Server functions that start and stop runs: a new chat from the welcome page, a message, Retry,
//! Stop, and revoking a thread's "allow" rule. Decisions are in `approvals`.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::{NewChat, RunStarted};

/// Creates a thread and sends its first message, to the model chosen on the welcome page (`None`:
/// the default).
#[server]
pub async fn start_chat(
    prompt: String,
    choice: Option<warden_types::provider::ModelChoice>,
) -> Result<NewChat, AppError> {
    // Checked before the thread is made, so a refused prompt or choice leaves no empty thread behind.
    let prompt = warden_engine::input::message(&prompt)?;
    let engine = super::engine()?;
    if let Some(choice) = &choice {
        engine.check_model_choice(choice)?;
    }
    let thread = engine.create_thread(None).await?;
    if choice.is_some() {
        engine.set_thread_model(&thread.id, choice).await?;
    }
    let started = engine.send_message(&thread.id, prompt).await?;
    Ok(NewChat { thread_id: thread.id, run_id: started.run_id })
}

#[server]
pub async fn send_message(thread_id: String, content: String) -> Result<RunStarted, AppError> {
    let engine = super::engine()?;
    let started = engine.send_message(&thread_id, content).await?;
    Ok(RunStarted { run_id: started.run_id, message_id: started.message_id })
}

#[server]
pub async fn retry_run(thread_id: String) -> Result<RunStarted, AppError> {
    let engine = super::engine()?;
    let started = engine.retry(&thread_id).await?;
    Ok(RunStarted { run_id: started.run_id, message_id: started.message_id })
}

#[server]
pub async fn stop_run(run_id: String) -> Result<(), AppError> {
    let engine = super::engine()?;
    Ok(engine.stop_run(&run_id).await?)
}

#[server]
pub async fn revoke_rule(rule_id: String) -> Result<(), AppError> {
    let engine = super::engine()?;
    Ok(engine.revoke_rule(&rule_id).await?)
}
