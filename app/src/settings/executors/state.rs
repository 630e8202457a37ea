//! The executors section's state.

use crate::settings::section_ui::SectionUi;

/// The section's shared state, provided as context. Executors are added and removed, never edited,
/// so the form holds no entry (`Some(None)` is the add form).
pub type ExecutorsUi = SectionUi<()>;
