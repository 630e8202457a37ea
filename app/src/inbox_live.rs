//! The inbox's live state on every page: how many approvals and connection checks wait (for the
//! sidebar badge and the page title), how many wait in each thread (the sidebar rows' badges, so an
//! inbox change updates them without the lists being read again) and a counter the inbox page
//! lists again on. In the browser it follows the server's
//! feed (`GET /api/inbox/events`, server-sent events) for the life of the page, and shows a browser
//! notification for a new approval while the tab is hidden, if the person allowed notifications
//! (asked only when they press the button on the inbox page). The same feed tells of each thread the
//! model named, after its run ended (`titled`), and of each run that starts (`run`: an open chat on
//! its thread follows it, whichever tab started it). On the server it is inert.

use leptos::prelude::*;
use warden_types::inbox::{PendingByThread, PendingCount, RunBegan, Titled};

#[derive(Clone, Copy)]
pub struct InboxLive {
    /// `None` until the feed's first count.
    pub count: RwSignal<Option<PendingCount>>,
    /// `None` until the feed's first per-thread counts; threads with nothing waiting are absent.
    pub threads: RwSignal<Option<PendingByThread>>,
    /// Bumped on every change the feed reports.
    pub changed: RwSignal<u32>,
    /// The thread the model named last (the sidebar reads its list again; an open chat shows it).
    pub titled: RwSignal<Option<Titled>>,
    /// The run that started last, in any thread the person may read (an open chat on its thread follows it).
    pub run_began: RwSignal<Option<RunBegan>>,
}

impl InboxLive {
    /// Provides the live state as context and, in the browser, follows the feed while the app lives.
    pub fn provide() -> Self {
        let live = Self {
            count: RwSignal::new(None),
            threads: RwSignal::new(None),
            changed: RwSignal::new(0),
            titled: RwSignal::new(None),
            run_began: RwSignal::new(None),
        };
        provide_context(live);
        #[cfg(feature = "hydrate")]
        {
            let feed = StoredValue::new_local(None::<browser::Feed>);
            // Effects run only in the browser, after hydration.
            Effect::new(move |_| {
                feed.set_value(browser::Feed::open(live));
            });
            on_cleanup(move || {
                feed.try_update_value(|f| f.take());
            });
        }
        live
    }

    /// Approvals waiting, 0 while unknown.
    pub fn total(&self) -> u32 {
        self.count.get().map(|c| c.total()).unwrap_or(0)
    }

    /// What waits in the thread `id`, once the feed has said (`None` before: the list's own count
    /// is shown until then, as the server rendered it).
    pub fn waiting_in(&self, id: &str) -> Option<u32> {
        self.threads.try_with(|t| t.as_ref().map(|t| t.get(id).copied().unwrap_or(0))).flatten()
    }

    /// The page title with the count in front while something waits: `(3) Warden`.
    pub fn title(&self, text: String) -> String {
        match self.total() {
            0 => text,
            n => format!("({n}) {text}"),
        }
    }
}

/// Whether the browser may show Warden's notifications.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotifyPermission {
    /// Not asked yet.
    Ask,
    Granted,
    Denied,
    /// This browser has no Notification API.
    Unsupported,
}

/// The permission as it stands; `None` on the server.
pub fn notify_permission() -> Option<NotifyPermission> {
    #[cfg(feature = "hydrate")]
    return Some(browser::permission());
    #[cfg(not(feature = "hydrate"))]
    None
}

/// Asks the browser for permission to notify (shows its prompt), and answers what the person chose.
pub async fn ask_notify_permission() -> Option<NotifyPermission> {
    #[cfg(feature = "hydrate")]
    return Some(browser::ask_permission().await);
    #[cfg(not(feature = "hydrate"))]
    None
}

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::prelude::*;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{Event, EventSource, MessageEvent, Notification, NotificationOptions, NotificationPermission};

    use super::{InboxLive, NotifyPermission};
    use warden_types::inbox::{ApprovalSource, Arrived, PendingByThread, PendingCount, RunBegan, Titled};

    pub struct Feed {
        source: EventSource,
        // Kept alive as long as the feed: dropping a closure would detach its listener.
        _listeners: Vec<Closure<dyn FnMut(Event)>>,
    }

    impl Feed {
        /// Opens the feed; `EventSource` reconnects by itself, and the server sends the count
        /// first on every connection, so nothing is missed across a reconnect.
        pub fn open(live: InboxLive) -> Option<Self> {
            let source = EventSource::new("/api/inbox/events").ok()?;
            let mut listeners = Vec::new();
            let on_count = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                if let Some(count) = read::<PendingCount>(&event, "inbox count") {
                    live.count.try_set(Some(count));
                    live.changed.try_update(|n| *n = n.wrapping_add(1));
                }
            });
            let on_threads = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                if let Some(threads) = read::<PendingByThread>(&event, "inbox counts per thread") {
                    live.threads.try_set(Some(threads));
                }
            });
            let on_arrived = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                if let Some(arrived) = read::<Arrived>(&event, "new approval") {
                    notify(&arrived);
                }
            });
            let on_titled = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                if let Some(titled) = read::<Titled>(&event, "thread title") {
                    live.titled.try_set(Some(titled));
                }
            });
            let on_run = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                if let Some(began) = read::<RunBegan>(&event, "run started") {
                    live.run_began.try_set(Some(began));
                }
            });
            // Someone voted on a card this person sees: the inbox lists again (the count is unchanged).
            let on_voted = Closure::<dyn FnMut(Event)>::new(move |_: Event| {
                live.changed.try_update(|n| *n = n.wrapping_add(1));
            });
            let listeners_by_name = [
                ("count", on_count),
                ("threads", on_threads),
                ("arrived", on_arrived),
                ("titled", on_titled),
                ("run", on_run),
                ("voted", on_voted),
            ];
            for (name, listener) in listeners_by_name {
                if source.add_event_listener_with_callback(name, listener.as_ref().unchecked_ref()).is_ok() {
                    listeners.push(listener);
                }
            }
            Some(Self { source, _listeners: listeners })
        }
    }

    impl Drop for Feed {
        fn drop(&mut self) {
            self.source.close();
        }
    }

    fn data(event: &Event) -> Option<String> {
        event.dyn_ref::<MessageEvent>().and_then(|m| m.data().as_string())
    }

    /// The event's data read as a `T`; `None`, with a warning naming `what`, if it is not one.
    fn read<T: serde::de::DeserializeOwned>(event: &Event, what: &str) -> Option<T> {
        match serde_json::from_str(&data(event)?) {
            Ok(value) => Some(value),
            Err(error) => {
                leptos::logging::warn!("unreadable {what}: {error}");
                None
            }
        }
    }

    fn supported() -> bool {
        js_sys::Reflect::has(&window(), &JsValue::from_str("Notification")).unwrap_or(false)
    }

    pub fn permission() -> NotifyPermission {
        if !supported() {
            return NotifyPermission::Unsupported;
        }
        match Notification::permission() {
            NotificationPermission::Granted => NotifyPermission::Granted,
            NotificationPermission::Denied => NotifyPermission::Denied,
            _ => NotifyPermission::Ask,
        }
    }

    pub async fn ask_permission() -> NotifyPermission {
        if !supported() {
            return NotifyPermission::Unsupported;
        }
        if let Ok(promise) = Notification::request_permission() {
            let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
        }
        permission()
    }

    /// A notification for a new approval, only while the tab is hidden (a visible tab shows the
    /// badge) and only with the person's permission. Clicking it brings the tab to the inbox.
    fn notify(arrived: &Arrived) {
        if !document().hidden() || permission() != NotifyPermission::Granted {
            return;
        }
        let options = NotificationOptions::new();
        // Text only: the OS shows it as plain text. A model or client wrote the summary.
        options.set_body(&arrived.summary);
        options.set_tag(&arrived.id);
        let title = match arrived.source {
            ApprovalSource::Chat => "Warden: a tool call waits for your approval",
            ApprovalSource::Outside => "Warden: an outside request waits for your approval",
            ApprovalSource::Check => "Warden: a run waits for an MCP server",
        };
        let Ok(notification) = Notification::new_with_options(title, &options) else { return };
        let on_click = Closure::once_into_js(move || {
            let _ = window().focus();
            let _ = window().location().set_href("/inbox");
        });
        notification.set_onclick(Some(on_click.unchecked_ref()));
    }
}
