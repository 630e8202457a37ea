//! What each route asks of the person calling it, checked after the gate (`middleware::guard`) has found who
//! asks. Routes are added only through [`Routes`], which takes a [`Need`] with every handler, so a route
//! without a rule does not compile, and the list of rules is what the role tests walk.

use axum::extract::Request;
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::middleware::{from_fn, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use warden_people::Asker;
use warden_types::person::Role;

use crate::api::ApiError;

/// What a route asks of the person calling it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Nobody: open on an allowed host (`/api/health`).
    Public,
    /// An outside client with its own token (the route checks it); no person.
    OutsideClient,
    /// Any signed-in person: reads, answered with what they may see.
    SignedIn,
    /// Starting and steering threads and runs: every role but viewer.
    Chat,
    /// Deciding a request routed to them: owners and approvers.
    Decide,
    /// People, providers, MCP servers, outside clients and executors, policies, the audit log: owners.
    Manage,
}

impl Need {
    /// Whether a person of `role` may call a route that needs this.
    pub fn allows(self, role: Role) -> bool {
        match self {
            Need::Public | Need::OutsideClient | Need::SignedIn => true,
            Need::Chat => role.chats(),
            Need::Decide => role.decides(),
            Need::Manage => role.manages(),
        }
    }

    /// Who may, in words, for the refusal.
    fn who(self) -> &'static str {
        match self {
            Need::Public | Need::OutsideClient | Need::SignedIn => "anyone signed in",
            Need::Chat => "owners, approvers and members",
            Need::Decide => "owners and approvers",
            Need::Manage => "owners",
        }
    }
}

/// One route's rule, as the role tests list them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteRule {
    /// `None`: every method (the route answers each itself).
    pub method: Option<Method>,
    /// The route's path as axum matches it (`{id}` for a parameter).
    pub path: &'static str,
    pub need: Need,
}

/// A router whose every route was added with its rule.
pub struct Routes<S> {
    router: Router<S>,
    rules: Vec<RouteRule>,
}

impl<S: Clone + Send + Sync + 'static> Default for Routes<S> {
    fn default() -> Self {
        Self { router: Router::new(), rules: Vec::new() }
    }
}

impl<S: Clone + Send + Sync + 'static> Routes<S> {
    /// Adds `handler` for `method` at `path`, reachable only by people `need` allows.
    pub fn add<H, T>(self, method: Method, path: &'static str, need: Need, handler: H) -> Self
    where
        H: Handler<T, S>,
        T: 'static,
    {
        let route = match MethodFilter::try_from(method.clone()) {
            Ok(filter) => on(filter, handler),
            // Methods without a filter (CONNECT, extensions) are not routes Warden has.
            Err(_) => return self,
        };
        self.push(method, path, need, route)
    }

    /// Adds `handler` for every method at `path` (a protocol endpoint that answers each method itself).
    pub fn any<H: Handler<T, S>, T: 'static>(mut self, path: &'static str, need: Need, handler: H) -> Self {
        // `any` routes through the method router's fallback, which only `layer` (not `route_layer`) wraps.
        let route = axum::routing::any(handler)
            .layer(from_fn(move |request: Request, next: Next| require(need, request, next)));
        self.router = self.router.route(path, route);
        self.rules.push(RouteRule { method: None, path, need });
        self
    }

    fn push(mut self, method: Method, path: &'static str, need: Need, route: MethodRouter<S>) -> Self {
        let route = route.route_layer(from_fn(move |request: Request, next: Next| require(need, request, next)));
        self.router = self.router.route(path, route);
        self.rules.push(RouteRule { method: Some(method), path, need });
        self
    }

    pub fn get<H: Handler<T, S>, T: 'static>(self, path: &'static str, need: Need, handler: H) -> Self {
        self.add(Method::GET, path, need, handler)
    }

    pub fn post<H: Handler<T, S>, T: 'static>(self, path: &'static str, need: Need, handler: H) -> Self {
        self.add(Method::POST, path, need, handler)
    }

    pub fn put<H: Handler<T, S>, T: 'static>(self, path: &'static str, need: Need, handler: H) -> Self {
        self.add(Method::PUT, path, need, handler)
    }

    pub fn patch<H: Handler<T, S>, T: 'static>(self, path: &'static str, need: Need, handler: H) -> Self {
        self.add(Method::PATCH, path, need, handler)
    }

    pub fn delete<H: Handler<T, S>, T: 'static>(self, path: &'static str, need: Need, handler: H) -> Self {
        self.add(Method::DELETE, path, need, handler)
    }

    pub fn rules(&self) -> &[RouteRule] {
        &self.rules
    }

    pub fn into_router(self) -> Router<S> {
        self.router
    }
}

/// Lets the request through if the person the gate found may call a route that needs `need`.
async fn require(need: Need, request: Request, next: Next) -> Response {
    if matches!(need, Need::Public | Need::OutsideClient) {
        return next.run(request).await;
    }
    let Some(asker) = request.extensions().get::<Asker>() else {
        return ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", "sign in first").into_response();
    };
    if need.allows(asker.role()) {
        return next.run(request).await;
    }
    refused(need, asker.role()).into_response()
}

/// A person whose role does not reach a route: a 403 that names their role and who may.
pub fn refused(need: Need, role: Role) -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "role_not_allowed",
        format!("your role ({}) may not do this: only {} may", role.label().to_lowercase(), need.who()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_need_admits_exactly_its_roles() {
        let admitted = |need: Need| Role::ALL.into_iter().filter(|r| need.allows(*r)).collect::<Vec<_>>();
        assert_eq!(admitted(Need::SignedIn), Role::ALL.to_vec());
        assert_eq!(admitted(Need::Chat), vec![Role::Owner, Role::Approver, Role::Member]);
        assert_eq!(admitted(Need::Decide), vec![Role::Owner, Role::Approver]);
        assert_eq!(admitted(Need::Manage), vec![Role::Owner]);
    }
}
