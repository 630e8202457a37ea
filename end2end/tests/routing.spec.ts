// Approval routing in the browser: the owner invites two approvers and a member (each in a browser of their
// own) and adds a policy that sends the member's file writes to the approvers, two of whom must approve. The
// member's run waits and the member cannot approve it; the owner's inbox marks the card as not theirs; the
// first approver approves from their inbox and the card says 1 of 2, there and, live, on the thread the second
// has open; the second completes it and the run goes on. The owner's own runs (and every other spec's)
// match no policy and work as before.
import { expect, test } from "@playwright/test";
import * as fs from "node:fs";
import { answer, approvalCard, openHydrated, startChat, watchForTrouble, workspacePath } from "./helpers";
import { invited } from "./people_helpers";

test("a member's write waits for two approvers, who approve from their inboxes; the member cannot", async ({ page, browser }) => {
  const note = workspacePath("routed-note.txt");
  fs.rmSync(note, { force: true });
  const tag = Date.now().toString(36);
  const [annName, beaName, moName] = [`Ann${tag}`, `Bea${tag}`, `Mo${tag}`];
  const ann = await invited(page, browser, "Approver", annName);
  const bea = await invited(page, browser, "Approver", beaName);
  const mo = await invited(page, browser, "Member", moName);
  const trouble = watchForTrouble(ann);

  // The owner routes Mo's file writes to both approvers; two must approve.
  await openHydrated(page, "/settings");
  const policies = page.getByRole("region", { name: "Approval policies" });
  await policies.getByRole("button", { name: "Add a policy" }).click();
  const form = policies.getByRole("form", { name: "A new policy" });
  await form.getByLabel("Name", { exact: true }).fill(`Two for ${moName}`);
  await form.getByLabel("Tool (name or glob such as write_*)").fill("write_*");
  await form.getByLabel("Asked by").selectOption({ label: moName });
  await form.getByLabel(`${annName} (Approver)`).check();
  await form.getByLabel(`${beaName} (Approver)`).check();
  await form.getByLabel("Approvals needed (quorum)").fill("2");
  await form.getByRole("button", { name: "Save the policy" }).click();
  await expect(policies.getByRole("heading", { name: `Two for ${moName}` })).toBeVisible();
  await expect(policies).toContainText("2 of its approvers must approve; never the requester");

  // Mo's run waits; Mo sees who asked and what it needs, and no way to approve it.
  await startChat(mo, "A routed note please");
  const card = approvalCard(mo);
  await expect(card).toContainText(`Asked by ${moName}`);
  await expect(card).toContainText("0 of 2 approvals");
  await expect(card.getByText("This request is routed to other approvers")).toBeVisible();
  await expect(card.getByRole("button", { name: "Approve", exact: true })).toBeHidden();
  const chatUrl = mo.url();

  // The owner's inbox lists every card, and marks this one as not theirs once the page knows who they are.
  await openHydrated(page, "/inbox");
  const ownerItem = page.locator("article.inbox-item").filter({ hasText: "routed-note.txt" });
  await expect(ownerItem.getByText("Not routed to you: its approvers decide it.")).toBeVisible();

  // Bea has the thread open: its card follows the votes as they come.
  await openHydrated(bea, chatUrl);
  const beaCard = approvalCard(bea);
  await expect(beaCard).toContainText("0 of 2 approvals");
  const beaTrouble = watchForTrouble(bea);

  // Ann approves from her inbox: it waits for the second approval.
  await openHydrated(ann, "/inbox");
  const annItem = ann.locator("article.inbox-item").filter({ hasText: "routed-note.txt" });
  await expect(annItem).toContainText("0 of 2 approvals");
  await annItem.getByRole("button", { name: "Approve" }).click();
  await expect(annItem).toContainText(`1 of 2 approvals (approved by ${annName})`);
  await expect(annItem.getByText("Not routed to you")).toBeHidden();
  expect(fs.existsSync(note), "nothing is written with one approval of two").toBe(false);
  // Bea's card says so without a reload (the run's stream carries the vote).
  await expect(beaCard).toContainText(`1 of 2 approvals (approved by ${annName})`);
  await expect(beaCard.getByRole("button", { name: "Approve", exact: true })).toBeVisible();
  expect(beaTrouble.errors).toEqual([]);

  // Bea completes it.
  await openHydrated(bea, "/inbox");
  const beaItem = bea.locator("article.inbox-item").filter({ hasText: "routed-note.txt" });
  await expect(beaItem).toContainText("1 of 2 approvals");
  await beaItem.getByRole("button", { name: "Approve" }).click();
  await expect(beaItem).toHaveCount(0);

  await openHydrated(mo, chatUrl);
  await expect(answer(mo, "The routed note is written.")).toContainText("[tool said: Wrote 14 bytes to routed-note.txt (new file)]");
  expect(fs.readFileSync(note, "utf8")).toBe("two approvers\n");
  expect(trouble.errors).toEqual([]);
});
