//! Pieces every feature may use: icons, keyed lists, timestamps, notices, the outside request's
//! claims, countdown and decision form, and the keyboard shortcuts' tables. Nothing here imports a feature.

pub mod call_preview;
pub mod clipboard;
pub mod countdown;
pub mod data_table;
pub mod error_notice;
pub mod icon;
pub mod keyed_list;
pub mod outside_claims;
pub mod outside_decision;
pub mod routing;
pub mod shortcuts;
#[cfg(feature = "hydrate")]
pub mod stopped_notice;
pub mod theme;
pub mod timestamp;
pub mod visible_text;
