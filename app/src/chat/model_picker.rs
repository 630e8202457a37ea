//! The composer's model picker: "Default (…)" and every configured provider's models as
//! "<provider> · <model>", with the thread's choice selected (rendered on the server, so it is right
//! before the page is interactive). Choosing one calls back at once; the page stores it.

use leptos::prelude::*;

use warden_types::provider::{ModelChoice, ProviderList};

/// One entry of the picker.
#[derive(Debug, Clone, PartialEq)]
pub struct PickerOption {
    pub label: String,
    /// `None`: the default.
    pub choice: Option<ModelChoice>,
}

/// "<provider name> · <model>", with the provider's id when it is not (or no longer) listed.
pub fn describe(list: &ProviderList, choice: &ModelChoice) -> String {
    let name =
        list.entries.iter().find(|e| e.id == choice.provider_id).map_or(choice.provider_id.as_str(), |e| &e.name);
    format!("{name} · {}", choice.model)
}

/// The picker's entries: the default first, then each provider's models; a current choice the list
/// does not offer (a model set another way) is added last so it still shows as chosen.
pub fn options(list: &ProviderList, current: Option<&ModelChoice>) -> Vec<PickerOption> {
    let default = match &list.default {
        Some(choice) => format!("Default ({})", describe(list, choice)),
        None => "Default (none configured)".to_string(),
    };
    let mut options = vec![PickerOption { label: default, choice: None }];
    for entry in &list.entries {
        for model in entry.choosable_models() {
            let choice = ModelChoice { provider_id: entry.id.clone(), model };
            options.push(PickerOption { label: describe(list, &choice), choice: Some(choice) });
        }
    }
    if let Some(current) = current.filter(|c| !options.iter().any(|o| o.choice.as_ref() == Some(*c))) {
        options.push(PickerOption { label: describe(list, current), choice: Some(current.clone()) });
    }
    options
}

/// Where the current choice is among `options` (the default when it is `None`).
pub fn selected_index(options: &[PickerOption], current: Option<&ModelChoice>) -> usize {
    options.iter().position(|o| o.choice.as_ref() == current).unwrap_or(0)
}

#[component]
pub fn ModelPicker(
    list: ProviderList,
    /// The thread's choice (`None`: the default).
    #[prop(into)]
    current: Signal<Option<ModelChoice>>,
    on_change: Callback<Option<ModelChoice>>,
) -> impl IntoView {
    // No reactive value is read inside another's `with`: a memo brought up to date there takes a write
    // lock on what the outer `with` holds for reading, and the render deadlocks (seen on the server).
    let entries = Memo::new(move |_| options(&list, current.get().as_ref()));
    let selected = Memo::new(move |_| {
        let choice = current.get();
        entries.with(|o| selected_index(o, choice.as_ref()))
    });
    let title = move || {
        let index = selected.get();
        entries.with(|o| o.get(index).map(|o| o.label.clone()).unwrap_or_default())
    };
    let change = move |ev: leptos::ev::Event| {
        let index: Option<usize> = event_target_value(&ev).parse().ok();
        if let Some(option) = index.and_then(|i| entries.with_untracked(|o| o.get(i).cloned())) {
            on_change.run(option.choice);
        }
    };
    view! {
        <label class="model-picker">
            <span class="visually-hidden">"Model"</span>
            <select title=title prop:value=move || selected.get().to_string() on:change=change>
                {move || {
                    entries
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, option)| {
                            view! { <option value=i.to_string() selected=move || selected.get() == i>{option.label}</option> }
                        })
                        .collect_view()
                }}
            </select>
        </label>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warden_types::provider::{ProviderEntry, ProviderKind};

    fn entry(id: &str, name: &str, default_model: &str, models: &[&str]) -> ProviderEntry {
        ProviderEntry {
            id: id.into(),
            name: name.into(),
            kind: ProviderKind::OpenaiCompatible,
            base_url: "http://127.0.0.1:1/v1".into(),
            key: None,
            default_model: default_model.into(),
            models: models.iter().map(|m| m.to_string()).collect(),
            text_tool_calls: false,
            read_only: false,
            source: None,
        }
    }

    fn list() -> ProviderList {
        ProviderList {
            entries: vec![entry("env-openai", "Env", "fixture", &[]), entry("p1", "Work", "big", &["small", "big"])],
            default: Some(ModelChoice { provider_id: "env-openai".into(), model: "fixture".into() }),
        }
    }

    fn choice(provider_id: &str, model: &str) -> ModelChoice {
        ModelChoice { provider_id: provider_id.into(), model: model.into() }
    }

    #[test]
    fn the_default_comes_first_then_each_providers_models_with_its_default_first() {
        let labels: Vec<String> = options(&list(), None).into_iter().map(|o| o.label).collect();
        assert_eq!(labels, ["Default (Env · fixture)", "Env · fixture", "Work · big", "Work · small"]);
    }

    #[test]
    fn the_current_choice_is_selected_and_one_not_offered_is_still_shown() {
        let current = choice("p1", "small");
        let offered = options(&list(), Some(&current));
        assert_eq!(selected_index(&offered, Some(&current)), 3);
        assert_eq!(selected_index(&offered, None), 0);
        let odd = choice("p1", "typed-elsewhere");
        let shown = options(&list(), Some(&odd));
        assert_eq!(shown.len(), offered.len() + 1);
        assert_eq!(shown[selected_index(&shown, Some(&odd))].label, "Work · typed-elsewhere");
    }

    #[test]
    fn without_any_provider_the_default_says_so() {
        let empty = ProviderList { entries: vec![], default: None };
        assert_eq!(options(&empty, None)[0].label, "Default (none configured)");
    }
}
