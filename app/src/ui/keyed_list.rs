//! The one keyed list of the pages: the conversation, the connection checks, a call's outside
//! requests and the thread's rules on a chat, the items and the client filter on the inbox. A row keeps its DOM (an open `<details>`, text half-typed into a
//! card, the focus) while its key stays; a new key redraws just that row. Leptos' `<For>` is generic
//! over its items, keys and closures, so each list compiled its own copy of the keyed diffing into
//! the browser's wasm (about 17 KB each, 3.5 KB once compressed); this is compiled once, and a list
//! hands it rows that make their own views.

use std::any::Any;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use leptos::prelude::*;

/// One row: its key and what draws it.
pub struct Row {
    key: RowKey,
    view: Box<dyn FnOnce() -> AnyView + Send>,
}

impl Row {
    /// `key`: the row's id and whatever of it, when it changes, must redraw the row (a tuple of
    /// them, or a struct of the caller's that derives `Hash` and `Eq`). Rows are told apart by
    /// comparing keys with `Eq`: keys of different types always differ.
    pub fn new<K: Hash + Eq + Send + Sync + 'static>(key: K, view: impl FnOnce() -> AnyView + Send + 'static) -> Self {
        Self { key: RowKey(Arc::new(key)), view: Box::new(view) }
    }
}

/// A row's key with its type erased, so that `<For>` is compiled once for every list.
#[derive(Clone)]
struct RowKey(Arc<dyn ErasedKey>);

/// `Hash` and `Eq` of a key whose type is not known here.
trait ErasedKey: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn equals(&self, other: &dyn ErasedKey) -> bool;
    fn hash_into(&self, state: &mut dyn Hasher);
}

impl<K: Hash + Eq + Send + Sync + 'static> ErasedKey for K {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn equals(&self, other: &dyn ErasedKey) -> bool {
        other.as_any().downcast_ref::<K>() == Some(self)
    }

    fn hash_into(&self, mut state: &mut dyn Hasher) {
        self.hash(&mut state);
    }
}

impl PartialEq for RowKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.equals(other.0.as_ref())
    }
}

impl Eq for RowKey {}

impl Hash for RowKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash_into(state);
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
        let key =
            |id: &str, error: Option<&str>| Row::new((id.to_string(), error.map(String::from)), || ().into_any()).key;
        assert!(key("a", None) == key("a", None));
        assert!(key("a", None) != key("a", Some("")));
        assert!(key("a\", Some(\"b", None) != key("a", Some("b")));
        // Keys of different types never match, even where their values print alike.
        assert!(Row::new(1_u32, || ().into_any()).key != Row::new(1_u64, || ().into_any()).key);
    }
}
