//! A JSON body extractor whose every rejection (bad syntax, wrong shape, missing content type)
//! is a 422 with a JSON error, as the API promises.

use axum::extract::FromRequest;

use super::error::ApiError;

#[derive(FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct JsonBody<T>(pub T);
