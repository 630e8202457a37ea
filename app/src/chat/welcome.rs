//! The welcome page (`/`): one prompt box with a model picker. Sending it creates a thread (with the
//! model chosen, if one was), starts its first run and opens the chat. Without a configured model it
//! says what to set.

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_navigate;

use crate::chat::composer::Composer;
use crate::chat::model_picker::ModelPicker;
use crate::context::ThreadsChanged;
use crate::error::AppError;
use crate::model::{ModelChoice, ModelStatus};
use crate::server_fns::{get_model_status, list_providers, start_chat};
use crate::ui::error_notice::ErrorNotice;

#[component]
pub fn WelcomePage() -> impl IntoView {
    let status = Resource::new(|| (), |_| get_model_status());
    let providers = Resource::new(|| (), |_| list_providers());
    // A viewer starts no thread: the page says so instead of offering the prompt box.
    // Read in an effect (in the browser): the prompt box is hidden once the person is known to be a viewer.
    let me = Resource::new(|| (), |_| crate::server_fns::people::who_am_i());
    let is_viewer = RwSignal::new(false);
    Effect::new(move |_| {
        if let Some(Ok(person)) = me.get() {
            is_viewer.set(!person.role.chats());
        }
    });
    let viewer = move || is_viewer.get();
    // The new thread's model (`None`: the default).
    let choice = RwSignal::new(None::<ModelChoice>);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<AppError>);
    let threads_changed = expect_context::<ThreadsChanged>();
    let navigate = use_navigate();

    let on_send = Callback::new(move |prompt: String| {
        busy.set(true);
        error.set(None);
        let navigate = navigate.clone();
        let choice = choice.get_untracked();
        spawn_local(async move {
            match start_chat(prompt, choice).await {
                Ok(chat) => {
                    threads_changed.notify();
                    navigate(&format!("/chat/{}", chat.thread_id), Default::default());
                }
                Err(e) => {
                    error.try_set(Some(e));
                }
            }
            busy.try_set(false);
        });
    });

    view! {
        <section class="page welcome">
            <h1>"What should we work on?"</h1>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match status.await {
                        Ok(status) => view! { <ModelNotice status/> }.into_any(),
                        Err(e) => view! { <ErrorNotice error=e/> }.into_any(),
                    }
                })}
            </Transition>
            <p class="read-only-note" hidden=move || !viewer()>
                "As a viewer you read the threads shared with you; you start none."
            </p>
            <div class="composer-slot" hidden=viewer>
            <Composer on_send busy label="Your prompt" placeholder="Ask for something; Enter sends, Shift+Enter adds a line">
                <Transition fallback=|| ()>
                    {move || Suspend::new(async move {
                        providers.await.ok().map(|list| {
                            view! { <ModelPicker list current=choice on_change=Callback::new(move |c| choice.set(c))/> }
                        })
                    })}
                </Transition>
            </Composer>
            </div>
            {move || error.get().map(|error| view! { <ErrorNotice error/> })}
        </section>
    }
}

/// Which model answers, or, without one, exactly what to configure.
#[component]
fn ModelNotice(status: ModelStatus) -> impl IntoView {
    if status.configured {
        view! {
            <p class="model-line">"Model: " {status.model} " via " {status.provider}</p>
            {status.hint.map(|hint| view! { <p class="model-limits">{hint}</p> })}
        }
        .into_any()
    } else {
        view! {
            <div class="notice" role="alert">
                <p><strong>"No model is configured yet."</strong></p>
                {match status.hint {
                    Some(hint) => view! { <p>{hint}</p> }.into_any(),
                    None => view! {
                        <p>
                            "Set " <code>"OPENAI_BASE_URL"</code> " (an OpenAI-compatible endpoint), "
                            <code>"OPENAI_API_KEY"</code> " and " <code>"WARDEN_MODEL"</code>
                            ", then restart Warden."
                        </p>
                    }.into_any(),
                }}
            </div>
        }
        .into_any()
    }
}
