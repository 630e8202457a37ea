//! What the section's parts share: the state of one list of channels and its form, and this page's origin
//! (which a test message links to).

use crate::settings::section_ui::SectionUi;
use warden_types::channel::ChannelView;

/// One list of channels (the person's own, or the shared ones) and its form.
pub type ChannelsUi = SectionUi<ChannelView>;

/// This page's origin (`https://host:port`).
pub fn origin() -> String {
    #[cfg(feature = "hydrate")]
    if let Some(origin) = web_sys::window().and_then(|w| w.location().origin().ok()) {
        return origin;
    }
    String::new()
}
