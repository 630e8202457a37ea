//! Long tool results. Above `Config::summarize_results_above` bytes the model does not see a result
//! whole: it sees a summary made once by the run's own model (`summarise`), the ids, URLs, paths and
//! numbers of the result the summary leaves out (`verbatim`), and a handle to page through the whole
//! with `read_result` (`view`). A result that is only cut (longer than `Config::tool_output_limit`, or
//! its summary failed) gets the handle too. The result itself stays stored whole, as the page shows it.

mod summarise;
mod verbatim;
mod view;

pub use summarise::summarise_new;
pub use view::content_for_model;

use crate::config::Config;
use warden_tools::read_result;
use warden_types::run::ToolCallRecord;

/// Whether the model is to see a summary of this call's result (of `text_len` bytes) instead of it.
/// `read_result`'s own slices never are: they are what the model asked to read.
fn wants_summary(call: &ToolCallRecord, text_len: usize, config: &Config) -> bool {
    let above = config.summarize_results_above;
    above > 0 && text_len > above && call.name != read_result::NAME
}
