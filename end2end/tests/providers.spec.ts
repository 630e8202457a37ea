// Model providers: one added in Settings (an OpenAI-compatible one pointing at the fixture model) is
// tested, shows its key only masked, is picked for a thread in the composer and answers it (the
// fixture's `echo_model` turn says which model was asked), and the choice survives a reload. The
// thread's switches: with tools off the model is offered none (`echo_tool_count`).
import { expect, test, type Page } from "@playwright/test";
import { KEYED_MODEL_KEY, KEYED_MODEL_PORT } from "../fixtures/models";
import { answer, openHydrated, startChat, watchForTrouble } from "./helpers";

// The fixture model that answers only with its key: a key lost or garbled on the way fails here.
const fixtureAddress = `http://127.0.0.1:${KEYED_MODEL_PORT}/v1`;
const ENV_ENTRY = "OpenAI-compatible (environment)";

/** A provider's card in Settings. */
function providerCard(page: Page, name: string) {
  return page.getByRole("region", { name, exact: true });
}

/** The composer's model picker. */
function modelPicker(page: Page) {
  return page.getByRole("combobox", { name: "Model" });
}

/** Adds an OpenAI-compatible provider at the fixture from Settings and saves it. */
async function addProvider(page: Page, name: string, key: string, model: string): Promise<void> {
  await openHydrated(page, "/settings");
  await page.getByRole("button", { name: "Add provider" }).click();
  const form = page.getByRole("form", { name: "Add provider" });
  await form.getByRole("textbox", { name: "Name" }).fill(name);
  await form.getByRole("textbox", { name: "Address" }).fill(fixtureAddress);
  await form.getByLabel("API key").fill(key);
  await form.getByRole("textbox", { name: "Default model" }).fill(model);
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form).toHaveCount(0);
  await expect(providerCard(page, name)).toBeVisible();
}

test("a provider added in Settings is tested, picked for a thread, answers it, and stays picked", async ({ page }) => {
  const trouble = watchForTrouble(page);
  const key = KEYED_MODEL_KEY;
  await openHydrated(page, "/settings");
  await expect(page.getByRole("heading", { name: "Model providers" })).toBeVisible();

  // The environment's provider is shown, read-only, with where it comes from.
  const envCard = providerCard(page, ENV_ENTRY);
  await expect(envCard).toContainText("Read-only: from OPENAI_BASE_URL");
  await expect(envCard.getByRole("button", { name: "Edit" })).toHaveCount(0);
  await expect(envCard.getByRole("button", { name: "Remove" })).toHaveCount(0);

  // The form offers each kind's public address; the key is a password field, never autofilled.
  await page.getByRole("button", { name: "Add provider" }).click();
  const form = page.getByRole("form", { name: "Add provider" });
  const kind = form.getByRole("combobox", { name: "Kind" });
  const address = form.getByRole("textbox", { name: "Address" });
  await expect(address).toHaveValue("https://api.openai.com/v1");
  await kind.selectOption({ label: "Anthropic" });
  await expect(address).toHaveValue("https://api.anthropic.com");
  await expect(form.getByRole("checkbox", { name: /No native tool calling/ })).toHaveCount(0);
  await kind.selectOption({ label: "OpenAI-compatible" });
  await expect(address).toHaveValue("https://api.openai.com/v1");
  await expect(form.getByRole("checkbox", { name: "No native tool calling (tools described in the prompt)" })).not.toBeChecked();
  const keyField = form.getByLabel("API key");
  await expect(keyField).toHaveAttribute("type", "password");
  await expect(keyField).toHaveAttribute("autocomplete", "off");
  await expect(keyField).toHaveValue("");

  await form.getByRole("textbox", { name: "Name" }).fill("E2E provider");
  await address.fill(fixtureAddress);
  await keyField.fill(key);
  await form.getByRole("textbox", { name: "Default model" }).fill("e2e-distinct-model");

  // A wrong key is refused by the provider, and the test says so.
  await keyField.fill(`${key}-wrong`);
  await form.getByRole("button", { name: "Test connection" }).click();
  await expect(form.getByRole("alert", { name: "Connection test result" })).toContainText(
    "The model server answered 401 Unauthorized: Incorrect API key provided.",
  );
  await keyField.fill(key);

  // Tested as entered, before it is saved: the fixture lists its model.
  await form.getByRole("button", { name: "Test connection" }).click();
  const tested = form.getByRole("region", { name: "Connection test result" });
  await expect(tested).toContainText("Connection works.");
  await expect(tested.getByRole("listitem")).toHaveText(["fixture-model"]);
  await expect(providerCard(page, "E2E provider")).toHaveCount(0);

  await form.getByRole("button", { name: "Save" }).click();
  await expect(form).toHaveCount(0);
  const card = providerCard(page, "E2E provider");
  await expect(card).toContainText("OpenAI-compatible");
  await expect(card).toContainText(fixtureAddress);
  await expect(card).toContainText("••••4242");
  await expect(card).toContainText("e2e-distinct-model");
  await expect(card).not.toContainText(key);

  // Tested as saved: ok, with the models found, which the entry now counts.
  await card.getByRole("button", { name: "Test connection" }).click();
  const probe = card.getByRole("region", { name: "Connection test of E2E provider" });
  await expect(probe).toContainText("Connection works.");
  await expect(probe.getByRole("listitem")).toHaveText(["fixture-model"]);
  await expect(providerCard(page, "E2E provider")).toContainText("1 model listed");

  // The key is in no page: neither what the server renders nor what the browser holds.
  expect(await (await page.request.get("/settings")).text()).not.toContain(key);
  expect(await page.content()).not.toContain(key);

  // A thread starts on the default model, then is switched to the new provider in the composer.
  await startChat(page, "which model answers by default?");
  await expect(answer(page, "Answered by model=fixture")).toBeVisible();
  const picker = modelPicker(page);
  await expect(picker.locator("option:checked")).toHaveText(`Default (${ENV_ENTRY} · fixture)`);
  await expect(picker.locator("option")).toContainText(["E2E provider · e2e-distinct-model", "E2E provider · fixture-model"]);
  await picker.selectOption({ label: "E2E provider · e2e-distinct-model" });
  await expect(picker.locator("option:checked")).toHaveText("E2E provider · e2e-distinct-model");

  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("which model answers now?");
  await box.press("Enter");
  await expect(answer(page, "Answered by model=e2e-distinct-model")).toBeVisible();
  expect(await page.content()).not.toContain(key);

  // After a reload the choice is still selected, already in what the server renders.
  const url = page.url();
  const html = await (await page.request.get(url)).text();
  expect(html).toMatch(/<option[^>]*selected[^>]*>(?:<!--[^>]*-->)*E2E provider · e2e-distinct-model/);
  expect(html).not.toContain(key);
  await openHydrated(page, url);
  await expect(modelPicker(page).locator("option:checked")).toHaveText("E2E provider · e2e-distinct-model");
  await expect(answer(page, "Answered by model=e2e-distinct-model")).toBeVisible();
  expect(trouble.errors).toEqual([]);
});

test("a thread started from the welcome page with a provider picked is answered by it", async ({ page }) => {
  await addProvider(page, "Welcome provider", KEYED_MODEL_KEY, "welcome-model");
  await openHydrated(page, "/");
  await modelPicker(page).selectOption({ label: "Welcome provider · welcome-model" });
  const box = page.getByRole("textbox", { name: "Your prompt" });
  await box.fill("which model answers the welcome page?");
  await box.press("Enter");
  await page.waitForURL(/\/chat\/[^/]+$/);
  await expect(answer(page, "Answered by model=welcome-model")).toBeVisible();
  await expect(modelPicker(page).locator("option:checked")).toHaveText("Welcome provider · welcome-model");
});

test("with tools switched off the model is offered none, and the switches survive a reload", async ({ page }) => {
  await startChat(page, "which model answers with tools?");
  await expect(answer(page, "Answered by model=fixture")).toContainText(/tools=[1-9]\d*/);

  const tools = page.getByRole("checkbox", { name: "Tools", exact: true });
  const mcp = page.getByRole("checkbox", { name: "MCP tools" });
  await expect(tools).toBeChecked();
  await expect(mcp).toBeEnabled();
  await tools.uncheck();
  await expect(mcp).toBeDisabled();

  // Enter in the step limit field sets it; it does not send what is in the message box.
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill("which model answers without tools?");
  const steps = page.getByRole("spinbutton", { name: "Step limit" });
  await expect(steps).toHaveAttribute("placeholder", "10");
  await steps.fill("7");
  await steps.press("Enter");
  await expect(box).toHaveValue("which model answers without tools?");
  await expect(page.locator(".message.user")).toHaveCount(1);

  await box.press("Enter");
  await expect(answer(page, "Answered by model=fixture tools=0")).toBeVisible();

  await openHydrated(page, page.url());
  await expect(page.getByRole("checkbox", { name: "Tools", exact: true })).not.toBeChecked();
  await expect(page.getByRole("checkbox", { name: "MCP tools" })).toBeDisabled();
  await expect(page.getByRole("spinbutton", { name: "Step limit" })).toHaveValue("7");
});

test("a provider is edited, keeps its key only for its own address, and is removed after confirmation", async ({ page }) => {
  await addProvider(page, "Disposable", KEYED_MODEL_KEY, "throwaway-model");
  const card = providerCard(page, "Disposable");
  await card.getByRole("button", { name: "Edit" }).click();
  const form = page.getByRole("form", { name: "Edit Disposable" });
  // Only the masked key is ever put in the field.
  await expect(form.getByLabel("API key")).toHaveValue("••••4242");

  // Pointed elsewhere with the stored key: refused with what to do.
  await form.getByRole("textbox", { name: "Address" }).fill(`http://localhost:${KEYED_MODEL_PORT}/v1`);
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByRole("alert")).toContainText("enter the key again");

  // Same address, new default model: saved, the key kept.
  await form.getByRole("textbox", { name: "Address" }).fill(fixtureAddress);
  await form.getByRole("textbox", { name: "Default model" }).fill("renamed-model");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form).toHaveCount(0);
  await expect(providerCard(page, "Disposable")).toContainText("renamed-model");
  await expect(providerCard(page, "Disposable")).toContainText("••••4242");
  // The key kept is the real one: the fixture, which answers only with it, is reached.
  await providerCard(page, "Disposable").getByRole("button", { name: "Test connection" }).click();
  await expect(providerCard(page, "Disposable").getByRole("region", { name: "Connection test of Disposable" })).toContainText(
    "Connection works.",
  );

  await providerCard(page, "Disposable").getByRole("button", { name: "Remove" }).click();
  const confirm = page.getByRole("group", { name: "Confirm removal" });
  await expect(confirm).toContainText("Remove Disposable?");
  await confirm.getByRole("button", { name: "Remove Disposable" }).click();
  await expect(providerCard(page, "Disposable")).toHaveCount(0);
  await openHydrated(page, "/settings");
  await expect(providerCard(page, "Disposable")).toHaveCount(0);
});
