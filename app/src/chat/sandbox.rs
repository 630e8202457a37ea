//! The sandbox status of the open thread's server, which the chat page provides and its approval
//! cards read.

use leptos::prelude::*;

use crate::model::SandboxInfo;

/// The sandbox status of the shown thread's server, for approval cards (`None` until it is known).
#[derive(Clone, Copy)]
pub struct SandboxView(pub Memo<Option<SandboxInfo>>);
