//! `/audit`: every decision on an approval, from Warden's chats and from outside clients, newest
//! first: when, what, and how it was decided. The filter and the page live in the address
//! (`?source=…&outcome=…&decided_by=…&before=…`), so a filtered view can be linked, the form works
//! without script, and the export links download exactly the filtered list.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use crate::audit::row::AuditRowView;
use crate::server_fns::audit::read_audit_log;
use crate::ui::data_table::DataTable;
use crate::ui::error_notice::error_list;
use crate::wording::{decider_label, outcome_label, source_label};
use warden_types::audit::{AuditDecider, AuditFilter, AuditOutcome, AuditPage, AuditQuery, AuditSource};

#[component]
pub fn AuditLogPage() -> impl IntoView {
    let params = use_query_map();
    let query = Memo::new(move |_| {
        params.with(|p| {
            let pick = |name: &str| p.get(name).filter(|v| !v.is_empty());
            AuditQuery {
                source: pick("source").and_then(|v| v.parse().ok()),
                outcome: pick("outcome").and_then(|v| v.parse().ok()),
                decided_by: pick("decided_by").and_then(|v| v.parse().ok()),
                // A `before` that is no position in the log (edited by hand) shows the newest, as an
                // unknown filter value shows all.
                before: pick("before").and_then(|v| v.parse().ok()),
                limit: None,
            }
        })
    });
    let page = Resource::new(move || query.get(), read_audit_log);
    let filter = Memo::new(move |_| query.with(AuditQuery::filter));
    let paged = move || query.with(|q| q.before.is_some());

    view! {
        <Title text="Audit log · Warden"/>
        <div class="audit">
            <h1>"Audit log"</h1>
            <p class="mcp-intro">
                "Every decision on an approval, newest first: by a person, a thread rule, the outside clients' \
                 policy, or a timeout. What a model or an outside client sent is shown as text."
            </p>
            <FilterForm filter/>
            <p class="audit-export">
                "Export this list: "
                <a rel="external" download href=move || export_href("jsonl", &filter.get())>"JSON Lines"</a>
                " · "
                <a rel="external" download href=move || export_href("csv", &filter.get())>"CSV"</a>
            </p>
            <Transition fallback=|| view! { <p class="loading">"Loading the audit log…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        page.await.map(|page| view! { <Entries page filter=filter.get_untracked()/> })
                    })}
                </ErrorBoundary>
            </Transition>
            <Show when=paged>
                <p><a href=move || page_href(&filter.get(), None)>"Back to the newest decisions"</a></p>
            </Show>
        </div>
    }
    .into_any()
}

/// Source, outcome and who decided: a GET form to `/audit`, routed in the browser once hydrated.
#[component]
fn FilterForm(filter: Memo<AuditFilter>) -> impl IntoView {
    // Drawn again when the address changes (back, forward, a link), so it always shows the filter in use.
    move || {
        let current = filter.get();
        view! {
        <Form method="GET" action="/audit">
            <fieldset class="audit-filter">
                <legend>"Filter"</legend>
                <Choice name="source" label="Source" current=current.source.map(AuditSource::as_str)
                    choices=AuditSource::all().map(|s| (s.as_str(), source_label(s))).collect()/>
                <Choice name="outcome" label="Outcome" current=current.outcome.map(AuditOutcome::as_str)
                    choices=AuditOutcome::all().map(|o| (o.as_str(), outcome_label(o))).collect()/>
                <Choice name="decided_by" label="Decided by" current=current.decided_by.map(AuditDecider::as_str)
                    choices=AuditDecider::all().map(|d| (d.as_str(), decider_label(d))).collect()/>
                <button type="submit">"Apply filter"</button>
            </fieldset>
        </Form>
        }
    }
}

#[component]
fn Choice(
    name: &'static str,
    label: &'static str,
    current: Option<&'static str>,
    choices: Vec<(&'static str, &'static str)>,
) -> impl IntoView {
    view! {
        <label>
            {label}
            <select name=name>
                <option value="" selected=current.is_none()>"All"</option>
                {choices
                    .into_iter()
                    .map(|(value, text)| view! { <option value=value selected=current == Some(value)>{text}</option> })
                    .collect_view()}
            </select>
        </label>
    }
}

#[component]
fn Entries(page: AuditPage, filter: AuditFilter) -> impl IntoView {
    if page.rows.is_empty() {
        return view! { <p class="empty">"No decisions match."</p> }.into_any();
    }
    let older = page.next.map(|next| {
        view! { <p><a href=page_href(&filter, Some(&next.to_string()))>"Older decisions"</a></p> }
    });
    view! {
        <DataTable class="audit-log" caption="Decisions, newest first" columns=&["When", "Source", "What", "Outcome", "How"]>
            {page.rows.into_iter().map(|row| view! { <AuditRowView row/> }).collect_view()}
        </DataTable>
        {older}
    }
    .into_any()
}

/// The filter as query pairs (only those set).
fn filter_pairs(filter: &AuditFilter) -> Vec<(&'static str, &'static str)> {
    [
        ("source", filter.source.map(AuditSource::as_str)),
        ("outcome", filter.outcome.map(AuditOutcome::as_str)),
        ("decided_by", filter.decided_by.map(AuditDecider::as_str)),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.map(|v| (name, v)))
    .collect()
}

fn query_string(pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let joined: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect();
    format!("?{}", joined.join("&"))
}

/// Percent-encodes everything but unreserved characters (a cursor is `<time>~<id>`).
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn page_href(filter: &AuditFilter, before: Option<&str>) -> String {
    let mut pairs = filter_pairs(filter);
    if let Some(before) = before {
        pairs.push(("before", before));
    }
    format!("/audit{}", query_string(&pairs))
}

fn export_href(extension: &str, filter: &AuditFilter) -> String {
    format!("/api/audit.{extension}{}", query_string(&filter_pairs(filter)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_carry_the_filter_and_the_cursor_encoded() {
        let filter =
            AuditFilter { source: Some(AuditSource::Outside), outcome: None, decided_by: Some(AuditDecider::Policy) };
        assert_eq!(export_href("csv", &filter), "/api/audit.csv?source=outside&decided_by=policy");
        assert_eq!(export_href("jsonl", &AuditFilter::default()), "/api/audit.jsonl");
        assert_eq!(
            page_href(&filter, Some("2026-01-01T00:00:00.000Z~a b")),
            "/audit?source=outside&decided_by=policy&before=2026-01-01T00%3A00%3A00.000Z~a%20b"
        );
    }
}
