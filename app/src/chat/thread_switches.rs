//! The composer's switches for one thread: whether the model is offered tools, whether MCP servers'
//! tools are among them, and the step limit of its runs (blank: the server's default). Real
//! checkboxes and a number field with labels; each change calls back at once and the page stores it.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::model::ThreadOptions;

/// The step limit as typed: blank is the default, anything else must be a whole number.
pub fn parse_step_limit(text: &str) -> Result<Option<u32>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let limits = ThreadOptions::STEP_LIMITS;
    match text.parse::<u32>() {
        Ok(n) if limits.contains(&n) => Ok(Some(n)),
        _ => Err(format!("The step limit is a whole number from {} to {}.", limits.start(), limits.end())),
    }
}

#[component]
pub fn ThreadSwitches(
    #[prop(into)] options: Signal<ThreadOptions>,
    /// The step limit of a thread that sets none.
    #[prop(into)]
    default_max_steps: Signal<u32>,
    on_change: Callback<ThreadOptions>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let tools = move || options.with(|o| o.tools);
    let mcp = move || options.with(|o| o.mcp);
    let steps = move || options.with(|o| o.max_steps.map(|n| n.to_string()).unwrap_or_default());
    let set = move |change: &dyn Fn(&mut ThreadOptions)| {
        let mut next = options.get_untracked();
        change(&mut next);
        if next != options.get_untracked() {
            on_change.run(next);
        }
    };
    let commit_steps = move |text: String| match parse_step_limit(&text) {
        Ok(max_steps) => {
            error.set(None);
            set(&|o| o.max_steps = max_steps);
        }
        Err(message) => error.set(Some(message)),
    };
    // Enter in the field commits it instead of sending the message.
    let on_keydown = move |ev: KeyboardEvent| {
        if ev.key() == "Enter" {
            ev.prevent_default();
            commit_steps(event_target_value(&ev));
        }
    };
    view! {
        <fieldset class="thread-switches">
            <legend class="visually-hidden">"This thread"</legend>
            <label>
                <input type="checkbox" checked=tools prop:checked=tools
                    on:change=move |ev| { let on = event_target_checked(&ev); set(&|o| o.tools = on) }/>
                "Tools"
            </label>
            <label>
                <input type="checkbox" checked=mcp prop:checked=mcp disabled=move || !tools()
                    on:change=move |ev| { let on = event_target_checked(&ev); set(&|o| o.mcp = on) }/>
                "MCP tools"
            </label>
            <label class="step-limit">
                "Step limit"
                <input type="number" min="1" max="100" step="1" inputmode="numeric"
                    placeholder=move || default_max_steps.get().to_string()
                    title=move || format!("Blank: the default ({})", default_max_steps.get())
                    value=steps prop:value=steps
                    on:change=move |ev| commit_steps(event_target_value(&ev))
                    on:keydown=on_keydown/>
            </label>
            {move || error.get().map(|message| view! { <p class="error" role="alert">{message}</p> })}
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::parse_step_limit;

    #[test]
    fn a_step_limit_is_blank_or_a_whole_number_from_1_to_100() {
        assert_eq!(parse_step_limit(" "), Ok(None));
        assert_eq!(parse_step_limit("25"), Ok(Some(25)));
        for bad in ["0", "101", "2.5", "-3", "many"] {
            assert!(parse_step_limit(bad).is_err(), "{bad}");
        }
    }
}
