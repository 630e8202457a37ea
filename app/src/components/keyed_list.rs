//! The one keyed list of the pages: the conversation, the connection checks, a call's outside
//! requests and the thread's rules on a chat, the items and the client filter on the inbox. A row keeps its DOM (an open `<details>`, text half-typed into a
//! card, the focus) while its key stays; a new key redraws just that row. Leptos' `<For>` is generic
//! over its items, keys and closures, so each list compiled its own copy of the keyed diffing into
//! the browser's wasm (about 17 KB each, 3.5 KB once compressed); this is compiled once, and a list
//! hands it rows that make their own views.

use std::fmt::Debug;
use std::sync::Arc;

use leptos::prelude::*;

/// One row: its key and what draws it.
pub struct Row {
    key: String,
    view: Box<dyn FnOnce() -> AnyView + Send>,
}

impl Row {
    /// `key`: the row's id and whatever of it, when it changes, must redraw the row. Rows are told
    /// apart by its `Debug` text, which is the same for equal keys and differs for different ones
    /// (strings in it are quoted and escaped).
    pub fn new(key: &impl Debug, view: impl FnOnce() -> AnyView + Send + 'static) -> Self {
        Self { key: format!("{key:?}"), view: Box::new(view) }
    }
}

/// The rows `rows` gives, kept in step with it by key.
pub fn keyed_list(rows: Arc<dyn Fn() -> Vec<Row> + Send + Sync>) -> AnyView {
    view! { <For each=move || rows() key=|row: &Row| row.key.clone() children=|row: Row| (row.view)()/> }.into_any()
}

#[cfg(test)]
mod tests {
    use leptos::prelude::IntoAny;

    use super::Row;

    #[test]
    fn equal_keys_give_equal_rows_and_different_ones_differ() {
        let key = |id: &str, error: Option<&str>| Row::new(&(id, error), || ().into_any()).key;
        assert_eq!(key("a", None), key("a", None));
        assert_ne!(key("a", None), key("a", Some("")));
        // A quote in one part cannot make it pass for two parts.
        assert_ne!(key("a\", Some(\"b", None), key("a", Some("b")));
    }
}
