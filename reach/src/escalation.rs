//! When nobody answers: what to send next about a waiting request, worked out from its escalation chain, when
//! it arrived, the time now and what the delivery log says was sent. Pure (no clock, no I/O), so a test gives
//! it any time it likes.
//!
//! A chain notifies its first group when the request arrives (step 0); each later step goes out once the
//! request has waited its `after`, to its own group (who may then decide it too); reminders repeat the last
//! step sent every `remind_every`, at most `max_reminders` times. When every message sent so far is unopened
//! and delivered, the person did not see it: the next step comes at half its wait (never before the previous
//! step). Not yet wired into the dispatcher (issue 40: escalation is the next piece).

use std::time::{Duration, SystemTime};

/// One later group of a chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// How long after the request arrived this group is notified.
    pub after: Duration,
}

/// A request's escalation chain.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chain {
    /// The groups after the first, in order of their `after`.
    pub steps: Vec<Step>,
    pub remind_every: Option<Duration>,
    pub max_reminders: u32,
}

/// What the delivery log says about a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sent {
    /// The highest step a message went out for (`None`: nothing yet).
    pub last_step: Option<u32>,
    /// When that step went out.
    pub last_step_at: Option<SystemTime>,
    /// Reminders sent since.
    pub reminders: u32,
    /// When the last message (step or reminder) went out.
    pub last_sent_at: Option<SystemTime>,
    /// Whether any message was opened.
    pub any_opened: bool,
}

/// What to do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Notify step `n`'s group (0: the first).
    Step(u32),
    /// Remind the last step's group again.
    Remind,
    /// Nothing now; look again at `at` (`None`: nothing more will be sent).
    Wait(Option<SystemTime>),
}

/// What to send about a request that arrived at `arrived`, at `now`.
pub fn next(chain: &Chain, arrived: SystemTime, now: SystemTime, sent: &Sent) -> Next {
    let Some(last) = sent.last_step else { return Next::Step(0) };
    let mut due: Vec<SystemTime> = Vec::new();
    if let Some(step) = chain.steps.get(last as usize) {
        let wait = if sent.any_opened { step.after } else { step.after / 2 };
        let at = (arrived + wait).max(sent.last_step_at.unwrap_or(arrived));
        if at <= now {
            return Next::Step(last + 1);
        }
        due.push(at);
    }
    if let Some(every) = chain.remind_every.filter(|_| sent.reminders < chain.max_reminders) {
        let at = sent.last_sent_at.unwrap_or(arrived) + every;
        if at <= now {
            return Next::Remind;
        }
        due.push(at);
    }
    Next::Wait(due.into_iter().min())
}

/// Who is on duty at `at` in a rotation of `people` (in order), each on for `shift`, the first from `start`.
/// `None` for a rotation with nobody, a zero shift, or a time before it starts.
pub fn on_duty<T>(people: &[T], start: SystemTime, shift: Duration, at: SystemTime) -> Option<&T> {
    if people.is_empty() || shift.is_zero() {
        return None;
    }
    let since = at.duration_since(start).ok()?;
    let index = (since.as_secs() / shift.as_secs().max(1)) as usize % people.len();
    people.get(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);

    fn chain() -> Chain {
        Chain {
            steps: vec![Step { after: 10 * MIN }, Step { after: 30 * MIN }],
            remind_every: Some(4 * MIN),
            max_reminders: 2,
        }
    }

    fn t(minutes: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(minutes * 60)
    }

    #[test]
    fn the_first_group_at_once_then_each_step_at_its_time_with_reminders_between() {
        let chain = chain();
        assert_eq!(next(&chain, t(0), t(0), &Sent::default()), Next::Step(0));
        let first = Sent {
            last_step: Some(0),
            last_step_at: Some(t(0)),
            last_sent_at: Some(t(0)),
            any_opened: true,
            ..Sent::default()
        };
        assert_eq!(next(&chain, t(0), t(3), &first), Next::Wait(Some(t(4))));
        assert_eq!(next(&chain, t(0), t(4), &first), Next::Remind);
        let reminded = Sent { reminders: 2, last_sent_at: Some(t(8)), ..first };
        assert_eq!(next(&chain, t(0), t(9), &reminded), Next::Wait(Some(t(10))), "two reminders at most");
        assert_eq!(next(&chain, t(0), t(10), &reminded), Next::Step(1));
        let second = Sent {
            last_step: Some(1),
            last_step_at: Some(t(10)),
            reminders: 0,
            last_sent_at: Some(t(10)),
            any_opened: true,
        };
        assert_eq!(next(&chain, t(0), t(30), &second), Next::Step(2));
        let last = Sent {
            last_step: Some(2),
            last_step_at: Some(t(30)),
            reminders: 2,
            last_sent_at: Some(t(38)),
            any_opened: true,
        };
        assert_eq!(next(&chain, t(0), t(600), &last), Next::Wait(None), "the chain is done");
    }

    #[test]
    fn unopened_messages_escalate_at_half_the_wait() {
        let chain = Chain { steps: vec![Step { after: 10 * MIN }], remind_every: None, max_reminders: 0 };
        let unseen = Sent { last_step: Some(0), last_step_at: Some(t(0)), last_sent_at: Some(t(0)), ..Sent::default() };
        assert_eq!(next(&chain, t(0), t(5), &unseen), Next::Step(1));
        assert_eq!(next(&chain, t(0), t(5), &Sent { any_opened: true, ..unseen }), Next::Wait(Some(t(10))));
    }

    #[test]
    fn the_rotation_hands_over_at_each_shift() {
        let people = ["ann", "bea", "cy"];
        let day = Duration::from_secs(24 * 3600);
        assert_eq!(on_duty(&people, t(0), day, t(0)), Some(&"ann"));
        assert_eq!(on_duty(&people, t(0), day, t(24 * 60)), Some(&"bea"));
        assert_eq!(on_duty(&people, t(0), day, t(3 * 24 * 60 + 1)), Some(&"ann"));
        assert_eq!(on_duty(&people, t(10), day, t(0)), None, "before it starts");
        assert_eq!(on_duty::<&str>(&[], t(0), day, t(0)), None);
    }
}
