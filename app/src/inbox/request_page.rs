//! `/approvals/{id}`: one outside request full screen (the seed's `/messages/:id`), with its code
//! highlighted on the server, its explanation and output, and the decision. Rendered whole before
//! it is sent, so an unknown request is answered with 404.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::inbox::request_view::OutsideRequestView;
use crate::server_fns::inbox::get_outside_request;
use crate::ui::countdown::Clock;
use crate::ui::error_notice::error_list;

#[component]
pub fn OutsideApprovalPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let request = Resource::new(move || id.get().into(), get_outside_request);
    let clock = Clock::start();
    view! {
        <Title text="Approval · Warden"/>
        <section class="page approval-full">
            <p class="back"><a href="/inbox">"Back to the inbox"</a></p>
            <Transition fallback=|| view! { <p class="loading">"Loading the request…"</p> }>
                <ErrorBoundary fallback=error_list>
                    {move || Suspend::new(async move {
                        request.await.map(|data| view! { <OutsideRequestView data clock/> })
                    })}
                </ErrorBoundary>
            </Transition>
        </section>
    }
}
