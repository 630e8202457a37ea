//! The tables of records the pages list (signed-in browsers, outside clients, MCP tools, the audit
//! log): a caption, one header cell a column, and the rows the caller draws.

use leptos::prelude::*;

#[component]
pub fn DataTable(
    /// The table's class, for its styles.
    class: &'static str,
    #[prop(into)] caption: String,
    /// Kept for screen readers only, where the section's heading already says it.
    #[prop(optional)]
    hidden_caption: bool,
    /// The columns' headers, in order.
    columns: &'static [&'static str],
    /// The rows (`<tr>`s).
    children: Children,
) -> impl IntoView {
    view! {
        <table class=class>
            <caption class=hidden_caption.then_some("visually-hidden")>{caption}</caption>
            <thead>
                <tr>{columns.iter().map(|column| view! { <th scope="col">{*column}</th> }).collect_view()}</tr>
            </thead>
            <tbody>{children()}</tbody>
        </table>
    }
}
