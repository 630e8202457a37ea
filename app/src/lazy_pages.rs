//! The pages a chat does not need, each cut out of the browser's main wasm into a module of its own
//! (`cargo xtask site` splits at `#[lazy_route]`), which the browser fetches the first time the page
//! is shown. A page rendered on the server names its module, so the browser fetches it beside the
//! main wasm. The chat and the welcome page stay in the main wasm: they are what a person opens first.

use leptos::prelude::*;
use leptos_router::{lazy_route, LazyRoute};

use crate::audit::page::AuditLogPage;
use crate::inbox::{page::InboxPage, request_page::OutsideApprovalPage};
use crate::settings::page::SettingsPage;

pub struct Settings;

#[lazy_route]
impl LazyRoute for Settings {
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        view! { <SettingsPage/> }.into_any()
    }
}

pub struct Inbox;

#[lazy_route]
impl LazyRoute for Inbox {
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        view! { <InboxPage/> }.into_any()
    }
}

pub struct OutsideApproval;

#[lazy_route]
impl LazyRoute for OutsideApproval {
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        view! { <OutsideApprovalPage/> }.into_any()
    }
}

pub struct AuditLog;

#[lazy_route]
impl LazyRoute for AuditLog {
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        view! { <AuditLogPage/> }.into_any()
    }
}
