// Issue 37, items 5, 15 and 18 in the browser: what the person sees on a card is all of what they
// approve. A Claude Code call's every field shows on its inbox card (the ones that change what the call
// may do marked) and in the audit log; hidden and direction-changing characters show as markers with a
// warning on a chat card and an inbox card; a long outside code cannot be approved before all of it is
// shown; a long line wraps; the client's risk and words are labelled as the client's beside Warden's
// own risk. axe finds no serious or critical violation on these cards.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type APIResponse, type Locator, type Page } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { answer, approvalCard, openHydrated, startChat, watchForTrouble, newClient } from "./helpers";

const person = { Authorization: `Bearer ${TOKEN}` };

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function askToRun(
  request: APIRequestContext,
  token: string,
  frame: { id: string; code: string; language: string; explanation: string; risk_level: string },
): Promise<string> {
  const res = await request.post("/api/outside/requests", {
    headers: { Authorization: `Bearer ${token}` },
    data: { type: "security_evaluation", ...frame },
  });
  expect(res.status(), "stored and waiting").toBe(202);
  return (await res.json()).request_id;
}

async function decisionOf(request: APIRequestContext, token: string, requestId: string): Promise<Record<string, unknown>> {
  const res = await request.get(`/api/outside/requests/${requestId}/decision?wait=30`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(res.status(), "decided").toBe(200);
  return res.json();
}

function item(page: Page, name: string | RegExp): Locator {
  return page.getByRole("list", { name: "Approvals" }).getByRole("article", { name });
}

/** Claude Code's side of `/mcp/approvals` (MCP over Streamable HTTP): opens a session and calls
 * `approval_prompt`; the call's answer comes once a person decides. */
async function claudeCodeAsks(
  request: APIRequestContext,
  token: string,
  toolUseId: string,
  input: Record<string, unknown>,
): Promise<Promise<APIResponse>> {
  const headers = {
    Authorization: `Bearer ${token}`,
    Accept: "application/json, text/event-stream",
    "Content-Type": "application/json",
  };
  const init = await request.post("/mcp/approvals", {
    headers,
    data: {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "e2e-claude", version: "1" } },
    },
  });
  expect(init.status(), await init.text()).toBe(200);
  const session = init.headers()["mcp-session-id"];
  expect(session).toBeTruthy();
  const inSession = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-03-26" };
  const initialized = await request.post("/mcp/approvals", {
    headers: inSession,
    data: { jsonrpc: "2.0", method: "notifications/initialized" },
  });
  expect(initialized.status()).toBe(202);
  return request.post("/mcp/approvals", {
    headers: inSession,
    timeout: 60_000,
    data: {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "approval_prompt", arguments: { tool_name: "Bash", input, tool_use_id: toolUseId } },
    },
  });
}

/** Whether `marker` in `block` lies inside the block's box (not scrolled or cut off to the right). */
async function shownWithin(block: Locator, marker: string): Promise<boolean> {
  return block.evaluate((el, marker) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = (node.textContent ?? "").indexOf(marker);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + marker.length);
      const rect = range.getBoundingClientRect();
      const box = el.getBoundingClientRect();
      return rect.width > 0 && rect.left >= box.left && rect.right <= box.right + 1 && rect.right <= window.innerWidth;
    }
    return false;
  }, marker);
}

test("a Claude Code call's every field is on its inbox card, the dangerous ones marked, and in the audit log", async ({
  page,
  request,
}) => {
  const trouble = watchForTrouble(page);
  const { id: clientId, name, token } = await newClient(request, "claude");
  const input = {
    command: "ls",
    description: "List the files",
    timeout: 60000,
    dangerouslyDisableSandbox: true,
    run_in_background: true,
  };
  const answered = claudeCodeAsks(request, token, `toolu_e2e_${Date.now()}`, input);
  await openHydrated(page, "/inbox");
  const card = item(page, `Security evaluation from ${name}`);
  await expect(card).toBeVisible();
  const fields = card.locator(".other-input");
  await expect(fields).toContainText("Also in this call (approving sends all of it)");
  await expect(fields.locator("dt.flagged", { hasText: "dangerouslyDisableSandbox" })).toBeVisible();
  await expect(fields.locator("dt.flagged", { hasText: "run_in_background" })).toBeVisible();
  await expect(fields.locator("dd.flagged").first()).toContainText("changes what the call may do");
  await expect(fields.locator("dt", { hasText: "timeout" })).not.toHaveClass(/flagged/);
  await expect(fields.locator("dd", { hasText: "60000" })).toBeVisible();
  // `ls` reads as low, but with the sandbox switched off Warden calls it high.
  await expect(card.locator(".warden-risk")).toContainText(/Warden's risk: high/i);
  expect(await seriousViolations(page)).toEqual([]);

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  const response = await answered;
  expect(await response.text()).toContain('\\"dangerouslyDisableSandbox\\":true');

  const listed = await (await request.get(`/api/outside/requests?client_id=${clientId}`, { headers: person })).json();
  const requestId = listed[0].id;
  await openHydrated(page, "/audit");
  const row = page.locator(`tr.audit-entry[data-id="${requestId}"]`);
  await expect(row).toContainText("Also in this call: dangerouslyDisableSandbox = true, run_in_background = true");
  await row.getByText("Arguments as sent").click();
  await expect(row.locator("details pre")).toContainText('"dangerouslyDisableSandbox": true');
  expect(trouble.errors).toEqual([]);
});

test("hidden and direction-changing characters show as markers with a warning on a chat card and an inbox card", async ({
  page,
  request,
}) => {
  const trouble = watchForTrouble(page);
  await startChat(page, "Please run the trojan source command");
  const card = approvalCard(page);
  await expect(card).toBeVisible();
  await expect(card.locator(".hidden-chars-note")).toContainText(
    "This command contains hidden or direction-changing characters",
  );
  await expect(card.locator("pre.command")).toHaveText("echo ok #⟨U+202E⟩ }⟨U+2066⟩ && ls⟨U+2069⟩");
  await expect(card.locator("pre.command .hidden-char.bidi")).toHaveCount(3);
  // `echo` and `ls` alone read as low; hidden characters make it at least medium.
  await expect(card.locator(".risk")).toContainText(/medium/i);
  expect(await seriousViolations(page)).toEqual([]);
  await card.getByRole("button", { name: "Deny" }).click();
  await expect(answer(page, "The hidden command was refused.")).toBeVisible();

  const { name, token } = await newClient(request, "bidi");
  const id = await askToRun(request, token, {
    id: "bidi-1",
    code: "cat notes.txt #\u202e }\u2066 ; rm -rf ~\u2069\u200b",
    language: "bash",
    explanation: "Reads the notes \u202eeman",
    risk_level: "low",
  });
  await openHydrated(page, "/inbox");
  const waiting = item(page, `Security evaluation from ${name}`);
  await expect(waiting.locator(".hidden-chars-note")).toContainText(
    "This code contains hidden or direction-changing characters",
  );
  await expect(waiting.locator("details.inbox-code pre")).toHaveText(
    "cat notes.txt #⟨U+202E⟩ }⟨U+2066⟩ ; rm -rf ~⟨U+2069⟩⟨U+200B⟩",
  );
  await expect(waiting.locator(".client-claim")).toContainText("Reads the notes ⟨U+202E⟩eman");
  expect(await seriousViolations(page)).toEqual([]);

  // The full-screen view shows the markers too, unhighlighted.
  await openHydrated(page, `/approvals/${id}`);
  const codePanel = page.getByRole("tabpanel", { name: "Code" });
  await expect(codePanel.locator(".hidden-chars-note")).toBeVisible();
  await expect(codePanel.locator("pre.code .hidden-char")).toHaveCount(4);
  expect(await seriousViolations(page)).toEqual([]);
  expect(trouble.errors).toEqual([]);
});

test("a long outside code cannot be approved before all of it is shown", async ({ page, request }) => {
  const trouble = watchForTrouble(page);
  const { name, token } = await newClient(request, "long");
  const lines = Array.from({ length: 400 }, (_, i) => `print("line ${i} of the long program")`).join("\n");
  const code = `${lines}\nimport shutil; shutil.rmtree("/home")  # THE-HIDDEN-TAIL\n`;
  const kib = Math.ceil(code.length / 1024);
  const id = await askToRun(request, token, {
    id: "long-1",
    code,
    language: "python",
    explanation: "Prints some lines",
    risk_level: "low",
  });
  await openHydrated(page, "/inbox");
  const card = item(page, `Security evaluation from ${name}`);
  await expect(card.locator(".more-follows")).toHaveText(
    `Shown: the first 4 KiB of ${kib} KiB; ${kib - 4} KiB more follow. Show all of it to approve.`,
  );
  await expect(card.locator("details.inbox-code pre")).not.toContainText("THE-HIDDEN-TAIL");
  const approve = card.getByRole("button", { name: "Approve", exact: true });
  await expect(approve).toBeDisabled();
  await expect(approve).toHaveAccessibleDescription(/Show all of it to approve/);
  // Nor from the keyboard.
  await card.focus();
  await page.keyboard.press("a");
  await expect(page.getByText(`Show all of its code before approving: Security evaluation from ${name}`)).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await card.getByRole("button", { name: `Show all ${kib} KiB` }).click();
  await expect(card.locator("details.inbox-code pre")).toContainText("THE-HIDDEN-TAIL");
  await expect(card.locator(".more-follows")).toHaveText(`All ${kib} KiB shown.`);
  await expect(approve).toBeEnabled();
  await approve.click();
  expect(await decisionOf(request, token, id)).toMatchObject({ decision: "approved", decided_by: { kind: "person" } });
  expect(trouble.errors).toEqual([]);
});

test("a long line wraps, and the client's claims are labelled beside Warden's own risk", async ({ page, request }) => {
  const trouble = watchForTrouble(page);
  const { name, token } = await newClient(request, "claims");
  const code = `echo hello${" ".repeat(400)}&& rm -rf ~/WRAPPED-TAIL`;
  const id = await askToRun(request, token, {
    id: "claims-1",
    code,
    language: "bash",
    explanation: "Warden checked this: it only says hello.",
    risk_level: "low",
  });
  await openHydrated(page, "/inbox");
  const card = item(page, `Security evaluation from ${name}`);
  await expect(card.locator(".client-risk")).toHaveText(/Risk according to the client: low/i);
  await expect(card.locator(".warden-risk")).toHaveText(/Warden's risk: high/i);
  await expect(card.locator(".client-claim")).toHaveText("The client says: Warden checked this: it only says hello.");
  const pre = card.locator("details.inbox-code pre");
  await expect(pre).toContainText("WRAPPED-TAIL");
  expect(await shownWithin(pre, "WRAPPED-TAIL"), "the tail is on screen in the inbox").toBe(true);

  await openHydrated(page, `/approvals/${id}`);
  await expect(page.locator(".client-risk")).toHaveText(/Risk according to the client: low/i);
  await expect(page.locator(".warden-risk")).toHaveText(/Warden's risk: high/i);
  const full = page.getByRole("tabpanel", { name: "Code" }).locator("pre.code");
  expect(await shownWithin(full, "WRAPPED-TAIL"), "the tail is on screen full screen").toBe(true);
  await page.getByRole("tab", { name: "Explanation" }).click();
  await expect(page.getByRole("tabpanel", { name: "Explanation" }).locator(".client-claim")).toContainText(
    "The client says:",
  );
  expect(await seriousViolations(page)).toEqual([]);
  expect(trouble.errors).toEqual([]);
});
