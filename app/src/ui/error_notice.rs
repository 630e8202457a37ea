//! How a failed server call is shown: the message, announced to screen readers.

use leptos::prelude::*;

use crate::error::AppError;

#[component]
pub fn ErrorNotice(error: AppError) -> impl IntoView {
    view! { <p class="error" role="alert">{error.to_string()}</p> }
}

/// For an `<ErrorBoundary>` fallback.
pub fn error_list(errors: ArcRwSignal<Errors>) -> impl IntoView {
    view! {
        <div class="error" role="alert">
            {move || errors.get().into_iter().map(|(_, e)| view! { <p>{e.to_string()}</p> }).collect_view()}
        </div>
    }
}
