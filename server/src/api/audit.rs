//! `/api/audit`: the audit log of every decision, from chats and outside clients
//! (`warden_outside::audit` merges them). One page as JSON, or the whole filtered log as a download in
//! JSON Lines (`/api/audit.jsonl`, entries verbatim) or CSV (`/api/audit.csv`, quoted by the `csv`
//! crate). Downloads are streamed a page at a time, so a long log is never held in memory whole.

use std::str::FromStr;

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{header, HeaderName, HeaderValue};
use axum::Json;
use futures::StreamExt;
use serde::Deserialize;
use warden_engine::Engine;
use warden_outside::audit::{AuditError, AuditLog};
use warden_outside::OutsideHub;
use warden_types::audit::{AuditDecider, AuditEntry, AuditFilter, AuditOutcome, AuditPage, AuditQuery, AuditSource};
use warden_types::cursor::AuditCursor;

use super::error::{ApiError, ApiResult};

/// Entries read from the log per step of a download.
const EXPORT_PAGE: u32 = 500;

/// The CSV columns, in order.
const CSV_HEADER: [&str; 18] = [
    "decided_at",
    "source",
    "outcome",
    "decided_by",
    "how",
    "reason",
    "what",
    "summary",
    "risk",
    "client_name",
    "client_id",
    "thread_id",
    "run_id",
    "id",
    "created_at",
    "code",
    "arguments",
    "edited",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageParams {
    source: Option<String>,
    outcome: Option<String>,
    decided_by: Option<String>,
    /// The `next` of the page before ([`AuditCursor`], `<decided_at>~<id>`).
    before: Option<String>,
    limit: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterParams {
    source: Option<String>,
    outcome: Option<String>,
    decided_by: Option<String>,
}

impl FilterParams {
    /// Empty or `all` means no filter; anything else must be one of the names.
    fn parse(&self) -> ApiResult<AuditFilter> {
        Ok(AuditFilter {
            source: choice("source", self.source.as_deref(), AuditSource::all().map(AuditSource::as_str))?,
            outcome: choice("outcome", self.outcome.as_deref(), AuditOutcome::all().map(AuditOutcome::as_str))?,
            decided_by: choice(
                "decided_by",
                self.decided_by.as_deref(),
                AuditDecider::all().map(AuditDecider::as_str),
            )?,
        })
    }
}

fn choice<T: FromStr>(
    name: &str,
    value: Option<&str>,
    names: impl Iterator<Item = &'static str>,
) -> ApiResult<Option<T>> {
    match value {
        None | Some("") | Some("all") => Ok(None),
        Some(value) => value.parse().map(Some).map_err(|_| {
            ApiError::unprocessable(format!("`{name}` must be one of {}, all", names.collect::<Vec<_>>().join(", ")))
        }),
    }
}

fn log(engine: Engine, outside: OutsideHub) -> AuditLog {
    AuditLog::new(engine, outside)
}

/// `GET /api/audit?source=&outcome=&decided_by=&before=&limit=`: one page, newest decision first,
/// with `next` to pass as `before` for the page after.
pub async fn page(
    State(engine): State<Engine>,
    State(outside): State<OutsideHub>,
    Query(p): Query<PageParams>,
) -> ApiResult<Json<AuditPage>> {
    let filter = FilterParams { source: p.source, outcome: p.outcome, decided_by: p.decided_by }.parse()?;
    let query = AuditQuery {
        source: filter.source,
        outcome: filter.outcome,
        decided_by: filter.decided_by,
        before: AuditCursor::param(p.before.as_deref())?,
        limit: p.limit,
    };
    Ok(Json(log(engine, outside).page(&query).await?))
}

/// `GET /api/audit.jsonl`: the filtered log, one JSON object a line, newest first.
pub async fn jsonl(
    State(engine): State<Engine>,
    State(outside): State<OutsideHub>,
    Query(p): Query<FilterParams>,
) -> ApiResult<Download> {
    download(log(engine, outside), p.parse()?, Format::JsonLines).await
}

/// `GET /api/audit.csv`: the filtered log as CSV with a header row, newest first.
pub async fn csv(
    State(engine): State<Engine>,
    State(outside): State<OutsideHub>,
    Query(p): Query<FilterParams>,
) -> ApiResult<Download> {
    download(log(engine, outside), p.parse()?, Format::Csv).await
}

/// A download: its type, name and caching headers, and the body streamed a page at a time.
type Download = ([(HeaderName, HeaderValue); 3], Body);

#[derive(Clone, Copy)]
enum Format {
    JsonLines,
    Csv,
}

impl Format {
    fn content_type(self) -> &'static str {
        match self {
            Format::JsonLines => "application/jsonl; charset=utf-8",
            Format::Csv => "text/csv; charset=utf-8",
        }
    }

    fn file_name(self) -> &'static str {
        match self {
            Format::JsonLines => "warden-audit.jsonl",
            Format::Csv => "warden-audit.csv",
        }
    }
}

/// The first page is read before the answer starts, so a failure there is a proper error status;
/// a failure later ends the body abruptly (the client sees a broken download, not a short file).
async fn download(log: AuditLog, filter: AuditFilter, format: Format) -> ApiResult<Download> {
    let (first, next) = log.entries(&filter, None, EXPORT_PAGE).await?;
    let mut head = match format {
        Format::Csv => encode_csv_header()?,
        Format::JsonLines => Vec::new(),
    };
    head.extend(encode(&first, format)?);
    let rest = futures::stream::try_unfold(next, move |next| {
        let (log, filter) = (log.clone(), filter.clone());
        async move {
            let Some(cursor) = next else { return Ok(None) };
            let (entries, next) = log.entries(&filter, Some(&cursor), EXPORT_PAGE).await.map_err(broken)?;
            Ok::<_, std::io::Error>(Some((Bytes::from(encode(&entries, format).map_err(broken)?), next)))
        }
    });
    let body = futures::stream::once(async move { Ok(Bytes::from(head)) }).chain(rest);
    let disposition = format!("attachment; filename=\"{}\"", format.file_name());
    Ok((
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(format.content_type())),
            (header::CONTENT_DISPOSITION, HeaderValue::from_str(&disposition).map_err(|e| ApiError::internal(&e))?),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        Body::from_stream(body),
    ))
}

/// A failure after the answer started: logged, and the body ends with an error.
fn broken(error: impl std::fmt::Display) -> std::io::Error {
    let error_id = warden_db::new_id();
    tracing::error!(error_id = %error_id, error = %error, "audit export failed part way");
    std::io::Error::other(format!("audit export failed (error id {error_id})"))
}

fn encode(entries: &[AuditEntry], format: Format) -> Result<Vec<u8>, EncodeError> {
    match format {
        Format::JsonLines => {
            let mut out = Vec::new();
            for entry in entries {
                serde_json::to_writer(&mut out, entry)?;
                out.push(b'\n');
            }
            Ok(out)
        }
        Format::Csv => {
            let mut writer = csv::Writer::from_writer(Vec::new());
            for entry in entries {
                writer.write_record(csv_record(entry).iter().map(|cell| defuse(cell).into_owned()))?;
            }
            writer.into_inner().map_err(|e| EncodeError::Io(e.into_error()))
        }
    }
}

fn encode_csv_header() -> Result<Vec<u8>, EncodeError> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(CSV_HEADER)?;
    writer.into_inner().map_err(|e| EncodeError::Io(e.into_error()))
}

/// Writing an entry failed (into memory: not expected, but not assumed impossible either).
#[derive(Debug, thiserror::Error)]
enum EncodeError {
    #[error("CSV: {0}")]
    Csv(#[from] csv::Error),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Io(std::io::Error),
}

impl From<EncodeError> for ApiError {
    fn from(e: EncodeError) -> Self {
        ApiError::internal(&e)
    }
}

/// An entry's cells in [`CSV_HEADER`]'s order; JSON values as compact JSON, edited code as text.
fn csv_record(e: &AuditEntry) -> [String; 18] {
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let edited = match &e.edited {
        None => String::new(),
        Some(serde_json::Value::String(code)) => code.clone(),
        Some(other) => other.to_string(),
    };
    [
        e.decided_at.clone(),
        e.source.as_str().to_string(),
        e.outcome.as_str().to_string(),
        e.decided_by.as_str().to_string(),
        e.how.clone(),
        text(&e.reason),
        e.what.clone(),
        e.summary.clone(),
        text(&e.risk),
        text(&e.client_name),
        text(&e.client_id.as_ref().map(ToString::to_string)),
        text(&e.thread_id.as_ref().map(ToString::to_string)),
        text(&e.run_id.as_ref().map(ToString::to_string)),
        e.id.clone(),
        e.created_at.clone(),
        text(&e.code),
        e.arguments.to_string(),
        edited,
    ]
}

/// A cell a spreadsheet would read as a formula (text from a model or a client can start with
/// `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, so opening the export
/// never runs it. The JSON Lines export keeps every value verbatim.
fn defuse(cell: &str) -> std::borrow::Cow<'_, str> {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{cell}").into(),
        _ => cell.into(),
    }
}

impl From<AuditError> for ApiError {
    fn from(e: AuditError) -> Self {
        Self::of_kind(e.kind(), e.code(), &e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_that_would_be_a_formula_is_defused_and_others_are_kept() {
        assert_eq!(defuse("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(defuse("-1+1"), "'-1+1");
        assert_eq!(defuse("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(defuse("ls -la, then \"rm\""), "ls -la, then \"rm\"");
        assert_eq!(defuse(""), "");
    }

    #[test]
    fn an_unknown_filter_value_is_refused_with_the_names_it_may_be() {
        let params = FilterParams { source: Some("elsewhere".into()), outcome: None, decided_by: None };
        let error = params.parse().unwrap_err();
        assert_eq!(error.status(), axum::http::StatusCode::UNPROCESSABLE_ENTITY);
        let params = FilterParams { source: Some("all".into()), outcome: Some(String::new()), decided_by: None };
        assert_eq!(params.parse().unwrap(), AuditFilter::default());
    }
}
