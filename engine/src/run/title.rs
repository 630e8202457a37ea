//! Thread titles: after the first exchange the model names the thread; until then (or if that
//! fails) the first words of the prompt stand in.

use std::sync::Arc;
use std::time::Duration;
use warden_types::id::ThreadId;

use super::RunSummary;
use crate::events::EventHub;
use crate::message::{Message, Role};
use crate::providers::Providers;
use crate::run::handles::RunHandles;
use crate::store::Store;
use warden_types::inbox::Titled;
use warden_types::provider::ModelChoice;

const TITLE_PROMPT: &str = "Write a short title (at most six words) for the conversation below. \
Answer with the title only: no quotes, no punctuation at the end.";

/// A title shows as plain text: Markdown's emphasis and code marks (`**`, `*`, `__`, `` ` ``, `~~`)
/// are taken out rather than shown.
fn without_markup(text: &str) -> String {
    text.replace("**", "").replace("__", "").replace("~~", "").replace(['*', '`'], "")
}

/// The first words of a prompt, as a stand-in title.
pub fn from_prompt(prompt: &str) -> String {
    let prompt = without_markup(prompt);
    let words: Vec<&str> = prompt.split_whitespace().take(8).collect();
    let mut title = words.join(" ");
    if title.chars().count() > 60 {
        title = title.chars().take(60).collect::<String>() + "…";
    } else if prompt.split_whitespace().count() > 8 {
        title.push('…');
    }
    if title.is_empty() {
        "New chat".into()
    } else {
        title
    }
}

/// Cleans what the model answered into a one-line title; `None` if nothing usable is left.
pub fn clean(answer: &str) -> Option<String> {
    let line = without_markup(answer.lines().map(str::trim).find(|l| !l.is_empty())?);
    let line = line.trim_start_matches("Title:").trim().trim_matches(|c| matches!(c, '"' | '\'' | '#')).trim();
    let line = line.trim_end_matches(['.', '!', ':']).trim();
    if line.is_empty() {
        return None;
    }
    Some(line.chars().take(80).collect())
}

/// Names the thread after its first exchange, unless a person named it, in the background: the
/// run has ended (its `run_finished` is out), so a slow model's title keeps neither the run nor the
/// person waiting. The title is stored and told to [`EventHub::watch_titles`] (the pages' live feed),
/// not on the run's stream, which has ended. Given up at shutdown: the prompt's words stay, and the
/// thread's next answer names it.
pub fn name_after_answer(rt: &RunHandles, run: &RunSummary) {
    let namer = Namer { store: rt.store.clone(), providers: rt.providers.clone(), events: rt.events.clone() };
    let (thread_id, model, shutdown) = (run.thread_id.clone(), run.model.clone(), rt.shutdown.clone());
    tokio::spawn(async move {
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = namer.name(&thread_id, model.as_ref()) => {}
        }
    });
}

/// What naming a thread needs, owned, so that it outlives the run's driver.
struct Namer {
    store: Store,
    providers: Arc<Providers>,
    events: Arc<EventHub>,
}

impl Namer {
    async fn name(&self, thread_id: &ThreadId, model: Option<&ModelChoice>) {
        let Ok(provider) = self.providers.resolve(model) else { return };
        match self.store.title_is_generated(thread_id).await {
            Ok(true) => {}
            _ => return,
        }
        let asked = match self.store.messages(thread_id).await {
            Ok(messages) => ask_model(provider.as_ref(), &messages).await,
            Err(e) => Err(e),
        };
        let title = match asked {
            Ok(title) => title,
            Err(e) => {
                tracing::warn!(%thread_id, error = %e, "title generation failed; keeping the prompt's words");
                None
            }
        };
        let Some(title) = title else { return };
        match self.store.set_model_title(thread_id, &title).await {
            Ok(true) => self.events.tell_titled(Titled { thread_id: thread_id.to_owned(), title }),
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "could not store the generated title"),
        }
    }
}

/// Names the thread again because a person asked (their own title is replaced too), with the
/// thread's model. Answers the new title.
pub async fn regenerate(rt: &RunHandles, thread_id: &ThreadId) -> crate::error::Result<String> {
    // Not found for an unknown thread.
    let choice = rt.store.thread_model(thread_id).await?;
    let messages = rt.store.messages(thread_id).await?;
    if !messages.iter().any(|m| m.role == Role::User) {
        return Err(crate::error::Error::Invalid("the thread has no message yet to name it by".into()));
    }
    let provider = rt.providers.resolve(choice.as_ref())?;
    let title = ask_model(provider.as_ref(), &messages)
        .await?
        .ok_or_else(|| crate::error::Error::Invalid("the model gave no usable title; try again".into()))?;
    rt.store.set_requested_title(thread_id, &title).await?;
    Ok(title)
}

/// The model's title for the first exchange of `messages` (the thread's branch shown); `None`:
/// nothing to name yet, or an answer that is not a title.
async fn ask_model(
    provider: &dyn warden_llm::Provider,
    messages: &[warden_types::thread::StoredMessage],
) -> crate::error::Result<Option<String>> {
    let Some(first) = messages.iter().find(|m| m.role == Role::User) else { return Ok(None) };
    let answer = messages.iter().rev().find(|m| m.role == Role::Assistant && !m.content.is_empty());
    let mut convo = format!("User: {}", first.content.chars().take(2000).collect::<String>());
    if let Some(a) = answer {
        convo.push_str(&format!("\n\nAssistant: {}", a.content.chars().take(2000).collect::<String>()));
    }
    let request = vec![Message::text(Role::System, TITLE_PROMPT), Message::text(Role::User, convo)];
    match tokio::time::timeout(Duration::from_secs(20), provider.complete(request)).await {
        Ok(answer) => Ok(clean(&answer?)),
        Err(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_title_keeps_the_first_words() {
        assert_eq!(from_prompt("  hello   there  "), "hello there");
        assert_eq!(
            from_prompt("one two three four five six seven eight nine"),
            "one two three four five six seven eight…"
        );
        assert_eq!(from_prompt("   "), "New chat");
    }

    #[test]
    fn model_title_is_cleaned_to_one_line() {
        assert_eq!(clean("\"Greeting the World.\"\nmore"), Some("Greeting the World".into()));
        assert_eq!(clean("Title: Rust tips"), Some("Rust tips".into()));
        assert_eq!(clean("  \n "), None);
    }

    #[test]
    fn markdown_marks_are_taken_out_of_titles() {
        assert_eq!(clean("## Hello **there** and `code`"), Some("Hello there and code".into()));
        assert_eq!(clean("**Title:** __Bold__ ~~old~~ plan"), Some("Bold old plan".into()));
        assert_eq!(from_prompt("Say hello **there**"), "Say hello there");
        assert_eq!(clean("***"), None);
    }
}
