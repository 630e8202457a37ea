//! What a tab shows when the app's code in it stopped: a panic ends the browser's wasm, after which
//! nothing on the page reacts. The most likely cause is a page whose code could not be fetched (a
//! lost connection, or a server updated since the tab opened: a module of another build refuses to
//! link). The notice says so and offers a reload, as a plain link that works without the wasm.

/// The notice's element id; shown once, however many panics follow.
const ID: &str = "stopped-notice";

/// Puts the notice on the page. Called from the panic hook, so it must not panic itself: every DOM
/// call that fails is let go.
pub fn show() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    if document.get_element_by_id(ID).is_some() {
        return;
    }
    let (Ok(notice), Ok(link), Some(body)) =
        (document.create_element("div"), document.create_element("a"), document.body())
    else {
        return;
    };
    let here = document.location().and_then(|l| l.href().ok()).unwrap_or_else(|| "/".into());
    let _ = notice.set_attribute("id", ID);
    let _ = notice.set_attribute("class", "stopped-notice");
    let _ = notice.set_attribute("role", "alert");
    notice.set_text_content(Some(
        "This tab stopped working, most likely because part of the page could not be loaded (the connection \
         dropped, or Warden was updated since the tab was opened). ",
    ));
    let _ = link.set_attribute("href", &here);
    // Left to the browser: the router's click handler is the stopped code's.
    let _ = link.set_attribute("rel", "external");
    link.set_text_content(Some("Reload"));
    let _ = notice.append_child(&link);
    let _ = body.append_child(&notice);
}
