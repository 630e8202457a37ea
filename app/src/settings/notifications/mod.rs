//! Settings → Notifications: how messages about waiting requests reach the person (their own channels, and
//! this browser's Web Push), and for owners the team's shared channels and the SMTP server e-mail goes
//! through. Sending is warden-notify's; these are the lists and forms.

pub mod channel_form;
pub mod channel_list;
pub mod push;
pub mod section;
pub mod smtp_form;
pub mod state;
