//! The providers section's shared state, provided as context: the section's ([`SectionUi`]), and each
//! entry's last connection test.

use std::collections::HashMap;

use leptos::prelude::*;
use warden_types::provider::{ProviderEntry, ProviderProbe};

use crate::settings::section_ui::SectionUi;

/// What the last Test connection of an entry or of the form found.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeOutcome {
    Tested(ProviderProbe),
    /// The test could not be made (bad input, unknown entry).
    Refused(String),
}

/// The providers section's shared state (see [`SectionUi`]).
pub type ProvidersUi = SectionUi<ProviderEntry>;

/// Each entry's last connection test, by id: kept apart from the list so it outlives a refetch.
#[derive(Clone, Copy)]
pub struct ProviderProbes(pub RwSignal<HashMap<String, ProbeOutcome>>);
