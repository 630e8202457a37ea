// A flood of outside requests while the person has the inbox open: no row moves under their pointer
// (what arrives goes below, counted in "N new below"), and the quiet client's request is still listed.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { TOKEN } from "../fixtures/access";
import { openHydrated, watchForTrouble, newClient } from "./helpers";

const person = { Authorization: `Bearer ${TOKEN}` };

/** A security evaluation over HTTP with the client's token; Warden's id of it. */
async function ask(request: APIRequestContext, token: string, id: string, explanation: string): Promise<string> {
  const res = await request.post("/api/outside/requests", {
    headers: { Authorization: `Bearer ${token}` },
    data: { type: "security_evaluation", id, code: `echo ${id}\n`, language: "sh", explanation, risk_level: "high" },
  });
  expect(res.status(), "stored and waiting").toBe(202);
  return (await res.json()).request_id;
}

test("a flood of requests arriving while the inbox is open moves no Approve button", async ({ page, request }) => {
  const trouble = watchForTrouble(page);
  const quiet = await newClient(request, "quiet");
  const flood = await newClient(request, "flood");
  const quietId = await ask(request, quiet.token, "quiet-1", "The quiet client's one request");

  await openHydrated(page, "/inbox");
  const list = page.getByRole("list", { name: "Approvals" });
  const quietRow = list.locator(`[data-key="outside:${quietId}"]`);
  await expect(quietRow).toBeVisible();
  // The first row, its key and where its Approve button is: under the person's pointer.
  const firstRow = list.locator("[data-key]").first();
  const firstKey = await firstRow.getAttribute("data-key");
  const approve = list.locator(`[data-key="${firstKey}"]`).getByRole("button", { name: "Approve", exact: true });
  await expect(approve).toBeVisible();
  const before = await approve.boundingBox();

  const sent: string[] = [];
  for (let i = 0; i < 40; i++) {
    sent.push(await ask(request, flood.token, `flood-${i}`, `Flood request ${i}`));
  }
  // Every one of them is listed (below), and the page says so.
  await expect(list.locator(`[data-key="outside:${sent[sent.length - 1]}"]`)).toBeAttached();
  const newer = page.getByRole("button", { name: /\d+ new below · Show newest first/ });
  await expect(newer).toBeVisible();

  // Nothing moved: the same first row, its Approve button where it was.
  await expect(list.locator("[data-key]").first()).toHaveAttribute("data-key", firstKey ?? "");
  expect(await approve.boundingBox()).toEqual(before);
  await expect(quietRow).toBeVisible();

  // Asked for, the newest come first again.
  await newer.click();
  await expect(list.locator("[data-key]").first()).toHaveAttribute("data-key", `outside:${sent[sent.length - 1]}`);
  await expect(newer).toBeHidden();
  expect(trouble.errors).toEqual([]);
});
