// What a first visit to each page transfers (issue 11's "first page" row): bytes on the wire as Chromium
// counts them (compressed bodies and headers), with an empty cache, until the page has hydrated. Measured
// only when asked, against the release build, which sends the brotli copies `cargo xtask site --release`
// makes:
//   cargo xtask site --release && cargo build --release -p warden-server -p warden-testkit
//   (cd end2end && WARDEN_PAGE_WEIGHT=1 WARDEN_E2E_PROFILE=release npx playwright test page_weight)
// It prints a table per page and asserts no size: the figures and their goal belong in the issue.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { approvalCard, openHydrated, startChat, watchForTrouble } from "./helpers";

test.skip(!process.env.WARDEN_PAGE_WEIGHT, "page weights are measured only with WARDEN_PAGE_WEIGHT=1");

type Transfer = { url: string; bytes: number };

/** Opens `path` in a new context (nothing cached) and returns what each request transferred until the
 * page hydrated and the network went quiet (a lazy page's module arrives after the main wasm). */
async function firstVisit(browser: Browser, path: string): Promise<Transfer[]> {
  const context = await browser.newContext({ storageState: test.info().project.use.storageState });
  const page = await context.newPage();
  const trouble = watchForTrouble(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const urls = new Map<string, string>();
  const transfers: Transfer[] = [];
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  cdp.on("Network.loadingFinished", (e) => transfers.push({ url: urls.get(e.requestId) ?? "?", bytes: e.encodedDataLength }));
  await page.goto(new URL(path, test.info().project.use.baseURL).toString());
  await expect(page.locator("body[data-hydrated]")).toBeAttached();
  await page.waitForLoadState("networkidle");
  expect(trouble.errors).toEqual([]);
  await context.close();
  return transfers;
}

function report(name: string, transfers: Transfer[]): void {
  const total = transfers.reduce((sum, t) => sum + t.bytes, 0);
  const lines = transfers
    .sort((a, b) => b.bytes - a.bytes)
    .map((t) => `  ${(t.bytes / 1024).toFixed(1).padStart(8)} KB  ${new URL(t.url).pathname}`);
  console.log(`page weight: ${name}: ${(total / 1024).toFixed(1)} KB in ${transfers.length} requests\n${lines.join("\n")}`);
}

async function chatWith(page: Page, prompt: string): Promise<string> {
  await startChat(page, prompt);
  return new URL(page.url()).pathname;
}

test("what a first visit to each page transfers", async ({ browser, page }) => {
  test.setTimeout(120_000);
  const answered = await chatWith(page, "Please say hello");
  await expect(page.getByRole("list", { name: "Conversation" }).locator(".message.assistant")).toContainText("Hello from the fixture");
  const waiting = await chatWith(page, "Please take an accessibility look at the page weight");
  await expect(approvalCard(page)).toBeVisible();

  for (const [name, path] of [
    ["welcome page", "/"],
    ["chat with an answer", answered],
    ["chat with an approval waiting", waiting],
    ["settings", "/settings"],
    ["inbox", "/inbox"],
    ["audit log", "/audit"],
  ]) {
    report(name, await firstVisit(browser, path));
  }

  await openHydrated(page, waiting);
  await approvalCard(page).getByRole("button", { name: "Deny", exact: true }).click();
  await expect(approvalCard(page)).toHaveCount(0);
});
