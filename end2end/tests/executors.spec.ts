// Executors in Settings: the person adds an executor that listens (the fixture executor, a real
// WebSocket server) with a bearer token, sees Warden connect to it, switches it off and on, and an
// approval the executor asks for on that socket shows in the inbox, where approving it sends the
// decision back to the executor; then the executor is removed after a confirmation. The Outside
// clients table follows both without a reload (the executor's client appears, then is revoked). An executor
// that refuses Warden shows as retrying, with why. The token is never shown back.
import { expect, test, type Page } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { executorFixtureBinary, FixtureExecutor, type ExecutorEvent } from "../fixtures/executor";
import { openHydrated, watchForTrouble } from "./helpers";

const SECRET = "e2e-executor-secret-41c7";
const person = { Authorization: `Bearer ${TOKEN}` };
let binary = "";
let executor: FixtureExecutor | undefined;

test.beforeAll(() => {
  test.setTimeout(900_000); // a cold build of the fixture may wait for other builds
  binary = executorFixtureBinary();
});

test.afterEach(() => {
  executor?.stop();
  executor = undefined;
});

/** The card of one executor on the settings page. */
function executorCard(page: Page, name: string) {
  return page.getByRole("region", { name, exact: true });
}

/** The executor's row in the Outside clients table (each executor asks as a client of its own). */
function clientRow(page: Page, name: string) {
  return page.getByRole("table", { name: "Registered clients" }).getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });
}

/** Opens Settings and adds an executor through the form. */
async function addExecutor(page: Page, name: string, url: string, token: string): Promise<void> {
  await openHydrated(page, "/settings");
  await expect(page.getByRole("heading", { name: "Executors" })).toBeVisible();
  await page.getByRole("button", { name: "Add executor" }).click();
  const form = page.getByRole("form", { name: "Add executor" });
  await form.getByRole("textbox", { name: "Name" }).fill(name);
  await form.getByRole("textbox", { name: "WebSocket address" }).fill(url);
  await form.getByLabel("Bearer token (optional)").fill(token);
  await form.getByRole("button", { name: "Add", exact: true }).click();
  await expect(form).toHaveCount(0);
}

const connected = (e: ExecutorEvent) => e.event === "connected";
const closed = (e: ExecutorEvent) => e.event === "closed";

test("an executor added in settings is dialled, switched off and on, asks for an approval and is removed", async ({
  page,
  request,
}) => {
  const trouble = watchForTrouble(page);
  executor = await FixtureExecutor.start(binary, SECRET);
  const name = `runner-${Date.now()}`;
  await addExecutor(page, name, executor.url, SECRET);

  const card = executorCard(page, name);
  // Its outside client is in the table at once, without a reload.
  await expect(clientRow(page, name)).toContainText("Active");
  await expect(card.getByText("State:")).toContainText("Connected");
  await expect(card).toContainText(executor.url);
  await expect(card).toContainText("Sends a bearer token");
  expect(await executor.next(connected)).toMatchObject({ authorized: true });
  // The token went to the executor, and never comes back: not on the page, not from the API.
  expect(await page.content()).not.toContain(SECRET);
  const listed = await request.get("/api/outside/executors", { headers: person });
  expect(await listed.text()).not.toContain(SECRET);

  // Off closes the socket; on dials again.
  await card.getByRole("checkbox", { name: "Enabled" }).uncheck();
  await expect(card.getByText("State:")).toContainText("Switched off");
  expect(await executor.next(closed)).toMatchObject({ code: 1000 });
  await card.getByRole("checkbox", { name: "Enabled" }).check();
  await expect(card.getByText("State:")).toContainText("Connected");
  await executor.next(connected, 1);

  // The executor asks on its socket; the request waits in the inbox, and the approval goes back to it.
  executor.send({
    type: "security_evaluation",
    id: "exec-1",
    code: "ls -la ./build",
    language: "bash",
    explanation: "Lists the build folder",
    risk_level: "medium",
  });
  const ack = await executor.next((e) => e.event === "frame" && e.frame?.type === "ack");
  expect(ack.frame).toMatchObject({ id: "exec-1" });
  await openHydrated(page, "/inbox");
  const waiting = page.getByRole("list", { name: "Approvals" }).getByRole("article", { name: `Security evaluation from ${name}` });
  await expect(waiting).toContainText("Lists the build folder");
  await expect(waiting).toContainText("ls -la ./build");
  await waiting.getByRole("button", { name: "Approve" }).click();
  const decision = await executor.next((e) => e.event === "frame" && e.frame?.type === "decision");
  expect(decision.frame).toMatchObject({
    id: "exec-1",
    request_id: ack.frame?.request_id,
    decision: "approved",
    decided_by: { kind: "person" },
  });

  // Removal asks first; then Warden stops dialling and the card is gone.
  await openHydrated(page, "/settings");
  await executorCard(page, name).getByRole("button", { name: "Remove" }).click();
  const confirm = executorCard(page, name).getByRole("group", { name: "Confirm removal" });
  await expect(confirm).toContainText(`Remove ${name}?`);
  await confirm.getByRole("button", { name: `Remove ${name}` }).click();
  await expect(executorCard(page, name)).toHaveCount(0);
  // Its client is revoked with it, and the table says so without a reload.
  await expect(clientRow(page, name)).toContainText("Revoked");
  await expect(clientRow(page, name).getByRole("button", { name: `Revoke ${name}` })).toHaveCount(0);
  await executor.next(closed, 1);
  const after = await (await request.get("/api/outside/executors", { headers: person })).json();
  expect(after.map((e: { name: string }) => e.name)).not.toContain(name);
  expect(trouble.errors).toEqual([]);
  expect(trouble.dialogs).toEqual([]);
});

test("an executor that refuses Warden's token shows as retrying, with why", async ({ page }) => {
  executor = await FixtureExecutor.start(binary, SECRET);
  const name = `refusing-${Date.now()}`;
  await addExecutor(page, name, executor.url, "not-the-secret");
  const state = executorCard(page, name).getByText("State:");
  await expect(state).toContainText("Retrying");
  await expect(state).toContainText("the executor refused the connection: HTTP 401");
  await executor.next((e) => e.event === "refused");
  await expect(page.getByText("not-the-secret")).toHaveCount(0);

  // Removed, it is not dialled again.
  await executorCard(page, name).getByRole("button", { name: "Remove" }).click();
  await page.getByRole("button", { name: `Remove ${name}` }).click();
  await expect(executorCard(page, name)).toHaveCount(0);
});
