// Issue 4 in the browser: a person adds an MCP server on the settings page, tests the connection,
// sees it connected with its tools and their risk, and its destructive tool waits for approval in
// a chat like any built-in tool; then the server is removed after a confirmation.
import { expect, test, type Page } from "@playwright/test";
import { mcpFixtureBinary } from "../fixtures/mcp-fixture";
import { answer, approvalCard, openHydrated, startChat, watchForTrouble } from "./helpers";

let fixtureBinary = "";

test.beforeAll(() => {
  test.setTimeout(900_000); // a cold build of the fixture server may wait for other builds
  fixtureBinary = mcpFixtureBinary();
});

/** The card of one configured server on the settings page. */
function serverCard(page: Page, name: string) {
  return page.getByRole("region", { name, exact: true });
}

test("an MCP server added in settings offers its tools, and a destructive one waits for approval", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await openHydrated(page, "/");
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page.getByRole("heading", { name: "MCP servers" })).toBeVisible();

  await page.getByRole("button", { name: "Add server" }).click();
  const form = page.getByRole("form", { name: "Add server" });
  await form.getByRole("textbox", { name: "Name" }).fill("fixture");
  await expect(form.getByRole("radio", { name: /stdio/ })).toBeChecked();
  await form.getByRole("textbox", { name: "Command" }).fill(fixtureBinary);

  // A test connection shows what the server offers before anything is saved.
  await form.getByRole("button", { name: "Test connection" }).click();
  const found = form.getByRole("region", { name: "Connection test result" });
  await expect(found).toContainText("Connection works: warden-mcp-fixture");
  await expect(found.getByRole("row", { name: /^delete_item\b/ })).toBeVisible();
  await expect(serverCard(page, "fixture")).toHaveCount(0);

  await form.getByRole("button", { name: "Save" }).click();
  await expect(form).toHaveCount(0);
  const card = serverCard(page, "fixture");
  await expect(card.getByText("State:")).toContainText("Connected");
  await expect(card).toContainText("Server: warden-mcp-fixture");
  await expect(card.getByRole("checkbox", { name: "Enabled" })).toBeChecked();
  const deleteRow = card.getByRole("row", { name: /^delete_item\b/ });
  await expect(deleteRow).toContainText("destructive");
  await expect(deleteRow).toContainText("high");
  await expect(deleteRow).toContainText("Asks first");
  await expect(deleteRow.getByRole("combobox", { name: "Policy for delete_item" })).toHaveValue("default");

  // Trusting read-only hints lets the read-only `echo` run without asking; the destructive tool still asks.
  const echoRow = card.getByRole("row", { name: /^echo\b/ });
  await expect(echoRow).toContainText("read-only");
  await expect(echoRow).toContainText("Asks first");
  await card.getByRole("checkbox", { name: "Trust read-only hints" }).check();
  await expect(serverCard(page, "fixture").getByRole("row", { name: /^echo\b/ })).toContainText("Runs without asking");
  await expect(card.getByText("State:")).toContainText("Connected");
  await expect(deleteRow).toContainText("Asks first");
  // A per-tool policy overrides the trust setting.
  const echoPolicy = card.getByRole("combobox", { name: "Policy for echo" });
  await echoPolicy.selectOption({ label: "Always ask" });
  await expect(echoPolicy).toHaveValue("always_ask");
  await expect(echoRow).toContainText("Asks first");

  // Settings are rendered by the server too.
  await openHydrated(page, "/settings");
  await expect(serverCard(page, "fixture").getByRole("checkbox", { name: "Trust read-only hints" })).toBeChecked();

  // In a chat the destructive MCP tool waits on an approval card naming the server.
  await startChat(page, "Please delete item 42 with the MCP fixture");
  const approval = approvalCard(page);
  await expect(approval).toBeVisible();
  await expect(approval).toContainText("delete_item");
  await expect(approval).toContainText("MCP server `fixture`");
  await expect(approval.locator(".risk")).toContainText(/high/i);
  await approval.getByRole("button", { name: "Approve", exact: true }).click();
  // The scripted model repeats the result it was sent: the MCP server's own answer reached it.
  await expect(answer(page, "The MCP server deleted item 42.")).toContainText("[tool said: deleted 42]");
  await expect(approval).toHaveCount(0);
  const result = page.locator("details.tool-output").last();
  await result.locator("summary").click();
  await expect(result.locator("pre")).toHaveText("deleted 42");

  // A long call shows the progress the server reports while it runs.
  await startChat(page, "Please work slowly with the MCP fixture");
  await approvalCard(page).getByRole("button", { name: "Approve", exact: true }).click();
  const bar = page.getByRole("progressbar", { name: "Progress of fixture__slow" });
  await expect(bar).toBeVisible();
  await expect(page.locator(".tool-progress")).toContainText(/step \d+ of 40/);
  await expect(answer(page, "The slow work is done.")).toContainText("[tool said: worked 40 steps]");
  await expect(bar).toHaveCount(0);

  // A server that goes away mid-call: the chat says so and offers to reconnect it right there.
  await startChat(page, "Please crash the MCP fixture");
  await approvalCard(page).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByText("The MCP fixture went offline.")).toBeVisible();
  const offline = page.getByRole("group", { name: "MCP server fixture is offline" });
  await expect(offline).toContainText("was offline, so this call did not run");
  await offline.getByRole("button", { name: "Reconnect" }).click();
  await expect(offline.getByRole("status")).toContainText("Connected again");


  // Removing asks first, in the page.
  await openHydrated(page, "/settings");
  const fixture = serverCard(page, "fixture");
  await fixture.getByRole("button", { name: "Remove", exact: true }).click();
  await fixture.getByRole("button", { name: "Remove fixture" }).click();
  await expect(serverCard(page, "fixture")).toHaveCount(0);
  expect(trouble.errors).toEqual([]);
  expect(trouble.dialogs).toEqual([]);
});

test("a failing server shows its error, and removing a server asks first", async ({ page }) => {
  const trouble = watchForTrouble(page);
  await openHydrated(page, "/settings");
  await page.getByRole("button", { name: "Add server" }).click();
  const form = page.getByRole("form", { name: "Add server" });
  await form.getByRole("textbox", { name: "Name" }).fill("broken");
  await form.getByRole("textbox", { name: "Command" }).fill("/nonexistent/warden-no-such-server");
  await form.getByRole("button", { name: "Test connection" }).click();
  await expect(form.getByRole("alert")).toContainText("Connection failed");
  await form.getByRole("button", { name: "Save" }).click();

  const broken = serverCard(page, "broken");
  await expect(broken.getByText("State:")).toContainText("Failed");

  // Export shows the configuration in the mcpServers format.
  await page.getByRole("button", { name: "Export", exact: true }).click();
  const exported = page.getByRole("textbox", { name: /Exported configuration/ });
  await expect(exported).toHaveValue(/"mcpServers"/);
  await expect(exported).toHaveValue(/warden-no-such-server/);

  // Cancel keeps the server; confirming removes it.
  await broken.getByRole("button", { name: "Remove", exact: true }).click();
  await broken.getByRole("button", { name: "Cancel" }).click();
  await expect(broken.getByRole("button", { name: "Remove broken" })).toHaveCount(0);
  await broken.getByRole("button", { name: "Remove", exact: true }).click();
  await broken.getByRole("button", { name: "Remove broken" }).click();
  await expect(serverCard(page, "broken")).toHaveCount(0);
  await expect(page.getByText("No MCP servers yet.")).toBeVisible();
  expect(trouble.errors).toEqual([]);
  expect(trouble.dialogs).toEqual([]);
});
