//! Warden's web UI: the HTML shell, the router and the pages. Rendered on the server (feature `ssr`)
//! and hydrated in the browser (feature `hydrate`); data comes from server functions over the engine.
//!
//! The code is folded by feature: `chat/`, `inbox/`, `settings/`, `audit/` and the frame around them
//! (`layout/`). Features do not import each other: what they share is in `ui/` (pieces), `wording`
//! (labels and decision texts, shared with the REST API), `context` (state the whole app provides),
//! `model` (the records shown), `inbox_live` (the waiting requests' counts) and `server_fns` (the calls into
//! the engine).

pub mod audit;
pub mod chat;
pub mod context;
pub mod csp;
pub mod error;
pub mod inbox;
pub mod inbox_live;
pub mod layout;
mod lazy_pages;
pub mod model;
pub mod server_fns;
pub mod settings;
pub mod ui;
pub mod wording;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags, Stylesheet, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;
use leptos_router::{Lazy, SsrMode};

use crate::chat::{page::ChatPage, welcome::WelcomePage};
use crate::context::{ThreadEdited, ThreadsChanged};
use crate::layout::{app_layout::AppLayout, not_found::NotFound};

/// The HTML document around the app, rendered on the server.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    set_page_policy();
    let theme = ui::theme::current().as_str();
    view! {
        <!DOCTYPE html>
        <html lang="en" data-theme=theme>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <link rel="icon" href="data:,"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                // Passkeys (WebAuthn) on Settings → Your account: a static script from this server.
                <script src="/passkeys.js" defer=true></script>
                // Web Push on Settings → Notifications (and its service worker, /warden-sw.js).
                <script src="/notifications.js" defer=true></script>
                // Installing the page as an app on a phone (where Web Push needs it).
                <link rel="manifest" href="/manifest.webmanifest"/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// Sends the page's Content-Security-Policy with this response's nonce (Leptos puts the same nonce
/// on its inline hydration and streaming scripts). Headers go out after the first chunk, which
/// the shell is part of, so setting it here reaches the response.
fn set_page_policy() {
    #[cfg(feature = "ssr")]
    if let (Some(nonce), Some(response)) = (leptos::nonce::use_nonce(), use_context::<leptos_axum::ResponseOptions>()) {
        let dev_reload = std::env::var_os("LEPTOS_WATCH").is_some();
        if let Ok(value) = http::HeaderValue::from_str(&csp::page_policy(&nonce, dev_reload)) {
            response.insert_header(http::header::CONTENT_SECURITY_POLICY, value);
        }
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    provide_context(ThreadsChanged(RwSignal::new(0)));
    provide_context(ThreadEdited(RwSignal::new(None)));
    let inbox = inbox_live::InboxLive::provide();
    // A thread the model named (after its run ended): the sidebar reads its list again.
    let threads_changed = expect_context::<ThreadsChanged>();
    Effect::new(move |_| {
        if inbox.titled.with(Option::is_some) {
            threads_changed.notify();
        }
    });
    // Effects run only in the browser: this marks the page as interactive (tests wait for it).
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });

    view! {
        <Stylesheet id="leptos" href="/pkg/warden.css"/>
        <Title text="Warden"/>
        // "(3) Warden" while approvals wait.
        <Title formatter=move |text: String| inbox.title(text)/>
        <Router>
            <AppLayout>
                    <Routes fallback=NotFound>
                        <Route path=path!("/") view=WelcomePage/>
                        // Rendered whole before it is sent, so an unknown thread is answered with 404.
                        <Route path=path!("/chat/:id") view=ChatPage ssr=SsrMode::Async/>
                        // The other pages' code is fetched when one is first shown (lazy_pages.rs).
                        <Route path=path!("/settings") view={Lazy::<lazy_pages::Settings>::new()}/>
                        <Route path=path!("/inbox") view={Lazy::<lazy_pages::Inbox>::new()}/>
                        // Rendered whole before it is sent, so an unknown request is answered with 404.
                        <Route path=path!("/approvals/:id") view={Lazy::<lazy_pages::OutsideApproval>::new()} ssr=SsrMode::Async/>
                        <Route path=path!("/audit") view={Lazy::<lazy_pages::AuditLog>::new()}/>
                    </Routes>
            </AppLayout>
        </Router>
    }
}
