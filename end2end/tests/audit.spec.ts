// Issue 13 in the browser: a person registers an outside client in Settings (its token shown once),
// sets the policy to approve low-risk security evaluations, and the client's request over HTTP is
// approved by that policy; the audit log shows it as automatic with the policy's rule, next to a
// chat approval decided by the person, and both exports (JSON Lines, CSV) hold both.
import { expect, request as playwrightRequest, test, type APIRequestContext, type Page } from "@playwright/test";
import * as fs from "node:fs";
import { TOKEN } from "../fixtures/access";
import { approvalCard, answer, openHydrated, startChat, watchForTrouble, workspacePath } from "./helpers";

/** Code with what CSV must quote: a comma, double quotes and a newline. */
const CODE = 'echo "a, b"\nls -l';
const RULE = "global policy: security evaluations up to low risk are approved automatically";

// The outside policy is global to the server the specs share: put it back as it was.
let policyBefore: unknown = null;
async function personApi(baseURL: string | undefined): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${TOKEN}` } });
}
test.beforeAll(async ({}, testInfo) => {
  const api = await personApi(testInfo.project.use.baseURL);
  policyBefore = await (await api.get("/api/outside/policy")).json();
  await api.dispose();
});
test.afterAll(async ({}, testInfo) => {
  const api = await personApi(testInfo.project.use.baseURL);
  const res = await api.put("/api/outside/policy", { data: policyBefore });
  expect(res.ok()).toBe(true);
  await api.dispose();
});

/** The entries of one export, downloaded by its link on the audit page. */
async function download(page: Page, link: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: link }).click()]);
  return fs.readFileSync((await file.path()) as string, "utf8");
}

test("a client registered in Settings is approved by the policy, and the audit log says so", async ({
  page,
  context,
  baseURL,
}) => {
  const trouble = watchForTrouble(page);
  const name = `audit runner ${Date.now()}`;
  await openHydrated(page, "/settings");
  await expect(page.getByRole("heading", { name: "Outside clients" })).toBeVisible();
  await page.getByRole("textbox", { name: "Client name" }).fill(name);
  await page.getByRole("button", { name: "Register client" }).click();

  // The token, once: in a read-only field, with a copy button and the warning.
  const reveal = page.getByRole("group", { name: `Token for ${name}` });
  await expect(reveal).toContainText("Copy it now: it will not be shown again.");
  const token = await reveal.getByRole("textbox", { name: "Client token" }).inputValue();
  expect(token).toMatch(/^wo_[0-9a-f]{64}$/);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await reveal.getByRole("button", { name: "Copy token" }).click();
  await expect(reveal.getByRole("status")).toHaveText("Copied to the clipboard.");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  const row = page.getByRole("row", { name: new RegExp(`^${name}`) });
  await expect(row).toContainText("Active");
  await expect(row).toContainText("global policy");

  // Gone after a reload: not on the page, not in what the server sent.
  await page.reload();
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  await expect(page.getByRole("row", { name: new RegExp(`^${name}`) })).toBeVisible();
  await expect(page.getByRole("group", { name: `Token for ${name}` })).toHaveCount(0);
  expect(await page.content()).not.toContain(token);

  // Low-risk security evaluations are approved automatically from now on.
  const policy = page.getByRole("form", { name: "Auto-approve policy" });
  await policy.getByRole("combobox", { name: "Approve security evaluations automatically" }).selectOption("low");
  await policy.getByRole("button", { name: "Save policy" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Policy saved." })).toBeVisible();

  // The client asks over plain HTTP with its token (no browser session).
  const client = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await client.post("/api/outside/requests", {
    headers: { Authorization: `Bearer ${token}` },
    data: { type: "security_evaluation", id: `audit-${Date.now()}`, code: CODE, explanation: "lists the files", risk_level: "low" },
  });
  expect(res.status()).toBe(200);
  const decision = await res.json();
  expect(decision).toMatchObject({ type: "decision", decision: "approved", decided_by: { kind: "policy", detail: RULE } });
  await client.dispose();

  // The audit log: automatic, with the rule, the client and the code as text.
  await page.getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
  const entry = page.getByRole("row").filter({ hasText: name });
  await expect(entry).toContainText("Automatic: policy");
  await expect(entry).toContainText(RULE);
  await expect(entry).toContainText("security_evaluation");
  await expect(entry).toContainText("Approved");
  await expect(entry.locator("pre.command")).toHaveText(CODE);

  // Filtered to what a policy decided: the address says so and every row is automatic.
  await page.getByRole("combobox", { name: "Decided by" }).selectOption("policy");
  await page.getByRole("button", { name: "Apply filter" }).click();
  await expect(page).toHaveURL(/decided_by=policy/);
  await expect(page.getByRole("row").filter({ hasText: name })).toBeVisible();
  await expect(page.locator("tr.audit-entry").filter({ hasNotText: "Automatic: policy" })).toHaveCount(0);
  expect(trouble.errors).toEqual([]);
});

/** A client registered over the API whose low-risk request the policy approves at once (this spec's
 * afterAll puts the policy back). */
async function automaticDecision(baseURL: string | undefined): Promise<void> {
  const api = await personApi(baseURL);
  const registered = await api.post("/api/outside/clients", { data: { name: `audit policy runner ${Date.now()}` } });
  expect(registered.status()).toBe(201);
  const { token } = await registered.json();
  const policy = await (await api.get("/api/outside/policy")).json();
  expect((await api.put("/api/outside/policy", { data: { ...policy, security_evaluation: "low" } })).ok()).toBe(true);
  await api.dispose();
  const client = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await client.post("/api/outside/requests", {
    headers: { Authorization: `Bearer ${token}` },
    data: { type: "security_evaluation", id: `export-${Date.now()}`, code: CODE, explanation: "lists the files", risk_level: "low" },
  });
  expect(res.status()).toBe(200);
  await client.dispose();
}

test("a person's chat approval is in the log as theirs, and both exports hold it with the policy's", async ({
  page,
  baseURL,
}) => {
  const trouble = watchForTrouble(page);
  // Its own automatic decision, so this test stands without the one before.
  await automaticDecision(baseURL);
  fs.rmSync(workspacePath("audited.txt"), { force: true });
  await startChat(page, "Please keep an audit trail");
  await approvalCard(page).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(answer(page, "The audited note is written.")).toBeVisible();

  await openHydrated(page, "/audit");
  const entry = page.locator("tr.audit-entry").filter({ hasText: "audited.txt" }).first();
  await expect(entry).toContainText("write_file");
  await expect(entry).toContainText("A person");
  await expect(entry).not.toContainText("Automatic");
  await expect(entry.getByRole("link", { name: "Chat" })).toHaveAttribute("href", /^\/chat\//);

  // JSON Lines: one entry a line, both kinds of decision.
  const lines = (await download(page, "JSON Lines")).trim().split("\n").map((line) => JSON.parse(line));
  const chat = lines.find((e) => e.source === "chat" && e.what === "write_file" && e.arguments.path === "audited.txt");
  // `how` names the approver (issue 39).
  expect(chat).toMatchObject({ decided_by: "person", outcome: "approved", how: "approved by Owner" });
  const automatic = lines.find((e) => e.source === "outside" && e.decided_by === "policy" && e.code === CODE);
  expect(automatic).toMatchObject({ outcome: "approved", how: RULE });
  expect(lines.indexOf(chat)).toBeLessThan(lines.indexOf(automatic)); // newest first

  // CSV: a header row, the code quoted across its comma, quotes and newline.
  const csv = await download(page, "CSV");
  expect(csv.split("\n")[0]).toBe(
    "decided_at,source,outcome,decided_by,how,reason,what,summary,risk,client_name,client_id,thread_id,run_id,id,created_at,code,arguments,edited",
  );
  expect(csv).toContain(`"echo ""a, b""\nls -l"`);
  expect(csv).toContain(`${chat.id},`);
  expect(csv).toContain(`${automatic.id},`);
  expect(trouble.errors).toEqual([]);
});
