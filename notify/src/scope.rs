//! Whose channels a person reaches, for the routes and server functions that manage them: their own, and the
//! shared ones when they manage this Warden (owners). Anything else is `NotFound` (another person's channel is
//! not there for them); making a shared channel without managing is `Forbidden`.

use warden_types::channel::{ChannelCreated, ChannelInput, ChannelView, TestResult};
use warden_types::id::{ChannelId, PersonId};

use crate::channel::{Channel, ChannelOwner};
use crate::error::{Error, Result};
use crate::notice::Notice;
use crate::send::Notifier;

/// The person asking, and whether their role manages this Warden (owners).
#[derive(Debug, Clone)]
pub struct Scope {
    pub person: PersonId,
    /// Their name as messages say it ("Ann (owner)").
    pub named: String,
    pub manages: bool,
}

impl Scope {
    fn reaches(&self, channel: &Channel) -> bool {
        match &channel.owner {
            ChannelOwner::Person(id) => *id == self.person,
            ChannelOwner::Shared => self.manages,
        }
    }

    fn owner(&self, shared: bool) -> Result<ChannelOwner> {
        match (shared, self.manages) {
            (false, _) => Ok(ChannelOwner::Person(self.person.clone())),
            (true, true) => Ok(ChannelOwner::Shared),
            (true, false) => Err(Error::Forbidden("only owners make and change shared channels".into())),
        }
    }
}

impl Notifier {
    /// `scope`'s own channels.
    pub async fn own_channels(&self, scope: &Scope) -> Result<Vec<ChannelView>> {
        Ok(self.channels().list_for(&scope.person).await?.iter().map(Channel::view).collect())
    }

    /// The shared channels (owners only).
    pub async fn shared_channels(&self, scope: &Scope) -> Result<Vec<ChannelView>> {
        scope.owner(true)?;
        Ok(self.channels().list_shared().await?.iter().map(Channel::view).collect())
    }

    /// The channel `id` if `scope` reaches it.
    pub async fn channel_for(&self, scope: &Scope, id: &ChannelId) -> Result<Channel> {
        let channel = self.channels().get(id).await?;
        if !scope.reaches(&channel) {
            return Err(Error::NotFound(id.to_string()));
        }
        Ok(channel)
    }

    /// Adds a channel of `scope`'s own, or a shared one (owners).
    pub async fn add_channel(&self, scope: &Scope, shared: bool, input: &ChannelInput) -> Result<ChannelCreated> {
        let owner = scope.owner(shared)?;
        let (channel, secret) = self.channels().create(&owner, &scope.person, input).await?;
        Ok(ChannelCreated { channel: channel.view(), secret })
    }

    /// Changes a channel `scope` reaches.
    pub async fn change_channel(&self, scope: &Scope, id: &ChannelId, input: &ChannelInput) -> Result<ChannelCreated> {
        let channel = self.channel_for(scope, id).await?;
        let (channel, secret) = self.channels().update(&channel.owner, id, input).await?;
        Ok(ChannelCreated { channel: channel.view(), secret })
    }

    /// Removes a channel `scope` reaches.
    pub async fn remove_channel(&self, scope: &Scope, id: &ChannelId) -> Result<()> {
        let channel = self.channel_for(scope, id).await?;
        self.channels().delete(&channel.owner, id).await
    }

    /// "Send a test": a `Test` notice to a channel `scope` reaches, linking to `link`; the channel's answer or
    /// the error is kept as its last test and answered.
    pub async fn test_channel(&self, scope: &Scope, id: &ChannelId, link: &str) -> Result<TestResult> {
        let channel = self.channel_for(scope, id).await?;
        let notice = Notice::test(&scope.named, link);
        let (ok, detail) = match self.send(&channel, &notice).await {
            Ok(delivery) => (true, delivery.detail),
            Err(crate::SendError::Store(e)) => return Err(e),
            Err(e) => (false, e.to_string()),
        };
        let stored = self.channels().set_test_result(id, ok, &detail).await?;
        stored.last_test.ok_or_else(|| Error::NotFound(id.to_string()))
    }

    /// Registers this browser's push subscription as `scope`'s channel (the same endpoint again replaces it).
    pub async fn add_push(
        &self,
        scope: &Scope,
        name: &str,
        endpoint: &str,
        p256dh: &str,
        auth: &str,
    ) -> Result<ChannelView> {
        self.channels().delete_push(&scope.person, endpoint).await?;
        let input = ChannelInput {
            name: name.into(),
            config: warden_types::channel::ChannelConfig::WebPush {
                endpoint: endpoint.into(),
                p256dh: p256dh.into(),
                auth: auth.into(),
            },
        };
        Ok(self.add_channel(scope, false, &input).await?.channel)
    }

    /// Removes `scope`'s push channel for `endpoint` ("stop" on that browser); whether there was one.
    pub async fn remove_push(&self, scope: &Scope, endpoint: &str) -> Result<bool> {
        self.channels().delete_push(&scope.person, endpoint).await
    }

    /// "Send a test mail to me": a `Test` notice to `address` through the SMTP server in use (owners).
    pub async fn test_smtp(&self, scope: &Scope, address: &str, link: &str) -> Result<TestResult> {
        scope.owner(true)?;
        crate::validate::email(address)?;
        let at = warden_db::timestamp::now();
        Ok(match self.send_mail(address, &Notice::test(&scope.named, link)).await {
            Ok(delivery) => TestResult { at, ok: true, detail: delivery.detail },
            Err(crate::SendError::Store(e)) => return Err(e),
            Err(e) => TestResult { at, ok: false, detail: e.to_string() },
        })
    }
}
