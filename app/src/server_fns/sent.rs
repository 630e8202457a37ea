//! What was sent about a request away from the app, to whom, and what became of it (the inbox's "Notified"
//! list): for those who may read the request (its thread, or the outside request), else not found.

use leptos::prelude::*;
use leptos::server_fn::codec::Json;
use warden_types::notification::NotificationRecord;

use crate::error::AppError;
use crate::model::inbox::item::ItemKey;

#[server(input = Json, output = Json)]
pub async fn sent_notifications(key: ItemKey) -> Result<Vec<NotificationRecord>, AppError> {
    use warden_types::notification::RequestRef;

    let reach = use_context::<warden_reach::Reach>()
        .ok_or_else(|| AppError::internal("the delivery log was not provided as Leptos context"))?;
    let request = match key {
        ItemKey::Chat(id) => {
            let id = warden_types::id::ApprovalId::from(id);
            super::engine()?.as_reader(&super::asker::reader()?).approval(&id).await?;
            RequestRef::Approval(id)
        }
        ItemKey::Outside(id) => {
            let id = warden_types::id::OutsideRequestId::from(id);
            let hub = super::outside::hub()?;
            hub.request_as(&id, &super::asker::asker()?.acting()).await?;
            RequestRef::Outside(id)
        }
        ItemKey::Check(_) => return Ok(Vec::new()),
    };
    reach.deliveries.for_request(&request).await.map_err(|e| AppError::internal(e.to_string()))
}
