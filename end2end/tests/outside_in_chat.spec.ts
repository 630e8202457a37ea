// Issue 13's correlation in the browser: an MCP tool Warden's chat calls (the rmcp fixture's
// `run_code`) asks Warden for approval over the outside channel as a registered client, naming the
// call Warden passed in `_meta`. The request shows on that call's card in the chat, is approved
// there, the answer shows the tool result the approval made, and /inbox lists it once, with the chats.
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { mcpFixtureBinary } from "../fixtures/mcp-fixture";
import { answer, openHydrated, startChat, watchForTrouble } from "./helpers";

const SERVER = "runner";
const PROMPT = "Please run the checks through the runner";
let clientName = "";
let clientToken = "";

async function personApi(baseURL: string | undefined): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${TOKEN}` } });
}

test.beforeAll(async ({}, testInfo) => {
  test.setTimeout(900_000); // a cold build of the fixture server may wait for other builds
  const baseURL = testInfo.project.use.baseURL;
  const api = await personApi(baseURL);
  // The executor's own client, which asks; it never auto-approves, whatever the global policy says.
  clientName = `runner-client-${Date.now()}`;
  const created = await api.post("/api/outside/clients", {
    data: { name: clientName, policy: { security_evaluation: "never" } },
  });
  expect(created.status()).toBe(201);
  const { token } = await created.json();
  clientToken = token;
  // Warden runs `run_code` without asking: the executor behind it asks instead.
  const transport = {
    type: "stdio",
    command: mcpFixtureBinary(),
    args: [],
    env: { WARDEN_URL: baseURL, WARDEN_CLIENT_TOKEN: token },
  };
  const added = await api.post("/api/mcp/servers", {
    data: { name: SERVER, transport, tool_policies: { run_code: "never_ask" } },
  });
  expect(added.ok()).toBe(true);
  await expect
    .poll(async () => (await (await api.get(`/api/mcp/servers/${SERVER}`)).json()).state.state, { timeout: 30_000 })
    .toBe("connected");
  await api.dispose();
});

test.afterAll(async ({}, testInfo) => {
  const api = await personApi(testInfo.project.use.baseURL);
  await api.delete(`/api/mcp/servers/${SERVER}`);
  await api.dispose();
});

test("an executor the chat is calling asks on the call's card, is approved there, and the answer has its result", async ({
  page,
  context,
  request,
}) => {
  const trouble = watchForTrouble(page);
  await startChat(page, PROMPT);
  const call = page.getByRole("listitem", { name: `Tool call ${SERVER}__run_code` });
  const card = call.getByRole("region", { name: `Security evaluation from ${clientName}` });
  await expect(card.locator("pre.code")).toHaveText("make check");
  await expect(card).toContainText("The model asked the fixture to run this code.");
  await expect(card.locator(".client-risk")).toContainText("medium");
  await expect(card.getByRole("status")).toHaveText("Waiting for a decision");
  // Its time left ticks on the card, and Extend gives it two more minutes.
  const countdown = card.locator(".countdown-text");
  const secondsLeft = async () => {
    const [, m, s] = /Times out in (\d+):(\d\d)/.exec((await countdown.textContent()) ?? "") ?? [];
    return Number(m) * 60 + Number(s);
  };
  await expect(countdown).toHaveText(/^Times out in \d+:\d\d$/);
  const left = await secondsLeft();
  await card.getByRole("button", { name: "Extend by 2 minutes" }).click();
  await expect.poll(secondsLeft).toBeGreaterThan(left + 60);

  // Not an item of its own in the inbox; a request of the same client that names no call is.
  const apart = await request.post("/api/outside/requests", {
    headers: { Authorization: `Bearer ${clientToken}` },
    data: { type: "security_evaluation", id: "apart-1", code: "ls build", explanation: "Lists", risk_level: "low" },
  });
  expect(apart.status()).toBe(202);
  const apartId = (await apart.json()).request_id;
  const inbox = await context.newPage();
  await openHydrated(inbox, "/inbox");
  await inbox.getByLabel("Source").selectOption({ label: `Client: ${clientName}` });
  const listed = inbox.getByRole("list", { name: "Approvals" }).getByRole("article");
  await expect(listed).toHaveCount(1);
  await expect(listed).toContainText("ls build");
  // It is listed once, with the chats, and opens its thread.
  await inbox.getByLabel("Source").selectOption({ label: "Chats" });
  const onTheCard = listed.filter({ hasText: "make check" });
  await expect(onTheCard).toHaveCount(1);
  await expect(onTheCard).toContainText("on a tool call of a chat");
  await expect(onTheCard.getByRole("link", { name: "Open the thread" })).toHaveAttribute(
    "href",
    new URL(page.url()).pathname,
  );
  await expect(listed.filter({ hasText: "ls build" })).toHaveCount(0);
  await inbox.close();
  const person = { Authorization: `Bearer ${TOKEN}` };
  const denied = await request.post(`/api/outside/requests/${apartId}/decision`, {
    headers: person,
    data: { decision: "rejected" },
  });
  expect(denied.ok()).toBe(true);

  // Approved on the card: the executor runs the code and the model gets what it answered.
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(answer(page, "The runner answered.")).toContainText("[tool said: ran: make check]");
  await expect(call).toContainText("done");
  await expect(card.getByRole("status")).toHaveText("Approved by you");
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);

  // After a reload the decided request is still on its card.
  await openHydrated(page, page.url());
  await expect(
    page
      .getByRole("listitem", { name: `Tool call ${SERVER}__run_code` })
      .getByRole("region", { name: `Security evaluation from ${clientName}` })
      .getByRole("status"),
  ).toHaveText("Approved by you");

  expect(trouble.errors).toEqual([]);
  expect(trouble.dialogs).toEqual([]);
});
