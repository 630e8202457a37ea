//! Shared helpers for the providers' tests.
#![allow(dead_code)]

pub mod provider_turns;
