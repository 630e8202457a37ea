//! Settings' "Import a thread": a JSON file exported from Warden becomes a new thread (under new ids,
//! with nothing left to decide or run; see the engine's `transfer`), which opens. A file that is not
//! an export is refused with the reason, right under the field.

use leptos::prelude::*;

use crate::error::AppError;
use crate::ui::error_notice::ErrorNotice;

#[component]
pub fn ThreadImport() -> impl IntoView {
    let error = RwSignal::new(None::<AppError>);
    #[cfg(feature = "hydrate")]
    let on_change = {
        let navigate = leptos_router::hooks::use_navigate();
        let changed = expect_context::<crate::context::ThreadsChanged>();
        move |ev: leptos::ev::Event| {
            use wasm_bindgen::JsCast;
            let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
            let Some(file) = input.files().and_then(|files| files.get(0)) else { return };
            input.set_value("");
            error.set(None);
            let navigate = navigate.clone();
            leptos::task::spawn_local(async move {
                let text = wasm_bindgen_futures::JsFuture::from(file.text()).await.ok().and_then(|t| t.as_string());
                let Some(text) = text else {
                    error.try_set(Some(AppError::Invalid("the file could not be read".into())));
                    return;
                };
                match crate::server_fns::import_thread(text).await {
                    Ok(thread) => {
                        changed.notify();
                        navigate(&format!("/chat/{}", thread.id), Default::default());
                    }
                    Err(e) => {
                        error.try_set(Some(e));
                        // The reason is shown under the field; brought into view if it is below the fold.
                        request_animation_frame(|| {
                            if let Some(notice) = document().get_element_by_id("thread-import-error") {
                                notice.scroll_into_view_with_bool(false);
                            }
                        });
                    }
                }
            });
        }
    };
    #[cfg(not(feature = "hydrate"))]
    let on_change = |_: leptos::ev::Event| {};
    view! {
        <section class="thread-import" aria-labelledby="thread-import-title">
            <h2 id="thread-import-title">"Import a thread"</h2>
            <p class="mcp-intro">
                "A thread exported as JSON (its Export JSON link) opens here as a new thread of yours, with nothing \
                 left to decide or run."
            </p>
            <label class="thread-import-field">
                "Import a thread (JSON)"
                <input type="file" accept=".json,application/json" on:change=on_change/>
            </label>
            <div id="thread-import-error">{move || error.get().map(|error| view! { <ErrorNotice error/> })}</div>
        </section>
    }
}
