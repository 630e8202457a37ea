//! Turning a call's JSON arguments into a tool's typed argument struct. The registry has already
//! checked them against the schema, so a failure here is still reported, never a panic.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::ToolError;

pub(crate) fn parse<T: DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(|err| ToolError::InvalidArguments(err.to_string()))
}

/// For the synchronous trait methods (risk, summary) that must answer even for bad arguments.
pub(crate) fn peek<T: DeserializeOwned>(args: &Value) -> Option<T> {
    T::deserialize(args).ok()
}
