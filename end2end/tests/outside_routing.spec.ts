// Outside requests routed in the browser: a member registers an outside client; the owner's policy sends
// that member's client requests to the approvers, two of whom must approve. The request is not in the
// member's inbox; the owner sees it marked as not theirs; the first approver approves it from their inbox and
// the second approver's open inbox shows "1 of 2" without a reload; the second completes it, and the client,
// which waited, gets the approval naming both.
import { expect, request as playwrightRequest, test } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { openHydrated, watchForTrouble } from "./helpers";
import { invited } from "./people_helpers";

test("a member's client asks; two approvers approve it from their inboxes; the member and the owner cannot", async ({
  page,
  browser,
  baseURL,
}) => {
  const tag = Date.now().toString(36);
  const [annName, beaName, moName] = [`Ann${tag}`, `Bea${tag}`, `Mo${tag}`];
  const ann = await invited(page, browser, "Approver", annName);
  const bea = await invited(page, browser, "Approver", beaName);
  const mo = await invited(page, browser, "Member", moName);
  const trouble = watchForTrouble(bea);
  const moId = (await (await mo.request.get("/api/me")).json()).id;

  // Only Mo's client's requests are routed (the specs share one server).
  const owner = await playwrightRequest.newContext({ baseURL, extraHTTPHeaders: { Authorization: `Bearer ${TOKEN}` } });
  const created = await owner.post("/api/policies", {
    data: {
      name: `Two for ${moName}'s runner`,
      match: { source: "outside_client", requester: { kind: "person", id: moId } },
      approvers: { roles: ["approver"] },
      quorum: 2,
    },
  });
  expect(created.status()).toBe(201);
  const policyId = (await created.json()).id;

  try {
    // Mo registers a client, which asks over HTTP with its token.
    const registered = await mo.request.post("/api/outside/clients", {
      headers: { Origin: baseURL ?? "" },
      data: { name: `mo runner ${tag}` },
    });
    expect(registered.status()).toBe(201);
    const { token } = await registered.json();
    const client = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    const auth = { Authorization: `Bearer ${token}` };
    const code = `make deploy-${tag}`;
    const asked = await client.post("/api/outside/requests", {
      headers: auth,
      data: { type: "security_evaluation", id: `routed-${tag}`, code, explanation: "deploys", risk_level: "medium" },
    });
    expect(asked.status()).toBe(202);
    const requestId = (await asked.json()).request_id;

    // Not in Mo's inbox: Mo asked for it.
    await openHydrated(mo, "/inbox");
    await expect(mo.getByRole("heading", { name: "Inbox" })).toBeVisible();
    await expect(mo.locator("article.inbox-item").filter({ hasText: code })).toHaveCount(0);
    // The owner sees it, marked as routed to others, with no buttons.
    await openHydrated(page, "/inbox");
    const ownerItem = page.locator("article.inbox-item").filter({ hasText: code });
    await expect(ownerItem).toContainText("Not routed to you: its approvers decide it.");
    await expect(ownerItem.getByRole("button", { name: "Approve" })).toBeHidden();

    // Bea's inbox is open while Ann approves from hers.
    await openHydrated(bea, "/inbox");
    const beaItem = bea.locator("article.inbox-item").filter({ hasText: code });
    await expect(beaItem).toContainText(`Asked by ${moName}`);
    await expect(beaItem).toContainText("0 of 2 approvals");
    await openHydrated(ann, "/inbox");
    const annItem = ann.locator("article.inbox-item").filter({ hasText: code });
    await expect(annItem).toContainText(`Policy \u201cTwo for ${moName}'s runner\u201d`);
    await annItem.getByRole("button", { name: "Approve" }).click();
    await expect(annItem).toContainText(`1 of 2 approvals (approved by ${annName})`);
    const waiting = await client.get(`/api/outside/requests/${requestId}/decision?wait=0`, { headers: auth });
    expect(waiting.status(), "one approval of two decides nothing").toBe(202);

    // Bea's inbox shows Ann's vote as it happens; her approval completes it.
    await expect(beaItem).toContainText(`1 of 2 approvals (approved by ${annName})`);
    await beaItem.getByRole("button", { name: "Approve" }).click();
    await expect(beaItem).toHaveCount(0);
    const decided = await client.get(`/api/outside/requests/${requestId}/decision?wait=30`, { headers: auth });
    expect(decided.status()).toBe(200);
    expect(await decided.json()).toMatchObject({
      type: "decision",
      decision: "approved",
      decided_by: { kind: "person", detail: `approved by ${annName}, then ${beaName} (policy \u201cTwo for ${moName}'s runner\u201d)` },
    });
    await client.dispose();
    expect(trouble.errors).toEqual([]);
  } finally {
    expect((await owner.delete(`/api/policies/${policyId}`)).ok()).toBe(true);
    await owner.dispose();
  }
});
