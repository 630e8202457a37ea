//! How a stored message is shown: the model's words are Markdown, rendered and sanitised to HTML here,
//! on the server; a person's are shown as they typed them. The store keeps records only; rendering
//! (highlighting above all, the costly part) happens where a page or a run event needs it.

use warden_types::message::Role;
use warden_types::thread::StoredMessage;

/// `message` with the HTML a page shows it as.
pub fn shown(message: StoredMessage) -> StoredMessage {
    StoredMessage { html: html_of(message.role, &message.content), ..message }
}

fn html_of(role: Role, content: &str) -> Option<String> {
    (role == Role::Assistant).then(|| crate::markdown::render(content))
}
