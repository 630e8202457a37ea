//! Warden's engine: the agent loop, model providers, tools, approvals and the SQLite store.
//! It knows nothing about the UI; `app/` and `server/` are thin layers over it.

pub mod tools;
