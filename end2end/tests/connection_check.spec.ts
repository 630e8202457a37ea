// Issue 12 in the browser: a run that needs an MCP server that is disabled or offline (the model
// calls one of its tools, or the person's message names it with @name) shows a card in the chat
// with Connect and Continue anyway. Continue anyway tells the model and carries on; Connect enables
// and connects the server and the call goes through its approval card; a Connect that fails says
// why and the card stays. The server is the rmcp fixture, set up over the API.
import { expect, request as playwrightRequest, test, type APIRequestContext, type Page } from "@playwright/test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { TOKEN } from "../fixtures/access";
import { mcpFixtureBinary } from "../fixtures/mcp-fixture";
import { activeThreadItem, answer, approvalCard, openHydrated, startChat, watchForTrouble } from "./helpers";

const SERVER = "conncheck";
const PROMPT = "Please echo through the conncheck server";
let fixtureBinary = "";
// While this file exists the fixture refuses to start: the server is offline.
let downFile = "";

async function personApi(baseURL: string | undefined): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${TOKEN}` } });
}

async function serverState(api: APIRequestContext): Promise<{ enabled: boolean; state: string }> {
  const res = await api.get(`/api/mcp/servers/${SERVER}`);
  expect(res.ok()).toBe(true);
  const server = await res.json();
  return { enabled: server.enabled, state: server.state.state };
}

/** The card asking about the server. */
function checkCard(page: Page, down: "disabled" | "offline") {
  return page.getByRole("region", { name: `${SERVER} is ${down}` });
}

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(900_000); // a cold build of the fixture server may wait for other builds
  fixtureBinary = mcpFixtureBinary();
  downFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "warden-conncheck-")), "down");
  const api = await personApi(testInfo.project.use.baseURL);
  const transport = { type: "stdio", command: fixtureBinary, args: ["--down-while", downFile] };
  expect((await api.post("/api/mcp/servers", { data: { name: SERVER, transport } })).ok()).toBe(true);
  // Connected once, so its tools are known, as for a server used before it was switched off.
  await expect.poll(async () => (await serverState(api)).state, { timeout: 30_000 }).toBe("connected");
  await api.dispose();
});

test.afterAll(async ({}, testInfo) => {
  const api = await personApi(testInfo.project.use.baseURL);
  await api.delete(`/api/mcp/servers/${SERVER}`);
  await api.dispose();
  fs.rmSync(path.dirname(downFile), { recursive: true, force: true });
});

test("a disabled or offline MCP server asks Connect or Continue anyway, and both work", async ({ page }, testInfo) => {
  const trouble = watchForTrouble(page);
  const api = await personApi(testInfo.project.use.baseURL);
  expect((await api.put(`/api/mcp/servers/${SERVER}/enabled`, { data: { enabled: false } })).ok()).toBe(true);

  // The model calls a tool of the disabled server: the run waits on a card, also after a reload.
  await startChat(page, PROMPT);
  let card = checkCard(page, "disabled");
  await expect(card).toContainText("The model called conncheck__echo");
  await expect(page.getByRole("listitem", { name: "Tool call conncheck__echo" })).toContainText("waiting for its MCP server");
  await openHydrated(page, page.url());
  card = checkCard(page, "disabled");
  await expect(card.getByRole("button", { name: "Connect" })).toBeVisible();

  // Continue anyway: the model is told and answers; the server stays off.
  await card.getByRole("button", { name: "Continue anyway" }).click();
  await expect(answer(page, "The echo came back.")).toContainText("the user chose to continue without it");
  await expect(card).toHaveCount(0);
  expect((await serverState(api)).enabled).toBe(false);

  // In another thread it asks again; Connect enables it, and the call waits on its approval card.
  await startChat(page, PROMPT);
  card = checkCard(page, "disabled");
  await card.getByRole("button", { name: "Connect" }).click();
  await expect(card).toHaveCount(0);
  const approval = approvalCard(page);
  await expect(approval).toContainText("conncheck__echo");
  await approval.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(answer(page, "The echo came back.")).toContainText("[tool said: checked]");
  expect(await serverState(api)).toEqual({ enabled: true, state: "connected" });

  // Offline, and named with @: asked before the model answers; a Connect that fails says why.
  fs.writeFileSync(downFile, "");
  await api.post(`/api/mcp/servers/${SERVER}/reconnect`);
  await expect.poll(async () => (await serverState(api)).state).toBe("failed");
  await startChat(page, "What does @conncheck know?");
  card = checkCard(page, "offline");
  await expect(card).toContainText("Your message names @conncheck");
  await card.getByRole("button", { name: "Connect" }).click();
  await expect(card.getByRole("alert")).toContainText("Could not connect");
  await expect(answer(page, "You said:")).toHaveCount(0);
  fs.rmSync(downFile);
  await card.getByRole("button", { name: "Connect" }).click();
  await expect(card).toHaveCount(0);
  await expect(answer(page, "You said: What does @conncheck know?")).toBeVisible();

  await api.dispose();
  expect(trouble.errors).toEqual([]);
  expect(trouble.dialogs).toEqual([]);
});

/** Chat approvals and outside requests waiting now (this file leaves no connection check waiting). */
async function pendingCount(api: APIRequestContext): Promise<number> {
  const chat = await (await api.get("/api/approvals?status=pending")).json();
  const outside = await (await api.get("/api/outside/requests?status=pending")).json();
  return chat.length + outside.length;
}

test("a waiting connection check is an inbox item: counted, listed, and Continue anyway there resumes the run", async ({ page }, testInfo) => {
  const trouble = watchForTrouble(page);
  const api = await personApi(testInfo.project.use.baseURL);
  expect((await api.put(`/api/mcp/servers/${SERVER}/enabled`, { data: { enabled: false } })).ok()).toBe(true);
  const before = await pendingCount(api);
  const inboxLink = page.getByRole("navigation", { name: "Threads" }).getByRole("link", { name: /^Inbox/ });

  // The run waits on its card; the badge, the title and the thread's row count it.
  await startChat(page, PROMPT);
  await expect(checkCard(page, "disabled")).toBeVisible();
  const chatPath = new URL(page.url()).pathname;
  const row = activeThreadItem(page);
  await expect(row.locator(".thread-waiting")).toHaveText("1 approval waiting");
  const threadTitle = ((await row.getByRole("link").first().textContent()) ?? "").trim();
  expect(threadTitle).not.toBe("");
  await expect(inboxLink).toContainText(`${before + 1} waiting`);
  await expect(page).toHaveTitle(new RegExp(`^\\(${before + 1}\\) `));

  // Listed in /inbox (also under "Chats") with its thread, its server and what the run wanted.
  await inboxLink.click();
  await page.waitForURL("**/inbox");
  await page.getByLabel("Source").selectOption("chat");
  const item = page.getByRole("list", { name: "Approvals" }).getByRole("article", { name: `${SERVER} is disabled` });
  await expect(item).toContainText(threadTitle);
  await expect(item).toContainText("The model called conncheck__echo");
  await expect(item.getByRole("link", { name: "Open the thread" })).toHaveAttribute("href", chatPath);
  await expect(item.getByRole("checkbox")).toHaveCount(0); // decided on its own, never in a batch
  // `a` approves an approval; a check is no approval, so it leaves it alone and says so.
  await item.focus();
  await page.keyboard.press("a");
  await expect(page.locator(".inbox-status")).toContainText("use Connect or Continue anyway");
  await expect(item.getByRole("button", { name: "Connect" })).toBeVisible();

  // Continue anyway from here: the item leaves, the badge clears, and the run went on.
  await item.getByRole("button", { name: "Continue anyway" }).click();
  await expect(item).toHaveCount(0);
  await expect(page.locator(".inbox-status")).toContainText("Continued without it");
  if (before === 0) {
    await expect(inboxLink.locator(".inbox-badge")).toHaveCount(0);
  } else {
    await expect(inboxLink).toContainText(`${before} waiting`);
  }
  const sidebarRow = page.getByRole("navigation", { name: "Threads" }).locator(`li.thread-item:has(a[href="${chatPath}"])`);
  await expect(sidebarRow.locator(".thread-waiting")).toHaveCount(0);
  await sidebarRow.getByRole("link").first().click();
  await page.waitForURL(`**${chatPath}`);
  // The answer depends on what the model was told.
  await expect(answer(page, "The echo came back.")).toContainText("the user chose to continue without it");
  await expect(checkCard(page, "disabled")).toHaveCount(0);
  expect((await serverState(api)).enabled).toBe(false);

  await api.dispose();
  expect(trouble.errors).toEqual([]);
  expect(trouble.dialogs).toEqual([]);
});
